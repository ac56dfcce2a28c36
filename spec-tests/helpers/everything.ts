// server-everything in streamableHttp mode, held on 127.0.0.1 by the
// fixtures/http/loopback-only.mjs preload (it binds every interface by default).
import { spawn, type ChildProcess } from "node:child_process";
import { pathToFileURL } from "node:url";
import { repoPath } from "./paths.js";

export interface Everything {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `mode`: "streamableHttp" (at /mcp) or the 2024-11-05 "sse" mode (stream at /sse, POSTs to /message). */
export async function startEverything(mode: "streamableHttp" | "sse" = "streamableHttp"): Promise<Everything> {
  const preload = pathToFileURL(repoPath("fixtures", "http", "loopback-only.mjs")).href;
  const entry = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  const child = spawn(process.execPath, ["--import", preload, entry, mode], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { PATH: process.env.PATH ?? "", PORT: "0" },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${text.slice(-500)}`)), 30_000);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      text += chunk;
      const m = /loopback-only: listening 127\.0\.0\.1:(\d+)/.exec(text);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${text.slice(-500)}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
