// R5 / W7 bounds of the Node writing built-ins, crossed with real files and a real
// process: at each bound the call is prepared (and runs), one past it is refused
// before anything is written or run.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeWriteTools } from "../../src/node/builtins/index.js";
import { DEFAULT_BUILTIN_COMMAND_TIMEOUT_MS, MAX_BUILTIN_COMMAND_ARGS, MAX_BUILTIN_EDITS, MAX_BUILTIN_OUTCOMES_KEPT, MAX_BUILTIN_WRITE_BYTES } from "../../src/limits.js";
import type { ActionOutcome, ConfirmTool, Identity, PreparedAction } from "../../src/tools/types.js";

const me: Identity = { actorId: "alice", tenantId: "acme" };
let root: string;
let op = 0;
before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "yada-bounds-")));
});
after(() => rm(root, { recursive: true, force: true }));

const tool = (name: string, extra: object = {}): ConfirmTool =>
  nodeWriteTools({ roots: [root], commands: [process.execPath], commandTimeoutMs: 10_000, ...extra }).find((t) => t.name === name) as ConfirmTool;
const run = async (t: ConfirmTool, p: PreparedAction, operationId = `op-${++op}`): Promise<ActionOutcome> => t.execute({ ...p, operationId }, { identity: me });
const refused = (pattern: RegExp) => (e: Error & { code?: string }) => e.code === "validation" && pattern.test(e.message);
const textOf = (o: ActionOutcome): string => (o.status === "unknown" ? "" : o.result.content.map((p) => (p.type === "text" ? p.text : "")).join(""));

test("R5: writeFile writes content of MAX_BUILTIN_WRITE_BYTES UTF-8 bytes; one byte more is refused at prepare", async () => {
  const w = tool("writeFile");
  // Two-byte characters: the bound is in bytes, not characters.
  const exact = "\u00e9".repeat(MAX_BUILTIN_WRITE_BYTES / 2);
  const done = await run(w, await w.prepare({ path: "big.txt", content: exact }, { identity: me }));
  assert.equal(done.status, "succeeded", textOf(done));
  assert.equal(Buffer.byteLength(await readFile(join(root, "big.txt"), "utf8")), MAX_BUILTIN_WRITE_BYTES);
  await assert.rejects(w.prepare({ path: "bigger.txt", content: `${exact}a` }, { identity: me }), refused(new RegExp(`larger than ${MAX_BUILTIN_WRITE_BYTES} bytes`)));
});

test("R5: editFile edits a file of MAX_BUILTIN_WRITE_BYTES bytes; a larger file, or an edit growing it past the bound, is refused", async () => {
  const e = tool("editFile");
  await writeFile(join(root, "edit.txt"), `HEAD${"x".repeat(MAX_BUILTIN_WRITE_BYTES - 4)}`);
  const p = await e.prepare({ path: "edit.txt", edits: [{ oldText: "HEAD", newText: "head" }] }, { identity: me });
  assert.equal((await run(e, p)).status, "succeeded");
  await assert.rejects(e.prepare({ path: "edit.txt", edits: [{ oldText: "head", newText: "heads" }] }, { identity: me }), refused(/edited file would be larger/));
  await writeFile(join(root, "edit2.txt"), `HEAD${"x".repeat(MAX_BUILTIN_WRITE_BYTES - 3)}`);
  await assert.rejects(e.prepare({ path: "edit2.txt", edits: [{ oldText: "HEAD", newText: "head" }] }, { identity: me }), refused(new RegExp(`larger than ${MAX_BUILTIN_WRITE_BYTES} bytes`)));
});

test("R5: editFile applies MAX_BUILTIN_EDITS replacements in one call; one more is refused", async () => {
  const e = tool("editFile");
  const words = Array.from({ length: MAX_BUILTIN_EDITS + 1 }, (_, i) => `w${i};`);
  await writeFile(join(root, "many.txt"), words.join("\n"));
  const edits = words.map((w) => ({ oldText: w, newText: w.toUpperCase() }));
  await assert.rejects(e.prepare({ path: "many.txt", edits }, { identity: me }), refused(new RegExp(`1 to ${MAX_BUILTIN_EDITS} replacements`)));
  const p = await e.prepare({ path: "many.txt", edits: edits.slice(0, MAX_BUILTIN_EDITS) }, { identity: me });
  assert.equal((await run(e, p)).status, "succeeded");
  const after = (await readFile(join(root, "many.txt"), "utf8")).split("\n");
  assert.equal(after.filter((w) => w.startsWith("W")).length, MAX_BUILTIN_EDITS);
});

test("R5: runCommand runs an argument vector of MAX_BUILTIN_COMMAND_ARGS strings; one more is refused", { timeout: 30_000 }, async () => {
  const r = tool("runCommand");
  const argv = [process.execPath, "-e", "process.stdout.write('argc ' + process.argv.length)"];
  while (argv.length < MAX_BUILTIN_COMMAND_ARGS) argv.push(`a${argv.length}`);
  const done = await run(r, await r.prepare({ argv }, { identity: me }));
  assert.equal(done.status, "succeeded");
  // node's own argv: the program, then the 253 arguments after the -e script.
  assert.match(textOf(done), new RegExp(`argc ${MAX_BUILTIN_COMMAND_ARGS - 2}`));
  await assert.rejects(r.prepare({ argv: [...argv, "one-more"] }, { identity: me }), refused(new RegExp(`1 to ${MAX_BUILTIN_COMMAND_ARGS} strings`)));
});

test("R5: runCommand's time bound defaults to DEFAULT_BUILTIN_COMMAND_TIMEOUT_MS and is shown to the model", () => {
  const r = nodeWriteTools({ roots: [root], commands: [process.execPath] }).find((t) => t.name === "runCommand") as ConfirmTool;
  assert.match(r.description, new RegExp(`time at ${DEFAULT_BUILTIN_COMMAND_TIMEOUT_MS} ms`));
  assert.match(tool("runCommand", { commandTimeoutMs: 1234 }).description, /time at 1234 ms/);
});

test("W7: a writing built-in remembers the last MAX_BUILTIN_OUTCOMES_KEPT executed actions: a repeat of any of them never runs twice", async () => {
  const w = tool("writeFile");
  const first = await w.prepare({ path: "once.txt", content: "once\n" }, { identity: me });
  const done = await run(w, first, "first");
  assert.equal(done.status, "succeeded");
  // Other executions (refused ones are remembered too) until the first is the oldest of the bound.
  const bogus = { ...first, arguments: { path: 1 } } as PreparedAction;
  for (let i = 1; i < MAX_BUILTIN_OUTCOMES_KEPT; i++) await run(w, bogus, `filler-${i}`);
  await writeFile(join(root, "once.txt"), "changed\n");
  assert.deepEqual(await run(w, first, "first"), done, "still remembered: not run again");
  assert.equal(await readFile(join(root, "once.txt"), "utf8"), "changed\n");
  // One more: the first is forgotten, so its repeat runs again and meets the changed file.
  await run(w, bogus, "filler-last");
  const again = await run(w, first, "first");
  assert.equal(again.status, "failed");
  assert.equal(await readFile(join(root, "once.txt"), "utf8"), "changed\n", "never overwrites a file changed since review");
});
