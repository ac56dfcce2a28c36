// Runs the code blocks of a guide in docs/ from the examples/ project of the
// repository: imports of "yada-mcp" / "yada-mcp/node" resolve through the package's own
// exports and servers/ holds the example servers, so each block's output can be
// checked against what the guide says it prints. (docs/docs.test.ts runs the same
// blocks from a consumer project of the packed package.)
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoPath } from "./paths.js";

/** What one block printed (stdout and stderr, interleaved) and how it exited. */
export interface BlockRun {
  code: string;
  status: number | null;
  out: string;
}

/** The ```lang blocks of docs/<guide>.md. */
export function guideBlocks(guide: string, lang = "js"): string[] {
  const text = readFileSync(repoPath("docs", `${guide}.md`), "utf8");
  return [...text.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1] ?? "");
}

function runFile(file: string, timeoutMs: number): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: repoPath("examples"), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

/** Runs `blocks` as modules of the examples/ project, all at once, each bounded by `timeoutMs`. */
export async function runBlocks(label: string, blocks: readonly string[], timeoutMs = 45_000): Promise<BlockRun[]> {
  const dir = repoPath("build", "docs-examples");
  mkdirSync(dir, { recursive: true });
  return Promise.all(
    blocks.map(async (code, i) => {
      const file = join(dir, `${label}-${i + 1}.mjs`);
      writeFileSync(file, code);
      return { code, ...(await runFile(file, timeoutMs)) };
    }),
  );
}
