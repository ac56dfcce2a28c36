// R5 (read part): the opt-in Node built-ins readFile, listFiles and searchFiles,
// confined to their roots (symlinks and ".." cannot escape), with bounded output.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeReadTools } from "../../src/node/builtins/index.js";
import { ConfigError } from "../../src/errors.js";
import type { ReadTool, ToolResult } from "../../src/tools/types.js";
import { alice } from "./support.js";

let base: string;
let root: string;
let tools: Map<string, ReadTool>;
const SECRET = "TOP-SECRET-VALUE";

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "yada-builtins-")));
  root = join(base, "root");
  await mkdir(join(root, "docs", "deep"), { recursive: true });
  await writeFile(join(base, "secret.txt"), `${SECRET}\n`);
  await mkdir(join(base, "root-evil"));
  await writeFile(join(base, "root-evil", "x.txt"), `${SECRET}\n`);
  await writeFile(join(root, "a.txt"), "alpha\nbeta\ngamma\n");
  await writeFile(join(root, "docs", "guide.md"), "# Guide\nShip on Mondays.\nRegex chars: a.*b\n");
  await writeFile(join(root, "docs", "deep", "notes.txt"), "ship early\n");
  await writeFile(join(root, "bin.dat"), Buffer.from([0x73, 0x68, 0x69, 0x70, 0x00, 0x01]));
  await writeFile(join(root, "big.txt"), Array.from({ length: 5_000 }, (_, i) => `line ${i + 1} ${"x".repeat(20)}`).join("\n"));
  await symlink(join(base, "secret.txt"), join(root, "leak.txt"));
  await symlink(base, join(root, "up"));
  await symlink(join(root, "a.txt"), join(root, "inside-link.txt"));
  await symlink(root, join(base, "root-link"));
  tools = new Map(nodeReadTools({ roots: [root] }).map((t) => [t.name, t]));
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

async function call(name: string, args: unknown): Promise<ToolResult> {
  const tool = tools.get(name);
  assert.ok(tool, name);
  return tool.execute(args, { identity: alice });
}
const textOf = (r: ToolResult): string => r.content.map((p) => (p.type === "text" ? p.text : "")).join("");

describe("R5: Node read-only built-ins", { timeout: 20_000 }, () => {
  test("R5: nodeReadTools is opt-in per root list and names three read tools", () => {
    assert.deepEqual([...tools.keys()], ["readFile", "listFiles", "searchFiles"]);
    assert.ok([...tools.values()].every((t) => t.effect === "read"));
    assert.throws(() => nodeReadTools({ roots: [] }), ConfigError);
    assert.deepEqual(nodeReadTools({ roots: [root], prefix: "fs_" }).map((t) => t.name), ["fs_readFile", "fs_listFiles", "fs_searchFiles"]);
  });

  test("R5: readFile reads inside the root, by relative or absolute path, with offset and limit", async () => {
    assert.deepEqual(await call("readFile", { path: "a.txt" }), { content: [{ type: "text", text: "alpha\nbeta\ngamma" }], isError: false });
    assert.equal(textOf(await call("readFile", { path: join(root, "docs", "guide.md") })), "# Guide\nShip on Mondays.\nRegex chars: a.*b");
    const page = textOf(await call("readFile", { path: "a.txt", offset: 2, limit: 1 }));
    assert.equal(page, "beta\n[lines 2-2 of 3 shown; continue with offset 3]");
    assert.equal(textOf(await call("readFile", { path: "inside-link.txt" })), "alpha\nbeta\ngamma", "a link that stays inside is followed");
  });

  test("R5: '..' cannot escape the root, nor can a sibling directory sharing its prefix", async () => {
    for (const path of ["../secret.txt", "docs/../../secret.txt", join(base, "secret.txt"), "../root-evil/x.txt", "/etc/passwd"]) {
      const r = await call("readFile", { path });
      assert.equal(r.isError, true, path);
      assert.match(textOf(r), /outside the allowed roots/, path);
      assert.ok(!textOf(r).includes(SECRET));
    }
    assert.equal((await call("listFiles", { path: ".." })).isError, true);
    assert.equal((await call("searchFiles", { query: SECRET, path: ".." })).isError, true);
  });

  test("R5: symbolic links cannot lead out of the root", async () => {
    for (const path of ["leak.txt", "up/secret.txt", "up/root-evil/x.txt"]) {
      const r = await call("readFile", { path });
      assert.equal(r.isError, true, path);
      assert.match(textOf(r), /symbolic link/, path);
      assert.ok(!textOf(r).includes(SECRET) && !textOf(r).includes(base + "/secret"), "neither the secret nor the link target is shown");
    }
    assert.equal((await call("listFiles", { path: "up" })).isError, true);
    const search = await call("searchFiles", { query: SECRET });
    assert.equal(textOf(search), `no line contains ${JSON.stringify(SECRET)}`, "the walk does not follow links");
  });

  test("R5: a root reached through a link works, and still confines", async () => {
    const viaLink = new Map(nodeReadTools({ roots: [join(base, "root-link")] }).map((t) => [t.name, t]));
    const ok = await viaLink.get("readFile")?.execute({ path: "a.txt" }, { identity: alice });
    assert.equal(ok?.isError, false);
    const escape = await viaLink.get("readFile")?.execute({ path: "../secret.txt" }, { identity: alice });
    assert.equal(escape?.isError, true);
  });

  test("R5: readFile output is bounded and says how to continue", async () => {
    const r = await call("readFile", { path: "big.txt" });
    const text = textOf(r);
    assert.equal(r.isError, false);
    assert.ok(Buffer.byteLength(text) <= 32_000, `${Buffer.byteLength(text)} bytes`);
    const m = /\[output truncated at 32000 bytes: lines 1-(\d+) of 5000 shown; continue with offset (\d+)\]$/.exec(text);
    assert.ok(m, text.slice(-200));
    const next = textOf(await call("readFile", { path: "big.txt", offset: Number(m[2]), limit: 1 }));
    assert.match(next, new RegExp(`^line ${m[2]} x+\\n`));
  });

  test("R5: readFile refuses directories, binary files, missing files and bad arguments as error results", async () => {
    assert.match(textOf(await call("readFile", { path: "docs" })), /directory/);
    assert.match(textOf(await call("readFile", { path: "bin.dat" })), /binary/);
    assert.match(textOf(await call("readFile", { path: "missing.txt" })), /does not exist/);
    assert.equal((await call("readFile", { path: 42 })).isError, true);
    assert.equal((await call("readFile", "a.txt")).isError, true);
    assert.equal((await call("readFile", { path: "a.txt", offset: 0 })).isError, true);
  });

  test("R5: listFiles lists one level or recursively; links are shown, not followed", async () => {
    const flat = textOf(await call("listFiles", {}));
    assert.equal(flat, `${root}:\na.txt\nbig.txt\nbin.dat\ndocs/\ninside-link.txt@\nleak.txt@\nup@`);
    const deep = textOf(await call("listFiles", { path: "docs", recursive: true }));
    assert.equal(deep, `${join(root, "docs")}:\ndeep/\ndeep/notes.txt\nguide.md`);
  });

  test("R5: listFiles stops at its entry bound", async () => {
    const many = join(root, "many");
    await mkdir(many);
    await Promise.all(Array.from({ length: 1_050 }, (_, i) => writeFile(join(many, `f${String(i).padStart(4, "0")}`), "")));
    const text = textOf(await call("listFiles", { path: "many" }));
    assert.equal(text.split("\n").length, 1 + 1_000 + 1);
    assert.match(text, /\[listing cut after 1000 entries; list a subdirectory for more\]$/);
    await rm(many, { recursive: true });
  });

  test("R5: searchFiles finds literal text (not a regex), case-insensitively on request, skipping binary files", async () => {
    assert.equal(textOf(await call("searchFiles", { query: "Ship" })), "docs/guide.md:2: Ship on Mondays.");
    assert.equal(textOf(await call("searchFiles", { query: "ship", ignoreCase: true })), "docs/deep/notes.txt:1: ship early\ndocs/guide.md:2: Ship on Mondays.");
    assert.equal(textOf(await call("searchFiles", { query: "a.*b" })), "docs/guide.md:3: Regex chars: a.*b");
    assert.equal(textOf(await call("searchFiles", { query: "sh", path: "bin.dat" })), 'no line contains "sh"');
    assert.equal((await call("searchFiles", { query: "" })).isError, true);
  });
});

