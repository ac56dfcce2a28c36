/**
 * `yada worker --store PATH --server NAME...` (U6, W8): executes the approved
 * actions of every run in a file action store, at most once each, through the
 * durable worker, until SIGINT or SIGTERM (which stop it claiming, let the
 * actions in hand finish, and exit 0) or, with `--once`, after one pass.
 *
 * It serves the servers it is given: `--server` names from a reviewed
 * `--config` file (write mappings allowed) or from `YADA_MCP_SERVERS`, or one
 * `--stdio` / `--url` server named by `--name`. Each action's tool is resolved
 * on a connection bound to the action's own actor and tenant (one connection
 * per server and identity, kept across passes). It claims only the actions of the
 * servers it serves (`toolPrefixes`): another server's action is never leased by
 * it, and waits, untouched, for a worker that serves it.
 *
 * The store is opened for each pass and closed between passes, so `yada
 * actions approve` can decide actions while the worker runs; a note beside the
 * store (`PATH.worker`) tells it that a worker serves the store and which servers.
 *
 * @module
 */
import type { ActionRecord, ActionStore } from "../actions/types.js";
import { createWorker } from "../actions/worker.js";
import { StoreError } from "../errors.js";
import { CLI_WORKER_PASS_CLAIM_MS, DEFAULT_WORKER_POLL_MS, MAX_CLI_WORKER_CONNECTIONS } from "../limits.js";
import type { Logger } from "../log.js";
import type { FileActionStore } from "../node/file-store.js";
import { StdioTransport, type StdioServerParams } from "../node/stdio.js";
import { connectMcp, nodeTransportFactory } from "../node/tools.js";
import type { McpConnection, TransportFactory } from "../tools/connect.js";
import type { ConfirmTool, Identity, Tool, WriteTool } from "../tools/types.js";
import type { HttpAuth } from "../transport/http-auth.js";
import { actionConfig } from "./agent-tools.js";
import { loginOf, withLoginAdvice } from "./login-hints.js";
import { loggerOf, positionals, type CommandContext } from "./command.js";
import { EXIT, UsageError, errorLine, exitCodeOf } from "./exit.js";
import { chooseServers, printServerStderr, type ServerChoice } from "./server.js";
import { announceWorker, checkStorePath, openCliStore, storePathOf } from "./store.js";
import { jsonText, keepRunningWhenStdoutCloses, oneLine, type Io } from "./terminal.js";
import { allowAll } from "./run.js";

/** A stdio server of the worker starts in its own process group: a Ctrl-C at the terminal stops the worker, which lets the call in hand finish. */
function workerTransports(choice: ServerChoice, logger: Logger | undefined): TransportFactory {
  return (server, context) => {
    if (choice.kind !== "stdio" || server.command === undefined) return nodeTransportFactory(server, context);
    const params: StdioServerParams = { command: server.command, args: server.args ?? [], name: server.name, logger: context.logger, ownProcessGroup: true };
    if (server.env) params.env = server.env;
    if (choice.cwd !== undefined) params.cwd = choice.cwd;
    if (choice.inheritStderr) params.onStderr = printServerStderr;
    if (logger) params.logger = logger;
    return new StdioTransport(params);
  };
}

/** Connections by server and identity, the least recently used closed past `MAX_CLI_WORKER_CONNECTIONS`. */
class ConnectionPool {
  readonly #open = new Map<string, Promise<McpConnection<Tool>>>();
  readonly #logins = new Map<string, Promise<HttpAuth | undefined>>();
  constructor(
    readonly env: Readonly<Record<string, string | undefined>>,
    readonly logger: Logger | undefined,
  ) {}

  /** The stored login of an HTTP server (A6), read once per server. */
  #login(choice: ServerChoice): Promise<HttpAuth | undefined> {
    let login = this.#logins.get(choice.name);
    if (!login) this.#logins.set(choice.name, (login = loginOf(choice, this.env, this.logger)));
    return login;
  }

  async get(choice: ServerChoice, identity: Identity): Promise<McpConnection<Tool>> {
    const key = JSON.stringify([choice.name, identity.actorId, identity.tenantId]);
    const held = this.#open.get(key);
    if (held) {
      this.#open.delete(key);
      const c = await held.catch(() => undefined);
      if (c?.isConnected()) {
        this.#open.set(key, held);
        return c;
      }
      await c?.close().catch(() => {});
    }
    const auth = await this.#login(choice);
    const opening = connectMcp(actionConfig(choice, auth ? { auth } : {}), { identity, authorize: allowAll }, { transportFactory: workerTransports(choice, this.logger), ...(this.logger ? { logger: this.logger } : {}) }).catch(
      (e: unknown) => {
        throw withLoginAdvice(e, choice, auth);
      },
    );
    this.#open.set(key, opening);
    opening.catch(() => this.#open.get(key) === opening && this.#open.delete(key));
    while (this.#open.size > MAX_CLI_WORKER_CONNECTIONS) {
      const [oldest, conn] = this.#open.entries().next().value as [string, Promise<McpConnection<Tool>>];
      this.#open.delete(oldest);
      void conn.then((c) => c.close()).catch(() => {});
    }
    return opening;
  }

  async closeAll(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(all.map((p) => p.then((c) => c.close()).catch(() => {})));
  }
}

/**
 * `store` whose claims find nothing once `stop` is aborted or the pass has claimed
 * for `CLI_WORKER_PASS_CLAIM_MS`: the worker then finishes what it holds and the pass ends.
 */
