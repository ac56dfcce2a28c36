// T14: mcpServersFromEnv parses YADA_MCP_SERVERS, validates every field, requires
// unique names, never echoes header or env values, and never launches or connects.
// Also the server configuration rules connectMcp applies (T1, A1).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { connectMcp } from "../../src/node/tools.js";
import { parseServerConfig } from "../../src/tools/config.js";
import { mcpServersFromEnv } from "../../src/tools/env.js";
import { alice, allowAll, recording, rejection, T, withCatalog } from "./helpers.js";

const SECRET = "sk-live-0123456789abcdef";
const env = (value: unknown) => ({ YADA_MCP_SERVERS: typeof value === "string" ? value : JSON.stringify(value) });

/** The ConfigError mcpServersFromEnv throws for `value`, checked to hide the secret. */
function envError(value: unknown): Error & { code?: string } {
  try {
    mcpServersFromEnv(env(value));
  } catch (e) {
    const error = e as Error & { code?: string; cause?: unknown };
    assert.equal(error.code, "config");
    assert.ok(!error.message.includes(SECRET), `the message leaks the secret: ${error.message}`);
    assert.ok(!String(error.cause ?? "").includes(SECRET), "the cause leaks the secret");
    assert.ok(!(error.stack ?? "").includes(SECRET), "the stack leaks the secret");
    return error;
  }
  throw new Error("expected mcpServersFromEnv to throw");
}

