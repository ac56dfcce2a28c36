// P1: the packed package installs into a fresh consumer project with no install
// script of ours, its three entries import, its CLI runs, the committed examples/
// project runs from it, and a strict TypeScript consumer type-checks against its
// .d.ts. P3: that type check fails when a public type stops narrowing.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { consumerProject, tscBin, type Consumer } from "../helpers/consumer.js";

const T = { timeout: 180_000 };
let consumer: Consumer;
before(async () => {
  consumer = await consumerProject();
}, T);
after(() => consumer?.remove());

test("P1: the tarball holds only dist/, README, LICENSE and package.json, and no install script", () => {
  const outside = consumer.files.filter((f) => !f.startsWith("dist/") && !["README.md", "LICENSE", "package.json"].includes(f));
  assert.deepEqual(outside, []);
  for (const f of ["LICENSE", "README.md", "dist/yada.js", "dist/yada-node.js", "dist/limits.js", "dist/cli.js", "dist/types/index.d.ts"]) {
    assert.ok(consumer.files.includes(f), `${f} is not in the tarball`);
  }
  // A demo that needs the repository's fixtures cannot run from the package: none ships.
  assert.ok(!consumer.files.some((f) => /demo/.test(f)), "a demo is in the tarball");
  const lifecycle = ["preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare"];
  assert.deepEqual(Object.keys(consumer.manifest.scripts ?? {}).filter((s) => lifecycle.includes(s)), []);
  assert.deepEqual(consumer.manifest.dependencies ?? {}, {});
});

test("P1: the consumer imports yada-mcp, yada-mcp/node and yada-mcp/limits", () => {
  const code = [
    'import * as web from "yada-mcp"; import * as node from "yada-mcp/node"; import * as limits from "yada-mcp/limits";',
    'console.log(JSON.stringify([typeof web.McpClient, typeof node.StdioTransport, typeof limits.MAX_LINE_BYTES, import.meta.resolve("yada-mcp")]));',
  ].join("\n");
  const r = consumer.exec(process.execPath, ["--input-type=module", "-e", code]);
  assert.equal(r.status, 0, r.stderr);
  const [client, stdio, bound, resolved] = JSON.parse(r.stdout) as string[];
  assert.deepEqual([client, stdio, bound], ["function", "function", "number"]);
  assert.match(resolved ?? "", /\/node_modules\/yada-mcp\/dist\/yada\.js$/);
});

test("P1: the installed CLI runs: yada --help", () => {
  const r = consumer.exec(join(consumer.dir, "node_modules", ".bin", "yada"), ["--help"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: yada /m);
});

test("P1: the examples project runs from the installed package", () => {
  const r = consumer.exec(process.execPath, ["quickstart.mjs"], 60_000);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /^stdio: Product ABC-123: Widget/m);
  assert.match(r.stdout, /^http: .*lookup/m);
  assert.match(r.stdout, /^agent: end ABC-123 is a Widget\./m);
});

test("P1, P3: a strict TypeScript consumer type-checks the typed examples against the package's .d.ts", () => {
  const r = consumer.exec(tscBin, ["-p", "."]);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});

test("P3: the type test fails when content blocks stop narrowing (an open `type: string` member)", () => {
  const types = join(consumer.dir, "node_modules", "yada-mcp", "dist", "types", "mcp", "types.d.ts");
  const original = readFileSync(types, "utf8");
  assert.match(original, /type: "unknown";/);
  try {
    writeFileSync(types, original.replace(/type: "unknown";/, "type: string;"));
    const r = consumer.exec(tscBin, ["-p", "."]);
    assert.notEqual(r.status, 0, "the type test passed with an open content member");
    assert.match(r.stdout, /typed\.ts/);
  } finally {
    writeFileSync(types, original);
  }
});