function stopClaiming(store: ActionStore, stop: AbortSignal): { store: ActionStore; cutShort: () => boolean } {
  const until = Date.now() + CLI_WORKER_PASS_CLAIM_MS;
  let cut = false;
  const closed = (): boolean => {
    if (stop.aborted) return true;
    if (Date.now() > until) cut = true;
    return cut;
  };
  const gated: ActionStore = {
    create: (r) => store.create(r),
    get: (id) => store.get(id),
    list: (q) => store.list(q),
    transition: (id, expected, patch, now) => store.transition(id, expected, patch, now),
    claim: (o) => (closed() ? Promise.resolve(undefined) : store.claim(o)),
  };
  const many = store.claimMany?.bind(store);
  if (many) gated.claimMany = (o) => (closed() ? Promise.resolve([]) : many(o));
  const batch = store.transitionMany?.bind(store);
  if (batch) gated.transitionMany = (items, now) => batch(items, now);
  return { store: gated, cutShort: () => cut };
}

/** One line per move: the action, its tool and its new state, with what the server said. */
function moveLine(a: ActionRecord): string {
  const part = a.outcome?.result?.content[0];
  const said = part?.type === "text" ? part.text : a.outcome?.reason;
  return `${a.id}  ${oneLine(a.tool, 60)}  ${a.state}${said ? `: ${oneLine(said, 200)}` : ""}\n`;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** Opens the store for a pass; a store another process holds is waited for (said once), until `stop`. */
async function openForPass(io: Io, path: string, stop: AbortSignal, once: boolean, said: { locked: boolean }): Promise<FileActionStore | undefined> {
  for (;;) {
    try {
      const store = await openCliStore(io, path, { mustExist: true, signal: stop });
      if (said.locked) io.err(`yada: the action store is free again\n`);
      said.locked = false;
      return store;
    } catch (e) {
      // Another process (a `yada run`, `yada actions`) holds the store: wait for it, unless one pass was asked for.
      if (!(e instanceof StoreError) || once || stop.aborted || !/locked/.test(e.message)) throw e;
      if (!said.locked) io.err(`${errorLine(e)}; waiting\n`);
      said.locked = true;
      await sleep(DEFAULT_WORKER_POLL_MS, stop);
      if (stop.aborted) return undefined;
    }
  }
}

/**
 * Runs `worker`. Returns 0 once stopped by a signal or after `--once`; with
 * `--once`, a failure that left an action undone (a server that could not be
 * reached) exits with that failure's code.
 *
 * @throws UsageError (`usage`); ConfigError (`config`); StoreError (`store`: no
 * store at the path, a directory, another worker on it).
 */
export async function workerCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "worker --server name...");
  const io = ctx.io;
  const choices = chooseServers(ctx.args, io.env);
  if (choices.length === 0) throw new UsageError("yada worker needs the servers whose actions it executes: --server <name> (repeatable; from --config or YADA_MCP_SERVERS), or --stdio / --url with --name");
  const path = storePathOf(ctx.args.store);
  checkStorePath(path, true);
  // U6: a closed stdout does not stop the worker in the middle of its work.
  keepRunningWhenStdoutCloses();
  const logger = loggerOf(ctx);
  const pool = new ConnectionPool(io.env, logger);
  const release = announceWorker(path, choices.map((c) => c.name));
  const stop = ctx.signal;
  let firstError: unknown;
  const report = (e: unknown, what: string): void => {
    firstError ??= e;
    io.err(`${errorLine(e).replace(/^yada: ([a-z_]+): /, `yada: $1: ${what}: `)}\n`);
  };
  const names = choices.map((c) => c.name).join(", ");
  if (!ctx.args.json) io.err(`yada worker: ${path}, serving ${names}${ctx.args.once ? " (one pass)" : "; Ctrl-C or SIGTERM stops it once the actions in hand are done"}\n`);
  const said = { locked: false };
  try {
    while (!stop.aborted) {
      const store = await openForPass(io, path, stop, ctx.args.once, said);
      if (!store) break;
      let handled = 0;
      const gate = stopClaiming(store, stop);
      try {
        const worker = createWorker({
          store: gate.store,
          workerId: `yada-worker-${process.pid}`,
          concurrency: 1,
          // Only the actions of the servers served here: another's is never held under this worker's lease.
          toolPrefixes: choices.map((c) => `${c.name}__`),
          resolveTool: async (a, identity): Promise<WriteTool | ConfirmTool | undefined> => {
            // The longest served name the tool starts with: servers may share a prefix.
            const choice = choices.filter((c) => a.tool.startsWith(`${c.name}__`)).sort((x, y) => y.name.length - x.name.length)[0];
            // The claims ask for these servers' tools only; a store that handed out another's is not trusted with it.
            if (!choice) throw new StoreError(`the store handed this worker action ${a.id} (${oneLine(a.tool, 80)}) of a server it does not serve (${names}); nothing was sent`);
            const connection = await pool.get(choice, identity);
            return connection.tools.find((t): t is WriteTool | ConfirmTool => t.name === a.tool && t.effect !== "read");
          },
          onAction: (a) => io.out(ctx.args.json ? `${jsonText(a, true)}\n` : moveLine(a)),
          onError: (e) => report(e, "an action was left for a later pass"),
        });
        handled = await worker.runOnce();
      } catch (e) {
        // A store that failed in the pass: reported; a long-running worker tries again after its pause.
        if (ctx.args.once) throw e;
        report(e, "the pass stopped");
      } finally {
        await store.close();
      }
      // --once: every action due now, over as many passes as the claim budget cut it into.
      if (ctx.args.once && !gate.cutShort()) break;
      if (handled === 0) await sleep(DEFAULT_WORKER_POLL_MS, stop);
    }
  } finally {
    await pool.closeAll();
    release();
  }
  if (ctx.args.once && firstError !== undefined) return exitCodeOf(firstError);
  return EXIT.ok;
}
