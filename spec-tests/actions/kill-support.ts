// The kill -9 worker process of the action tests (./kill-worker.ts), run from a test:
// it resolves with the first line the process prints, SIGKILLing it right then when
// `kill` is set (bounded: 20 s).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { repoPath } from "../helpers/paths.js";

const workerScript = repoPath("build", "spec-tests", "actions", "kill-worker.js");

/** Runs the worker process; resolves with the first line it prints (and kills it when `kill` is set). */
export function runWorker(args: string[], env: Record<string, string>, kill: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [workerScript, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill("SIGKILL"), 20_000);
    let first: string | undefined;
    createInterface({ input: p.stdout }).on("line", (line: string) => {
      if (first !== undefined) return;
      first = line;
      if (kill) p.kill("SIGKILL");
    });
    p.on("exit", () => {
      clearTimeout(timer);
      if (first === undefined) reject(new Error(`the worker printed nothing: ${stderr}`));
      else resolve(first);
    });
  });
}