describe("T14: mcpServersFromEnv", { concurrency: true }, () => {
  test("T14: unset, empty or blank means no servers", () => {
    assert.deepEqual(mcpServersFromEnv({}), []);
    assert.deepEqual(mcpServersFromEnv({ YADA_MCP_SERVERS: "" }), []);
    assert.deepEqual(mcpServersFromEnv({ YADA_MCP_SERVERS: "  \n" }), []);
    assert.deepEqual(mcpServersFromEnv(env([])), []);
  });

  test("T14: a JSON array of HTTP and stdio servers becomes validated configurations", () => {
    const servers = mcpServersFromEnv(
      env([
        { name: "catalog", url: "https://catalog.example/mcp", headers: { "x-api-key": SECRET }, timeoutMs: 60_000, readTools: ["lookup"] },
        { name: "files", command: "node", args: ["server.js"], env: { TOKEN: SECRET }, resources: true, stderr: "inherit" },
      ]),
    );
    assert.deepEqual(servers, [
      { name: "catalog", url: "https://catalog.example/mcp", headers: { "x-api-key": SECRET }, timeoutMs: 60_000, readTools: ["lookup"] },
      { name: "files", command: "node", args: ["server.js"], env: { TOKEN: SECRET }, resources: true, stderr: "inherit" },
    ]);
  });

  test("T14: invalid JSON is refused without quoting the input", () => {
    const e = envError(`[{"name":"catalog","url":"https://x.example/mcp","headers":{"authorization":"Bearer ${SECRET}"}`);
    assert.match(e.message, /YADA_MCP_SERVERS is not valid JSON/);
  });

  test("T14: a header value refused by the header rules is never echoed", () => {
    for (const value of [`Bearer ${SECRET}\n`, ` ${SECRET}`, `${SECRET}é`]) {
      const e = envError([{ name: "catalog", url: "https://x.example/mcp", headers: { authorization: value } }]);
      assert.match(e.message, /YADA_MCP_SERVERS\[0\] \(catalog\): value of HTTP header authorization/);
    }
    const nonString = envError([{ name: "catalog", url: "https://x.example/mcp", headers: { authorization: [SECRET] } }]);
    assert.match(nonString.message, /headers\.authorization must be a string/);
  });

  test("T14: header values stay hidden in every other error of the same entry", () => {
    const headers = { authorization: `Bearer ${SECRET}` };
    for (const entry of [
      { name: "catalog", url: "https://x.example/mcp", headers, timeoutMs: -1 },
      { name: "catalog", url: "https://x.example/mcp", headers, readTools: "lookup" },
      { name: "catalog", url: "https://x.example/mcp", headers, surprise: true },
      { name: "catalog", command: "node", headers },
      { name: "bad name!", url: "https://x.example/mcp", headers },
      { name: "catalog", url: `https://user:${SECRET}@x.example/mcp` },
      { name: "catalog", command: "node", env: { "BAD-NAME": SECRET } },
      { name: "catalog", url: "https://x.example/mcp", headers: { "x y": SECRET } },
    ]) {
      envError([entry]);
    }
  });

  test("T14: each field is validated with a message naming it", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{}, /must be a JSON array/],
      [[1], /YADA_MCP_SERVERS\[0\] must be an object/],
      [[{ name: "a b", url: "https://x.example/mcp" }], /name must match/],
      [[{ name: "c" }], /exactly one of url or command/],
      [[{ name: "c", url: "https://x.example/mcp", command: "node" }], /exactly one of url or command/],
      [[{ name: "c", url: "ftp://x.example/mcp" }], /url must use http: or https:/],
      [[{ name: "c", url: "not a url" }], /url is not a valid absolute URL/],
      [[{ name: "c", url: "https://x.example/mcp", timeoutMs: 1.5 }], /timeoutMs must be a positive integer/],
      [[{ name: "c", url: "https://x.example/mcp", readTools: ["a", "a"] }], /readTools lists "a" twice/],
      [[{ name: "c", url: "https://x.example/mcp", resources: "yes" }], /resources must be a boolean/],
      [[{ name: "c", command: "node", args: [1] }], /args\[0\] must be a string/],
      [[{ name: "c", command: "node", stderr: "file" }], /stderr must be "pipe" or "inherit"/],
      [[{ name: "c", url: "https://x.example/mcp", headers: { "content-type": "x" } }], /set by the transport/],
      [[{ name: "c", url: "https://x.example/mcp", writeTools: {} }], /writeTools is not allowed here/],
      [[{ name: "c", url: "https://x.example/mcp", confirmTools: "*" }], /confirmTools is not allowed here/],
    ];
    for (const [value, message] of cases) assert.match(envError(value).message, message);
  });

  test("T14: names must be unique", () => {
    const e = envError([
      { name: "catalog", url: "https://a.example/mcp" },
      { name: "catalog", command: "node" },
    ]);
    assert.match(e.message, /YADA_MCP_SERVERS\[1\]: the name "catalog" is used twice/);
  });

  test("T14: it never launches a process nor connects", T, () =>
    withCatalog("http", async ({ http }) => {
      const dir = mkdtempSync(join(tmpdir(), "yada-env-"));
      try {
        const marker = join(dir, "launched");
        const servers = mcpServersFromEnv(
          env([
            { name: "spawned", command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`] },
            { name: "remote", url: http?.url },
          ]),
        );
        assert.equal(servers.length, 2);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(existsSync(marker), false, "the command was not run");
        assert.equal(http?.requests.length, 0, "the HTTP server saw no request");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
  );
});

describe("T1: server configuration at connect", { concurrency: true }, () => {
  test("T1: connectMcp validates the configuration before launching anything", T, async () => {
    const rec = recording();
    const e = await rejection(
      connectMcp({ name: "catalog", url: "https://x.example/mcp", headers: { authorization: `Bearer ${SECRET}\r\n` } }, { identity: alice, authorize: allowAll }, { transportFactory: rec.factory }),
    );
    assert.equal(e.code, "config");
    assert.ok(!e.message.includes(SECRET));
    assert.equal(rec.built(), 0);
  });

  test("W1: write roles that overlap are refused before launching", T, async () => {
    const rec = recording();
    const e = await rejection(
      connectMcp(
        { name: "catalog", command: "node", readTools: ["prepare_rename"], writeTools: { rename: { version: "v1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } },
        { identity: alice, authorize: allowAll },
        { transportFactory: rec.factory },
      ),
    );
    assert.equal(e.code, "config");
    assert.match(e.message, /cannot overlap/);
    assert.equal(rec.built(), 0);
  });

  test("A1: configured headers reach the HTTP server on every request", T, () =>
    withCatalog("http", async ({ http }) => {
      const url = http?.url ?? "";
      const c = await connectMcp({ name: "catalog", url, headers: { authorization: "Bearer t0k3n", "x-tenant": "acme" } }, { identity: alice, authorize: allowAll });
      await c.close();
      const posts = http?.requests.filter((r) => r.method === "POST") ?? [];
      assert.ok(posts.length >= 3);
      for (const r of posts) {
        assert.equal(r.headers.authorization, "Bearer t0k3n");
        assert.equal(r.headers["x-tenant"], "acme");
      }
    }),
  );

  test("T1: a configuration is copied: later changes to the host's object change nothing", () => {
    const readTools = ["lookup"];
    const config = parseServerConfig({ name: "catalog", url: "https://x.example/mcp", readTools });
    readTools.push("rename");
    assert.deepEqual(config.readTools, ["lookup"]);
  });

  test("T1, T14: every field is known and allowed before any value is checked; prototype names are unknown fields", () => {
    const cases: Array<[string, RegExp]> = [
      ['{"name":"c","url":5,"bogus":1}', /unknown field "bogus" for an HTTP server/],
      ['{"name":"c","url":"https://x.example/mcp","timeoutMs":-1,"toString":1}', /unknown field "toString"/],
      ['{"name":"c","url":"https://x.example/mcp","__proto__":{"url":"https://elsewhere.example"}}', /unknown field "__proto__"/],
      ['{"name":"c","url":"https://x.example/mcp","constructor":{}}', /unknown field "constructor"/],
      ['{"name":"c","command":"node","headers":5}', /unknown field "headers" for a stdio server/],
      ['{"name":"c","url":"https://x.example/mcp","writeTools":5}', /writeTools is not allowed here/],
    ];
    for (const [json, message] of cases) assert.match(envError(`[${json}]`).message, message);
  });

  test("T1, T14: a \"__proto__\" key in headers, env or writeTools is refused, never dropped nor made the copy's prototype", () => {
    const cases: Array<[string, string]> = [
      ['{"name":"a","url":"https://x.example/mcp","headers":{"__proto__":"v"}}', "headers"],
      ['{"name":"a","command":"x","env":{"__proto__":"v"}}', "env"],
      ['{"name":"a","url":"https://x.example/mcp","writeTools":{"__proto__":{"version":"1","prepareTool":"p","receiptTool":"r"}}}', "writeTools"],
    ];
    for (const [json, field] of cases) {
      assert.throws(
        () => parseServerConfig(JSON.parse(json)),
        (e: Error & { code?: string }) => e.code === "config" && e.message.includes(field) && e.message.includes("__proto__"),
        field,
      );
    }
    assert.match(envError(`[{"name":"a","url":"https://x.example/mcp","headers":{"__proto__":"${SECRET}"}}]`).message, /headers may not have the key "__proto__"/);
  });

  test("T1, T14: a hole in args or readTools is refused like any other non-string", () => {
    const sparse = [, "b"];
    assert.throws(() => parseServerConfig({ name: "a", command: "x", args: sparse }), { code: "config", message: /args\[0\] must be a string/ });
    assert.throws(() => parseServerConfig({ name: "a", url: "https://x.example/mcp", readTools: new Array(2) }), { code: "config", message: /readTools\[0\] must be a string/ });
  });

  test("T1: the web entry's connectMcp refuses stdio configurations with a pointer to the Node entry", T, async () => {
    const { connectMcp: webConnect } = await import("../../src/tools/connect.js");
    const e = await rejection(webConnect({ name: "catalog", command: "node" }, { identity: alice, authorize: allowAll }));
    assert.equal(e.code, "config");
    assert.match(e.message, /yada\/node/);
  });
});