test("R5: a roots list with a hole is refused, not read as the roots around the hole", () => {
  // eslint-disable-next-line no-sparse-arrays
  assert.throws(() => nodeReadTools({ roots: [, base] as unknown as string[] }), ConfigError);
  assert.throws(() => nodeReadTools({ roots: [base, , base] as unknown as string[] }), ConfigError);
  assert.throws(() => nodeReadTools({ roots: [base, 7] as unknown as string[] }), ConfigError);
});

test("R5: a cancelled searchFiles call stops before reading a file and reports the cancellation", async () => {
  const searchFiles = nodeReadTools({ roots: [base] }).find((t) => t.name === "searchFiles");
  assert.ok(searchFiles);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(searchFiles.execute({ query: "alpha", path: join("root", "a.txt") }, { identity: alice, signal: controller.signal }), (e: Error & { code?: string }) => e.code === "cancelled");
});

test("R5: a FIFO inside a root is refused without opening it", { timeout: 10_000 }, async () => {
  const { execFileSync } = await import("node:child_process");
  const dir = await mkdtemp(join(tmpdir(), "yada-fifo-"));
  try {
    execFileSync("mkfifo", [join(dir, "pipe")]);
    const readFile = nodeReadTools({ roots: [dir] }).find((t) => t.name === "readFile");
    assert.ok(readFile);
    const r = await readFile.execute({ path: "pipe" }, { identity: alice });
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.content), /neither a regular file nor a directory/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("R5: a file name with control characters is shown escaped, on its own line, by listFiles and searchFiles", async () => {
  const dir = join(root, "odd");
  await mkdir(dir);
  try {
    await writeFile(join(dir, "a\nguide.md:9: forged\u001b[2J.txt"), "needle here\n");
    const listed = textOf(await call("listFiles", { path: "odd" }));
    assert.equal(listed, `${dir}:\na\\x0aguide.md:9: forged\\x1b[2J.txt`);
    const found = textOf(await call("searchFiles", { query: "needle", path: "odd" }));
    assert.equal(found, "a\\x0aguide.md:9: forged\\x1b[2J.txt:1: needle here");
  } finally {
    await rm(dir, { recursive: true });
  }
});

test("R5: a walk reads at most MAX_BUILTIN_WALK_ENTRIES directory entries, and says the search was cut", { timeout: 120_000 }, async () => {
  const dir = join(root, "huge");
  await mkdir(dir);
  try {
    // More entries than the walk bound (50,000), most of them empty directories,
    // so the file bound (5,000) is not what stops the search.
    const names = Array.from({ length: 50_010 }, (_, i) => `d${String(i).padStart(5, "0")}`);
    for (let i = 0; i < names.length; i += 1_000) await Promise.all(names.slice(i, i + 1_000).map((n) => mkdir(join(dir, n))));
    const found = textOf(await call("searchFiles", { query: "needle", path: "huge" }));
    assert.equal(found, "[search covered the first 50000 directory entries; narrow the path]");
  } finally {
    await rm(dir, { recursive: true });
  }
});
