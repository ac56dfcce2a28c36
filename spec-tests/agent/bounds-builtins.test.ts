// R5: every bound of the Node read built-ins, crossed on real files in a temporary
// directory: at the bound the tool answers in full, one past it the answer is cut
// (with the note the model reads) or the argument is refused.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeReadTools } from "../../src/node/builtins/index.js";
import {
  MAX_BUILTIN_ARGUMENT_CHARS,
  MAX_BUILTIN_DEPTH,
  MAX_BUILTIN_FILE_BYTES,
  MAX_BUILTIN_LINE_CHARS,
  MAX_BUILTIN_LIST_ENTRIES,
  MAX_BUILTIN_OUTPUT_BYTES,
  MAX_BUILTIN_SEARCH_FILE_BYTES,
  MAX_BUILTIN_SEARCH_FILES,
  MAX_BUILTIN_SEARCH_MATCHES,
} from "../../src/limits.js";
import type { ReadTool, ToolResult } from "../../src/tools/types.js";
import { alice } from "./support.js";

let base: string;
let tools: Map<string, ReadTool>;

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "yada-builtin-bounds-")));
  tools = new Map(nodeReadTools({ roots: [base] }).map((t) => [t.name, t]));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

async function call(name: string, args: unknown): Promise<{ text: string; isError: boolean }> {
  const tool = tools.get(name);
  assert.ok(tool, name);
  const r: ToolResult = await tool.execute(args, { identity: alice });
  return { text: r.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""), isError: r.isError };
}

/** A directory `name` under the temporary root with `count` files made by `content(i)`. */
async function dirWith(name: string, count: number, content: (i: number) => string = () => "x\n"): Promise<string> {
  const dir = join(base, name);
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < count; i += 256) {
    await Promise.all(Array.from({ length: Math.min(256, count - i) }, (_, j) => writeFile(join(dir, `f${String(i + j).padStart(5, "0")}`), content(i + j))));
  }
  return dir;
}

