/**
 * `yada --help`: written from the command, flag and exit-code tables, so the
 * help cannot drift from what the parser accepts.
 *
 * @module
 */
import { CLI_TIMEOUT_GRACE_MS } from "../limits.js";
import { DEFAULT_CLIENT_INFO } from "../mcp/client.js";
import { COMMANDS, FLAGS, type FlagGroup } from "./args.js";
import { EXIT_CODES } from "./exit.js";
import { pad } from "./terminal.js";

const GROUP_TITLES: Record<FlagGroup, string> = {
  server: "Server (exactly one of --stdio, --url, --server; worker: --server may repeat)",
  host: "Server requests (tools, call, read, prompt, …; answered only with these flags)",
  output: "Output",
  call: "call",
  record: "record",
  login: "login",
  run: "run (provider from --provider or the environment)",
  actions: "actions, worker, approvals",
  worker: "worker",
  approvals: "approvals",
  general: "General",
};

/** The version `yada --version` prints. */
export const VERSION = DEFAULT_CLIENT_INFO.version;

/** The full help text. */
export function helpText(): string {
  const lines: string[] = [];
  lines.push(`yada ${VERSION}: an MCP client and agent in the terminal`, "");
  lines.push("Usage: yada <command> [flags]", "");
  lines.push("Commands:");
  const w = Math.max(...COMMANDS.map((c) => c.usage.length));
  for (const c of COMMANDS) lines.push(`  ${pad(c.usage, w)}  ${c.summary}`);
  for (const group of Object.keys(GROUP_TITLES) as FlagGroup[]) {
    lines.push("", `${GROUP_TITLES[group]}:`);
    const flags = FLAGS.filter((f) => f.group === group);
    const shown = flags.map((f) => `${f.short ? `-${f.short}, ` : "    "}--${f.name}${f.value ? ` ${f.value}` : ""}`);
    const fw = Math.max(...shown.map((s) => s.length));
    flags.forEach((f, i) => lines.push(`  ${pad(shown[i] ?? "", fw)}  ${f.help}`));
  }
  lines.push(
    "",
    "Environment:",
    "  YADA_MCP_SERVERS   JSON array of server configs for --server, e.g.",
    '                     [{"name":"catalog","url":"https://example.com/mcp","headers":{"authorization":"Bearer …"}}]',
    "  ANTHROPIC_API_KEY  run: use Anthropic (default model claude-sonnet-4-5)",
    "  OPENAI_API_KEY     run: use OpenAI Chat Completions (default model gpt-4.1-mini)",
    "  OPENAI_BASE_URL    run: an OpenAI-compatible server (Ollama, vLLM, …); needs --model or YADA_MODEL",
    "  YADA_MODEL         run: the model, when --model is not given",
    "  YADA_IDP_CLIENT_SECRET, YADA_CLIENT_SECRET",
    "                     login --id-token-file: the client secrets at the identity provider and at",
    "                     the server's authorization server (kept in the token file, like a registration's)",
    "  NO_COLOR           no colours (they are only used on a terminal anyway)",
    "",
    "run: reads run directly, authorized for --actor/--tenant (the CLI user may run every read);",
    "each call to another tool is shown (tool, arguments, preview) and, on a terminal, asked y/n;",
    "--approve all|none decides without asking. Approved calls are recorded in the file action store",
    "(--store) and run once by the worker, and the model gets each outcome. Undecided (no terminal,",
    "no --approve), the run stops with exit 4 and the calls are listed, not executed; with --store",
    "they are recorded there awaiting approval. Ctrl-C or Ctrl-D at the y/n prompt decides nothing:",
    "the action stays awaiting approval and the commands that decide it later are printed (exit 130).",
    "Decided work is finished even when stdout closes; an approved call left unfinished exits non-zero.",
    "",
    "actions approve|reject decide a recorded action (actions resolve <id> --outcome succeeded|failed",
    "--note TEXT settles one whose outcome is unknown); yada approvals serves the same decisions as",
    "a page on 127.0.0.1 behind a random token (its URL printed once). yada worker --server NAME... then",
    "executes the approved actions of every run (each for its own actor and tenant), until SIGINT or",
    "SIGTERM, which let the action in hand finish (exit 0); --once makes one pass. Write tools need a",
    "reviewed --config file (a JSON array of server configs with writeTools / confirmTools, like",
    "YADA_MCP_SERVERS, which stays read-only); it is refused when its group or others may write it.",
    "",
    "call: a tool not annotated readOnlyHint: true is called only with --yes or a y at the terminal:",
    "a direct call bypasses approvals.",
    "",
    "--elicit: on a terminal each elicitation is shown (message, fields, or a URL in full with its",
    "domain, which yada never opens) and answered accept / decline / cancel, then field by field;",
    "the answer is checked against the server's schema. Without a terminal, every one is declined.",
    "",
    "Errors: one line on stderr, `yada: <code>: <message>`; with --json also one JSON object on",
    'stdout, {"code": ..., "message": ..., "exit": N}. --timeout bounds the whole command: yada ends',
    `within it plus ${CLI_TIMEOUT_GRACE_MS} ms (exit 3). A closed stdout (| head) ends yada quietly, exit 0.`,
    "Exit codes:",
  );
  for (const e of EXIT_CODES) lines.push(`  ${pad(String(e.code), 3)}  ${e.meaning}${e.errorCodes.length ? ` [${e.errorCodes.join(", ")}]` : ""}`);
  lines.push(
    "",
    "Examples:",
    '  yada tools --stdio "node server.mjs"',
    "  yada call lookup '{\"sku\":\"ABC-123\"}' --url http://127.0.0.1:3000/mcp --header \"Authorization: Bearer $TOKEN\"",
    "  yada record -o session.jsonl --server catalog --call lookup '{\"sku\":\"ABC-123\"}'",
    '  yada run "Rename ABC-123 to Widget Pro" --server catalog --name catalog --approve all',
    "  yada actions list --store .yada/actions.jsonl --tenant local",
    "  yada worker --store .yada/actions.jsonl --server catalog --config yada.json",
    "  yada approvals --store .yada/actions.jsonl --port 8787",
  );
  return lines.join("\n") + "\n";
}
