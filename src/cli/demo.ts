/**
 * The demo behind `npm start` (bundled as `build/demo.js`, never shipped in the package): the agent against the
 * example catalog MCP server, launched over stdio from this repository.
 *
 * Without `ANTHROPIC_API_KEY` or `OPENAI_API_KEY` (or with `--offline`) it is the
 * offline demo: a scripted model, no network. With a key, a real model drives
 * the same flow (`OPENAI_BASE_URL` and `YADA_MODEL` apply as for `yada run`).
 * Either way it shows discovery, authorized read calls with their rendered
 * results, a write that stops with `approval_required` and is recorded in an
 * action store, its approval, the execution (the reference contract server loses
 * the answer on purpose, so the outcome comes from its receipt helper), and the
 * model's answer once the run resumes (W5, W8).
 *
 * @module
 */
import { CLI_EXIT_GRACE_MS } from "../limits.js";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolResultMessage } from "../agent/messages.js";
import type { AgentEvent } from "../agent/events.js";
import type { ModelRequest } from "../agent/provider.js";
import { run } from "../agent/run.js";
import { scripted } from "../agent/scripted.js";
import { connectAgentTools } from "./agent-tools.js";
import { approveAndExecute } from "./demo-actions.js";
import { MemoryActionStore } from "../actions/memory-store.js";
import { connectMcp } from "../node/tools.js";
import type { Tool } from "../tools/types.js";
import { EXIT, errorLine, exitCodeOf } from "./exit.js";
import { chooseProvider, type ProviderChoice } from "./provider.js";
import type { StdioChoice } from "./server.js";
import { exitQuietlyOnClosedPipe, oneLine, pad, processIo, styles, type Io } from "./terminal.js";
import { printApproval, textView } from "./view.js";

const CATALOG = join("fixtures", "servers", "catalog", "stdio.mjs");
const CONTRACT = join("fixtures", "servers", "contract", "stdio.mjs");
const IDENTITY = { actorId: "demo-user", tenantId: "demo" };
const REVIEWER = { actorId: "demo-reviewer", tenantId: "demo" };
const READS = ["lookup", "search"];
// The catalog's rename runs only once a person approved it; the host allows it then.
const CATALOG_ALLOWED = [...READS, "rename"];
const WRITES = ["rename", "prepare_rename", "rename_receipt"];
const INPUT = 'Look up product ABC-123 and search the catalog for "g". Then rename inventory item A to "Widget Pro".';
const SYSTEM =
  "You are the assistant of a product catalog and its inventory. Use the catalog tools to answer. " +
  "Renaming is a write that a person must approve: when asked to rename, call the rename tool; it will wait for approval.";

function findFixture(path: string, from: string): string | undefined {
  let dir = from;
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, path);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

/** The catalog server script, found by walking up from this module (dist/ or the build tree). */
export function findCatalogServer(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  return findFixture(CATALOG, from);
}

/** The text of the first part of a tool result, for the scripted model's second answer. */
function resultText(m: ToolResultMessage | undefined): string {
  const part = m?.content[0];
  return part?.type === "text" ? part.text : "";
}

/** The offline model: looks up and searches, reports what it found, then proposes the rename. */
export function demoScript(): ProviderChoice {
  const provider = scripted([
    {
      text: "I'll look up ABC-123 and search the catalog for \"g\" at the same time.",
      toolCalls: [
        { name: "catalog__lookup", arguments: { sku: "ABC-123" } },
        { name: "catalog__search", arguments: { query: "g" } },
      ],
    },
    (request: ModelRequest) => {
      const results = request.messages.filter((m): m is ToolResultMessage => m.role === "tool");
      const lookup = resultText(results.find((r) => r.toolName === "catalog__lookup"));
      let matches = "some";
      try {
        const parsed = JSON.parse(resultText(results.find((r) => r.toolName === "catalog__search"))) as { items?: unknown[] };
        if (Array.isArray(parsed.items)) matches = String(parsed.items.length);
      } catch {
        // the search failed: its error result is on screen already
      }
      return {
        text: `${lookup}. The search found ${matches} matching products. Renaming inventory item A to "Widget Pro" is a write, so I'm proposing it for approval.`,
        toolCalls: [{ name: "items__rename", arguments: { id: "A", name: "Widget Pro" } }],
      };
    },
    (request: ModelRequest) => {
      const last = request.messages.at(-1);
      let answer = last?.role === "tool" ? resultText(last) : "";
      try {
        const parsed = JSON.parse(answer) as { message?: unknown };
        if (typeof parsed.message === "string") answer = parsed.message;
      } catch {
        // plain text
      }
      return { text: last?.role === "tool" && !last.isError ? `Done: ${answer}.` : `The rename did not go through: ${answer}` };
    },
  ]);
  return { provider, label: "scripted model", offline: true };
}