describe("R5: the read built-ins' bounds", { concurrency: false, timeout: 60_000 }, () => {
  test("R5: readFile reads MAX_BUILTIN_FILE_BYTES of a file; of a larger one it says only that much was read", async () => {
    const line = "a".repeat(1023) + "\n";
    await writeFile(join(base, "exact.txt"), line.repeat(MAX_BUILTIN_FILE_BYTES / 1024));
    await writeFile(join(base, "over.txt"), line.repeat(MAX_BUILTIN_FILE_BYTES / 1024) + "tail\n");
    const exact = await call("readFile", { path: "exact.txt", limit: 1 });
    assert.ok(!exact.text.includes("only the first"), exact.text.slice(-200));
    assert.match(exact.text, new RegExp(`of ${MAX_BUILTIN_FILE_BYTES / 1024} shown`));
    const over = await call("readFile", { path: "over.txt", limit: 1 });
    assert.ok(over.text.includes(`[the file is ${MAX_BUILTIN_FILE_BYTES + 5} bytes; only the first ${MAX_BUILTIN_FILE_BYTES} were read]`), over.text.slice(-200));
    assert.match(over.text, new RegExp(`of ${MAX_BUILTIN_FILE_BYTES / 1024} shown`), "the tail past the bound was never read");
  });

  test("R5: readFile output stays within MAX_BUILTIN_OUTPUT_BYTES and says where to continue", async () => {
    await writeFile(join(base, "many.txt"), Array.from({ length: 4_000 }, (_, i) => `line ${i} ${"é".repeat(10)}`).join("\n"));
    const r = await call("readFile", { path: "many.txt" });
    assert.ok(Buffer.byteLength(r.text) <= MAX_BUILTIN_OUTPUT_BYTES, `${Buffer.byteLength(r.text)} bytes`);
    assert.match(r.text, new RegExp(`\\[output truncated at ${MAX_BUILTIN_OUTPUT_BYTES} bytes: lines 1-\\d+ of 4000 shown; continue with offset \\d+\\]`));
  });

  test("R5: a line of MAX_BUILTIN_LINE_CHARS is shown whole; a longer one is cut to it", async () => {
    await writeFile(join(base, "lines.txt"), `${"a".repeat(MAX_BUILTIN_LINE_CHARS)}\n${"b".repeat(MAX_BUILTIN_LINE_CHARS + 1)}\n`);
    const [first, second] = (await call("readFile", { path: "lines.txt" })).text.split("\n");
    assert.equal(first, "a".repeat(MAX_BUILTIN_LINE_CHARS));
    assert.equal(second, `${"b".repeat(MAX_BUILTIN_LINE_CHARS)}… [line cut]`);
  });

  test("R5: listFiles lists MAX_BUILTIN_LIST_ENTRIES entries whole; one more is cut with a note", async () => {
    await dirWith("list", MAX_BUILTIN_LIST_ENTRIES);
    const whole = await call("listFiles", { path: "list" });
    assert.equal(whole.text.split("\n").length, 1 + MAX_BUILTIN_LIST_ENTRIES, "a header and every entry");
    assert.ok(!whole.text.includes("listing cut"));
    await writeFile(join(base, "list", "one-more"), "x");
    const cut = await call("listFiles", { path: "list" });
    assert.ok(cut.text.endsWith(`[listing cut after ${MAX_BUILTIN_LIST_ENTRIES} entries; list a subdirectory for more]`), cut.text.slice(-120));
  });

  test("R5: listFiles and searchFiles descend MAX_BUILTIN_DEPTH levels, no deeper", async () => {
    // d/d/.../d with a file "found.txt" at every level (level 1 is the first d).
    const levels = MAX_BUILTIN_DEPTH + 3;
    let dir = join(base, "deep");
    await mkdir(dir);
    for (let level = 1; level <= levels; level++) {
      dir = join(dir, "d");
      await mkdir(dir);
      await writeFile(join(dir, "found.txt"), `needle at ${level}\n`);
    }
    const listed = (await call("listFiles", { path: "deep", recursive: true })).text.split("\n").filter((l) => l.endsWith("found.txt"));
    const found = (await call("searchFiles", { path: "deep", query: "needle at" })).text.split("\n").filter((l) => l.includes("needle at"));
    // The file at level L is L directories down from the listed one, so it sits at depth L.
    assert.equal(listed.length, MAX_BUILTIN_DEPTH);
    assert.equal(found.length, MAX_BUILTIN_DEPTH);
    assert.ok(found.some((l) => l.endsWith(`needle at ${MAX_BUILTIN_DEPTH}`)));
    assert.ok(!found.some((l) => l.endsWith(`needle at ${MAX_BUILTIN_DEPTH + 1}`)));
  });

  test("R5: searchFiles reads MAX_BUILTIN_SEARCH_FILES files; with one more it says it stopped", async () => {
    await dirWith("search", MAX_BUILTIN_SEARCH_FILES);
    assert.equal((await call("searchFiles", { path: "search", query: "absent" })).text, 'no line contains "absent"');
    await writeFile(join(base, "search", "one-more"), "x\n");
    const cut = await call("searchFiles", { path: "search", query: "absent" });
    assert.equal(cut.text, `[search stopped after reading ${MAX_BUILTIN_SEARCH_FILES} files; narrow the path]`);
  });

  test("R5: searchFiles reads a file of MAX_BUILTIN_SEARCH_FILE_BYTES; a larger one is skipped", async () => {
    const dir = join(base, "sizes");
    await mkdir(dir);
    const file = (bytes: number): string => "needle\n" + "x".repeat(bytes - 8) + "\n";
    await writeFile(join(dir, "at.txt"), file(MAX_BUILTIN_SEARCH_FILE_BYTES));
    await writeFile(join(dir, "over.txt"), file(MAX_BUILTIN_SEARCH_FILE_BYTES + 1));
    const r = await call("searchFiles", { path: "sizes", query: "needle" });
    assert.equal(r.text, "at.txt:1: needle");
  });

  test("R5: searchFiles returns MAX_BUILTIN_SEARCH_MATCHES matches whole; one more is cut with a note", async () => {
    const dir = join(base, "matches");
    await mkdir(dir);
    await writeFile(join(dir, "at.txt"), "hit\n".repeat(MAX_BUILTIN_SEARCH_MATCHES));
    const whole = await call("searchFiles", { path: "matches", query: "hit" });
    assert.equal(whole.text.split("\n").length, MAX_BUILTIN_SEARCH_MATCHES);
    await writeFile(join(dir, "at.txt"), "hit\n".repeat(MAX_BUILTIN_SEARCH_MATCHES + 1));
    const cut = await call("searchFiles", { path: "matches", query: "hit" });
    assert.equal(cut.text.split("\n").length, MAX_BUILTIN_SEARCH_MATCHES + 1);
    assert.ok(cut.text.endsWith(`[search stopped after ${MAX_BUILTIN_SEARCH_MATCHES} matches; narrow the path or the query]`));
  });

  test("R5: a query or path of MAX_BUILTIN_ARGUMENT_CHARS is taken; one character more is refused", async () => {
    const at = await call("searchFiles", { path: "lines.txt", query: "q".repeat(MAX_BUILTIN_ARGUMENT_CHARS) });
    assert.equal(at.isError, false, at.text);
    const over = await call("searchFiles", { path: "lines.txt", query: "q".repeat(MAX_BUILTIN_ARGUMENT_CHARS + 1) });
    assert.ok(over.isError && over.text.includes(`at most ${MAX_BUILTIN_ARGUMENT_CHARS} characters`), over.text);
    // A path at the bound is looked up (and not found); one past it is refused unread.
    const pathAt = await call("readFile", { path: "p".repeat(MAX_BUILTIN_ARGUMENT_CHARS) });
    assert.ok(pathAt.isError && !pathAt.text.includes(`at most ${MAX_BUILTIN_ARGUMENT_CHARS} characters`), pathAt.text);
    const pathOver = await call("readFile", { path: "p".repeat(MAX_BUILTIN_ARGUMENT_CHARS + 1) });
    assert.ok(pathOver.isError && pathOver.text.includes(`at most ${MAX_BUILTIN_ARGUMENT_CHARS} characters`), pathOver.text);
  });
});
