// Shared pieces of the CLI tests: running the built `yada` (dist/cli.js) and
// demo (build/demo.js) as real processes with a clean environment and a time
// bound, and the fixture servers they talk to. `npm test` builds dist/ first.
import { spawn } from "node:child_process";
import { fixtureServer, repoPath, repoRoot } from "../helpers/paths.js";

/** The built CLI. */
export const CLI = repoPath("dist", "cli.js");
/** The built demo. */
export const DEMO = repoPath("build", "demo.js");

/** What a finished process left. */
export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Variables a test never inherits: provider keys and CLI configuration of the machine running the tests. */
const SCRUBBED = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "YADA_MODEL", "YADA_MCP_SERVERS", "NO_COLOR", "FORCE_COLOR"];

/** Options of {@link runNode}. */
export interface RunOptions {
  /** Added to the scrubbed environment; `undefined` values are removed. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (default: closed at once). */
  input?: string;
  /** Killed (SIGKILL) after this many ms; default 20 000. */
  timeoutMs?: number;
}

/** Runs `node <script> ...args` from the repository root and collects its output. */
export function runNode(script: string, args: readonly string[], options: RunOptions = {}): Promise<Ran> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.includes(k)) env[k] = v;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: repoRoot, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Runs `yada ...args`. */
export const yada = (args: readonly string[], options?: RunOptions): Promise<Ran> => runNode(CLI, args, options);

/** Quotes a word for `--stdio` (single quotes, as a shell would). */
export const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** A `--stdio` value launching a fixture server with this Node. */
export const stdioOf = (server: string, ...args: string[]): string => [process.execPath, fixtureServer(server), ...args].map(quote).join(" ");

/** The `--stdio` value of the catalog server. */
export const CATALOG = stdioOf("catalog/stdio.mjs");

/** The lines of stderr that are error lines (`yada: <code>: ...`), with their codes. */
export function errorCodes(stderr: string): string[] {
  return stderr
    .split("\n")
    .map((l) => /^yada: ([a-z_]+): /.exec(l)?.[1])
    .filter((c): c is string => c !== undefined && c !== "progress");
}

/** A `yada` process on a real pseudo-terminal (util-linux `script`): stdin, stdout and stderr are the terminal. */
export interface OnTerminal {
  /** Everything the terminal showed so far (stdout and stderr together, CR LF as LF). */
  readonly screen: () => string;
  /** Resolves once the screen matches `pattern` (rejects after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Types `text` (e.g. "y\r", "\u0003" for Ctrl-C, "\u0004" for Ctrl-D). */
  type(text: string): void;
  /** How the process ended, with the whole screen. */
  readonly done: Promise<{ code: number | null; screen: string }>;
}

/**
 * Runs `yada ...args` on a pseudo-terminal made by `script -qfec` (util-linux),
 * which exits with yada's exit code (the shell it starts execs yada, whatever
 * `$SHELL` is). Colours are off (NO_COLOR) so the screen
 * reads as text. Killed after `timeoutMs` (default 30 000).
 */
export function yadaOnTerminal(args: readonly string[], options: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {}): OnTerminal {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.includes(k)) env[k] = v;
  env.NO_COLOR = "1";
  env.TERM = "xterm";
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  // exec: the shell script starts (`$SHELL -c`, often dash) must not stay as
  // yada's parent, or a Ctrl-C kills it and script reports 130 for yada.
  const command = `exec ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], { cwd: options.cwd ?? repoRoot, env, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  const waiters = new Set<() => void>();
  const onData = (d: string): void => {
    screen += d.replace(/\r\n/g, "\n");
    for (const w of [...waiters]) w();
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  const killer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  let exited = false;
  const done = new Promise<{ code: number | null; screen: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      exited = true;
      for (const w of [...waiters]) w();
      resolve({ code, screen });
    });
  });
  return {
    screen: () => screen,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the terminal never showed ${pattern}:\n${screen}`));
        }, timeoutMs);
        function check(): void {
          if (pattern.test(screen)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (exited) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`yada exited before the terminal showed ${pattern}:\n${screen}`));
          }
        }
        waiters.add(check);
        check();
      });
    },
    type(text) {
      child.stdin.write(text);
    },
    done,
  };
}
