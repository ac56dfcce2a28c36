/**
 * `yada approvals --store PATH [--port N]` (U6): serves the approval inbox of a
 * file action store on 127.0.0.1, for the operator at the terminal (`--actor` /
 * `--tenant`, default `cli@local`), until SIGINT or SIGTERM.
 *
 * Access needs a random token (`CLI_INBOX_TOKEN_BYTES`), printed once in the URL.
 * Its first visit trades it for a cookie (HttpOnly, SameSite=Strict, named after
 * the port) and redirects to the same page without it, so the token leaves the
 * address bar and the history; a JSON client may send it as `Authorization:
 * Bearer <token>`. A request without it is answered 401 by the inbox itself. The
 * listener builds every URL on `http://127.0.0.1:PORT` and refuses another `Host`
 * (DNS rebinding), and decisions are posted only from that origin.
 *
 * The store is opened for each request and closed after it (requests are taken one
 * at a time), so a `yada worker` on the same store executes what is approved here.
 *
 * @module
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { createApprovalInbox } from "../inbox/inbox.js";
import { CLI_INBOX_TOKEN_BYTES, MAX_INBOX_IN_FLIGHT, MIN_INBOX_CSRF_SECRET_BYTES } from "../limits.js";
import { toNodeListener } from "../node/fetch-adapter.js";
import type { Identity } from "../tools/types.js";
import { positionals, type CommandContext } from "./command.js";
import { EXIT, UsageError, errorLine } from "./exit.js";
import { checkStorePath, openCliStore, runningWorker, shellWord, storePathOf } from "./store.js";
import { jsonText, keepRunningWhenStdoutCloses, oneLine } from "./terminal.js";

/** `a` and `b` equal, compared in time independent of where they differ. */
function sameSecret(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The value of cookie `name` in a `Cookie` header, if any. */
function cookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A short answer of the command itself (the token exchange), with the inbox's headers. */
function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer", "x-content-type-options": "nosniff", ...headers },
  });
}

/**
 * Runs `approvals`. Returns 0 once SIGINT or SIGTERM closed the listener.
 *
 * @throws UsageError (`usage`) for a port in use; StoreError (`store`) for a store
 * that does not exist or a directory.
 */
export async function approvalsCommand(ctx: CommandContext): Promise<number> {
  positionals(ctx, 0, 0, "approvals");
  const io = ctx.io;
  const path = storePathOf(ctx.args.store);
  checkStorePath(path, true);
  const operator: Identity = { actorId: ctx.args.actor ?? "cli", tenantId: ctx.args.tenant ?? "local" };
  if (operator.actorId === "" || operator.tenantId === "") throw new UsageError("--actor and --tenant must not be empty");
  const token = randomBytes(CLI_INBOX_TOKEN_BYTES).toString("base64url");
  const csrfSecret = randomBytes(MIN_INBOX_CSRF_SECRET_BYTES);

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => reject(e.code === "EADDRINUSE" ? new UsageError(`--port ${ctx.args.port}: the port is in use on 127.0.0.1`) : e));
    server.listen(ctx.args.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const origin = `http://127.0.0.1:${port}`;
  const cookieName = `yada_inbox_${port}`;
  const authenticate = (request: Request): Identity | undefined => {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    return sameSecret(cookie(request.headers.get("cookie"), cookieName), token) || sameSecret(bearer, token) ? operator : undefined;
  };

  // One request at a time holds the store (one process opens a file store at a time); a bounded queue.
  let tail: Promise<unknown> = Promise.resolve();
  let queued = 0;
  const serve = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const offered = url.searchParams.get("token");
    if (offered !== null) {
      if (!sameSecret(offered, token)) return plain(401, "This link's access token is not the one yada approvals printed.");
      url.searchParams.delete("token");
      const cookieLine = `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      // On the inbox's own origin: a path such as `//elsewhere.example` never sends the browser away.
      return plain(303, "", { location: `${origin}${url.pathname}${url.search}`, "set-cookie": cookieLine });
    }
    if (queued >= MAX_INBOX_IN_FLIGHT) return plain(503, "Too many requests at once; try again.");
    queued++;
    const turn = tail.then(async () => {
      const store = await openCliStore(io, path, { mustExist: true, signal: ctx.signal });
      try {
        const inbox = createApprovalInbox({
          store,
          authenticate,
          mayApprove: () => true,
          mayResolve: () => true,
          csrfSecret,
          origins: [origin],
          onError: (e) => io.err(`${errorLine(e)}\n`),
        });
        return await inbox(request);
      } finally {
        await store.close();
      }
    });
    tail = turn.catch(() => {});
    try {
      return await turn;
    } finally {
      queued--;
    }
  };
  server.on("request", toNodeListener(serve, { origin, onError: (e) => io.err(`${errorLine(e)}\n`) }));

  const worker = runningWorker(path);
  io.err(
    worker
      ? `yada approvals: the yada worker running on this store (process ${worker.pid}, serving ${worker.servers.join(", ") || "no server"}) executes what you approve. Ctrl-C stops the inbox.\n`
      : `yada approvals: nothing executes what you approve until a worker runs: yada worker --store ${shellWord(path)} --server NAME [--config FILE]. Ctrl-C stops the inbox.\n`,
  );
  // The URL, with its token, is printed once; the inbox keeps serving if stdout closes.
  keepRunningWhenStdoutCloses();
  const url = `${origin}/?token=${token}`;
  if (ctx.args.json) io.out(`${jsonText({ url, store: path, operator }, true)}\n`);
  else io.out(`Approval inbox of ${oneLine(path, 200)} for ${operator.actorId}@${operator.tenantId} (open it in your browser; the link works once per browser):\n\n  ${url}\n\n`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await tail;
  return EXIT.ok;
}