/** Runs the demo; returns the exit code (0 when it stopped for approval as intended, or the model answered). */
export async function demo(argv: readonly string[], io: Io = processIo(), signal?: AbortSignal): Promise<number> {
  const s = styles(io);
  const say = (text = ""): void => io.out(`${text}\n`);
  try {
    const env = io.env;
    const online = !argv.includes("--offline") && (env.ANTHROPIC_API_KEY?.trim() || env.OPENAI_API_KEY?.trim());
    const choice = online ? chooseProvider({}, env) : demoScript();
    const server = findCatalogServer();
    const contract = findFixture(CONTRACT, dirname(fileURLToPath(import.meta.url)));
    if (!server || !contract) {
      io.err(`yada: config: the demo runs from the yada repository: ${server ? CONTRACT : CATALOG} was not found\n`);
      return EXIT.usage;
    }
    if (choice.offline) {
      say(s.bold("yada demo · OFFLINE DEMO: scripted model, bundled catalog server over stdio, no network, no API key"));
      say(s.dim("  (set ANTHROPIC_API_KEY or OPENAI_API_KEY to run the same flow with a real model)"));
    } else {
      say(s.bold(`yada demo · live: ${choice.label} drives the agent against the bundled catalog server`));
      say(s.dim("  (npm start -- --offline runs the scripted offline demo instead)"));
    }

    say();
    say(s.bold("1 · Discovery"));
    const stdio: StdioChoice = { kind: "stdio", name: "catalog", command: process.execPath, args: [server], inheritStderr: false, timeoutMs: 30_000 };
    const agent = await connectAgentTools(stdio, {
      identity: IDENTITY,
      // The host's permission check, awaited on every call with the remote tool name (T4).
      authorize: (who, tool) => {
        const allowed = CATALOG_ALLOWED.includes(tool);
        io.out(`    ${s.dim(`authorize(${who.actorId}@${who.tenantId}, ${tool}) → ${allowed ? "allowed" : "denied"}`)}\n`);
        return allowed;
      },
      readTools: READS,
      confirmTools: ["rename"],
      ...(signal ? { signal } : {}),
    });
    // The inventory: the reference server of the action contract, told to lose the answer to its
    // first rename (it performs it, then says "unknown"), with its own log of every mutation.
    const dir = mkdtempSync(join(tmpdir(), "yada-demo-"));
    const serverLog = join(dir, "inventory.log");
    const items = await connectMcp(
      {
        name: "items",
        command: process.execPath,
        args: [contract, "--mode", "unknown-status", "--log", serverLog, "--principal", `${IDENTITY.actorId}/${IDENTITY.tenantId}`],
        writeTools: { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } },
      },
      {
        identity: IDENTITY,
        authorize: (who, tool) => {
          const allowed = WRITES.includes(tool);
          io.out(`    ${s.dim(`authorize(${who.actorId}@${who.tenantId}, ${tool}) → ${allowed ? "allowed" : "denied"}`)}\n`);
          return allowed;
        },
      },
      signal ? { signal } : {},
    ).catch(async (e: unknown) => {
      await agent.connection.close().catch(() => {});
      throw e;
    });
    const tools: Tool[] = [...agent.tools, ...items.tools];
    try {
      const info = agent.serverInfo ? `${oneLine(agent.serverInfo.name, 60)} ${oneLine(agent.serverInfo.version, 20)}` : "the catalog";
      say(`  connected to ${info} over stdio: node ${relative(process.cwd(), server) || server}`);
      say(`  the server lists ${agent.listed.length} tools; the model gets ${agent.tools.length}:`);
      const w = Math.max(...tools.map((t) => t.name.length));
      for (const t of agent.reads) say(`    ${pad("read", 8)} ${s.bold(pad(t.name, w))}  ${oneLine(t.description, 70)}`);
      for (const t of agent.confirms) say(`    ${pad(t.effect, 8)} ${s.bold(pad(t.name, w))}  ${oneLine(t.description, 50)} ${s.yellow("(stops for approval)")}`);
      say(`  connected to the inventory (the action contract's reference server) over stdio: node ${relative(process.cwd(), contract) || contract}`);
      for (const t of items.tools) {
        const note = t.effect === "read" ? "" : ` ${s.yellow("(stops for approval; its helpers stay hidden)")}`;
        say(`    ${pad(t.effect, 8)} ${s.bold(pad(t.name, w))}  ${oneLine(t.description, t.effect === "read" ? 70 : 50)}${note}`);
      }

      say();
      say(s.bold(`2 · Agent run as ${IDENTITY.actorId}@${IDENTITY.tenantId}`));
      say(`  ${s.cyan(">")} ${INPUT}`);
      const view = textView(io, { indent: "  " });
      const store = new MemoryActionStore();
      const common = { provider: choice.provider, tools, identity: IDENTITY, system: SYSTEM, maxSteps: 8, onEvent: (e: AgentEvent) => view.onEvent(e), ...(signal ? { signal } : {}) };
      const runId = "demo-run";
      const result = await run({ ...common, input: INPUT, actions: { store, runId } });

      say();
      say(s.bold(`3 · Stopped: ${result.stopReason}`));
      if (result.stopReason === "approval_required" && result.state) {
        printApproval(io, result.proposedCalls, "  ");
        say();
        say(s.bold("4 · Approval and execution (the action store, the worker)"));
        const ended = await approveAndExecute(io, store, tools, IDENTITY, REVIEWER, runId);
        const logText = existsSync(serverLog) ? readFileSync(serverLog, "utf8") : "";
        const performed = logText.split("\n").filter((l) => l.includes('"status":"succeeded"')).length;
        say(`  the inventory's own log: ${performed} mutation${performed === 1 ? "" : "s"} performed; ${ended.length} approved action${ended.length === 1 ? "" : "s"} in all`);
        say();
        say(s.bold("5 · The run resumes with the outcomes read from the store"));
        const resumed = await run({ ...common, resume: result.state, actions: { store, runId } });
        say();
        say(s.bold(`6 · Stopped: ${resumed.stopReason}`));
        if (resumed.stopReason === "end") say(`  ${oneLine(resumed.text, 200)}`);
        if (resumed.stopReason === "approval_required") printApproval(io, resumed.proposedCalls, "  ");
      } else if (result.stopReason === "end") {
        say("  The model answered without proposing a write this time.");
      }
      say(s.dim(`  ${result.steps} model call${result.steps === 1 ? "" : "s"} before the approval. Try it on any server: yada run "<prompt>" --stdio "cmd args"`));
      if (result.stopReason === "cancelled") return EXIT.interrupted;
      return result.stopReason === "approval_required" || result.stopReason === "end" ? EXIT.ok : EXIT.incomplete;
    } finally {
      await items.close().catch(() => {});
      await agent.connection.close().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  } catch (e) {
    io.err(`${errorLine(e)}\n`);
    return exitCodeOf(e);
  }
}

// Run when executed (build/demo.js), not when imported.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  exitQuietlyOnClosedPipe();
  const interrupt = new AbortController();
  process.on("SIGINT", () => {
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
    interrupt.abort();
  });
  const code = await demo(process.argv.slice(2), processIo(), interrupt.signal);
  process.exitCode = code;
  setTimeout(() => process.exit(code), CLI_EXIT_GRACE_MS).unref();
}
