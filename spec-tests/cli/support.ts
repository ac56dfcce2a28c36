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
