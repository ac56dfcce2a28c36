// Y4: the Node built-ins confine to their roots without a check-then-use race. A
// real swapper process replaces a directory inside the root by a symbolic link
// to a directory outside it, and back, as fast as it can, while readFile,
// listFiles and searchFiles read through that directory. No call may ever return
// anything from outside.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeReadTools } from "../../src/node/builtins/index.js";
import type { ReadTool, ToolResult } from "../../src/tools/types.js";
import { alice } from "./support.js";

const OUTSIDE = "OUTSIDE-SECRET";
let base: string;
let root: string;
let swapper: ChildProcess | undefined;

// Swaps root/d between the real directory and a link to ../outside until killed.
const SWAPPER = `
const fs = require("node:fs");
const [d, real, outside] = process.argv.slice(1);
for (;;) {
  try { fs.renameSync(d, real); fs.symlinkSync(outside, d); } catch {}
  try { fs.unlinkSync(d); fs.renameSync(real, d); } catch {}
}`;

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "yada-confine-")));
  root = join(base, "root");
  await mkdir(join(root, "d"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(root, "d", "f.txt"), "inside text\n");
  await writeFile(join(base, "outside", "f.txt"), `${OUTSIDE}\n`);
  await writeFile(join(base, "outside", "only-outside.txt"), `${OUTSIDE}\n`);
});
after(async () => {
  swapper?.kill("SIGKILL");
  await rm(base, { recursive: true, force: true });
});

function text(r: ToolResult): string {
  return r.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

test("Y4: a directory swapped for a link to outside, concurrently, never lets a read escape the root", { timeout: 30_000 }, async () => {
  const tools = new Map<string, ReadTool>(nodeReadTools({ roots: [root] }).map((t) => [t.name, t]));
  const call = (name: string, args: unknown): Promise<ToolResult> => (tools.get(name) as ReadTool).execute(args, { identity: alice });
  swapper = spawn(process.execPath, ["-e", SWAPPER, join(root, "d"), join(root, "d-real"), join(base, "outside")], { stdio: "ignore" });
  let escapes = 0;
  let served = 0;
  let calls = 0;
  const until = Date.now() + 2_500;
  while (Date.now() < until) {
    const results = await Promise.all([
      call("readFile", { path: "d/f.txt" }),
      call("listFiles", { path: "d" }),
      call("searchFiles", { query: "SECRET", path: "d" }),
      call("readFile", { path: join(root, "d", "f.txt") }),
    ]);
    for (const r of results) {
      calls++;
      const t = text(r);
      if (t.includes(OUTSIDE) || t.includes("only-outside")) escapes++;
      if (!r.isError && (t.includes("inside text") || t.includes("f.txt"))) served++;
    }
  }
  swapper.kill("SIGKILL");
  swapper = undefined;
  assert.equal(escapes, 0, `${escapes} of ${calls} calls returned data from outside the root`);
  // The tools kept working between swaps (the race was really run through them).
  assert.ok(served > 0, `none of ${calls} calls was served`);
});
