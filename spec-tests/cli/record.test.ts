// X6, X4: `yada record` writes a session as a transcript (header line, then one
// {dir, msg} line per message) that the replay server plays back.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT } from "../../src/cli/exit.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";
import { CATALOG, errorCodes, quote, yada } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

interface HttpReplay {
  url: string;
  result(): { ok: boolean; why: string | null };
  close(): Promise<void>;
}
const { startHttpReplay } = (await import(pathToFileURL(repoPath("fixtures", "replay", "http-replay.mjs")).href)) as {
  startHttpReplay(path: string): Promise<HttpReplay>;
};

interface Line {
  dir?: "c2s" | "s2c";
  msg?: { method?: string; id?: unknown; result?: Record<string, unknown>; error?: unknown; params?: Record<string, unknown> };
  transcript?: number;
  [key: string]: unknown;
}

async function readLines(file: string): Promise<Line[]> {
  return (await readFile(file, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Line);
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "yada-record-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("X6: record", { timeout: 30_000 }, () => {
  test("X6, X4: record writes a header line, then every message in order with its direction", async () => {
    const file = join(dir, "catalog.jsonl");
    const r = await yada(["record", "-o", file, "--stdio", CATALOG, "--note", "lookup and a failing tool", "--call", "lookup", '{"sku":"ABC-123"}', "--call", "fail"]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^recorded \d+ messages \(tools\/list and 2 calls, revision 2025-11-25\) to /);
    const [header, ...lines] = await readLines(file);
    assert.equal(header?.transcript, 1);
    assert.deepEqual(header?.server, { name: "catalog", title: "Product catalog", version: "1.0.0" });
    assert.equal(header?.transport, "stdio");
    assert.equal(header?.revision, "2025-11-25");
    assert.match(String(header?.date), /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(header?.note, "lookup and a failing tool");
    assert.deepEqual((header?.command as string[]).slice(-1), [fixtureServer("catalog/stdio.mjs")]);
    assert.ok(lines.every((l) => (l.dir === "c2s" || l.dir === "s2c") && typeof l.msg === "object"));
    const methods = lines.filter((l) => l.dir === "c2s").map((l) => l.msg?.method);
    assert.deepEqual(methods.slice(-5), ["initialize", "notifications/initialized", "tools/list", "tools/call", "tools/call"]);
    const toolsAnswer = lines.find((l) => l.dir === "s2c" && Array.isArray(l.msg?.result?.tools));
    assert.equal((toolsAnswer?.msg?.result?.tools as unknown[]).length, 12);
    assert.ok(lines.some((l) => l.dir === "s2c" && l.msg?.method === "notifications/message"), "server notifications are kept, in place");
    assert.ok(lines.some((l) => l.dir === "s2c" && l.msg?.result?.isError === true), "the failing call's answer is kept");
  });

  test("X4, X6: the replay server plays a recorded transcript back to the same commands", async () => {
    const file = join(dir, "replayed.jsonl");
    const recorded = await yada(["record", "-o", file, "--stdio", CATALOG, "--call", "search", '{"query":"o"}']);
    assert.equal(recorded.code, EXIT.ok, recorded.stderr);
    const outcome = join(dir, "replay-result.json");
    const replay = [process.execPath, repoPath("fixtures", "replay", "stdio-replay.mjs"), file, "--result", outcome].map(quote).join(" ");
    const again = await yada(["record", "-o", join(dir, "again.jsonl"), "--stdio", replay, "--call", "search", '{"query":"o"}']);
    assert.equal(again.code, EXIT.ok, again.stderr);
    // The replay process writes its verdict when its stdin ends, i.e. when the CLI closed it.
    let verdict: { ok: boolean; why: string | null } | undefined;
    for (let i = 0; i < 50 && !verdict; i++) {
      verdict = await readFile(outcome, "utf8").then((t) => JSON.parse(t) as { ok: boolean; why: string | null }, () => undefined);
      if (!verdict) await new Promise((ok) => setTimeout(ok, 50));
    }
    assert.deepEqual({ ok: verdict?.ok, why: verdict?.why }, { ok: true, why: null });
    const strip = (ls: Line[]): unknown[] => ls.slice(1);
    assert.deepEqual(strip(await readLines(join(dir, "again.jsonl"))), strip(await readLines(file)));
  });

  test("X6: a call the server refuses is recorded and reported; recording goes on", async () => {
    const file = join(dir, "refused.jsonl");
    const r = await yada(["record", "-o", file, "--json", "--stdio", CATALOG, "--call", "nope", "--call", "lookup", '{"sku":"DEF-456"}']);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stderr, /^yada: jsonrpc: .*Unknown tool: nope \(recorded\)$/m);
    const summary = JSON.parse(r.stdout) as { messages: number; calls: Array<{ tool: string; isError?: boolean; error?: string }> };
    assert.equal(summary.calls[0]?.tool, "nope");
    assert.match(summary.calls[0]?.error ?? "", /-32602/);
    assert.deepEqual(summary.calls[1], { tool: "lookup", isError: false });
    const lines = await readLines(file);
    assert.equal(lines.length, summary.messages + 1);
    assert.ok(lines.some((l) => l.dir === "s2c" && l.msg?.error !== undefined));
  });

  test("X6: record over HTTP keeps the URL without its query and never a header", async () => {
    const http = await startCatalogHttp();
    try {
      const file = join(dir, "http.jsonl");
      const r = await yada(["record", "-o", file, "--url", `${http.url}?token=hidden`, "--header", "Authorization: Bearer hidden-too"]);
      assert.equal(r.code, EXIT.ok, r.stderr);
      const text = await readFile(file, "utf8");
      assert.ok(!text.includes("hidden"), "no query string, no header value");
      const [header] = await readLines(file);
      assert.equal(header?.transport, "http");
      assert.equal(header?.url, http.url);
    } finally {
      await http.close();
    }
  });

  test("X4, X6: a transcript recorded over HTTP plays back through the HTTP replay server", async () => {
    const http = await startCatalogHttp({ sse: true });
    const file = join(dir, "http-replayed.jsonl");
    try {
      const r = await yada(["record", "-o", file, "--url", http.url, "--call", "lookup", '{"sku":"ABC-123"}']);
      assert.equal(r.code, EXIT.ok, r.stderr);
    } finally {
      await http.close();
    }
    const replay = await startHttpReplay(file);
    try {
      const again = await yada(["record", "-o", join(dir, "http-again.jsonl"), "--url", replay.url, "--call", "lookup", '{"sku":"ABC-123"}']);
      assert.equal(again.code, EXIT.ok, again.stderr);
      assert.deepEqual({ ok: replay.result().ok, why: replay.result().why }, { ok: true, why: null });
    } finally {
      await replay.close();
    }
  });

  test("X6: record needs -o, and --call arguments must be a JSON object: exit 2", async () => {
    const noFile = await yada(["record", "--stdio", CATALOG]);
    assert.equal(noFile.code, EXIT.usage);
    assert.match(noFile.stderr, /record needs -o <file>/);
    const badArgs = await yada(["record", "-o", join(dir, "x.jsonl"), "--stdio", CATALOG, "--call", "lookup", "{nope"]);
    assert.equal(badArgs.code, EXIT.usage);
    assert.deepEqual(errorCodes(badArgs.stderr), ["usage"]);
    // An unwritable file is reported before a server is launched (this command would fail to start: exit 3).
    const unwritable = await yada(["record", "-o", join(dir, "missing-dir", "x.jsonl"), "--stdio", "/nonexistent/server-binary"]);
    assert.equal(unwritable.code, EXIT.usage);
    assert.match(unwritable.stderr, /^yada: usage: cannot write the transcript ".*x\.jsonl" \(ENOENT\)/m);
  });
});
