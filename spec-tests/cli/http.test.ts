// X6: the CLI over Streamable HTTP (the catalog on 127.0.0.1), custom headers
// (H10), and servers named in YADA_MCP_SERVERS (T14).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { EXIT } from "../../src/cli/exit.js";
import { fixtureServer } from "../helpers/paths.js";
import { CATALOG, errorCodes, yada } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

let server: Awaited<ReturnType<CatalogHttpModule["startCatalogHttp"]>>;
before(async () => {
  server = await startCatalogHttp({ sse: true });
});
after(async () => {
  await server.close();
});

const SECRET = "s3cr3t-token-value";

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, "127.0.0.1", ok));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((ok) => probe.close(() => ok()));
  return port;
}

describe("X6: commands over HTTP", { timeout: 30_000 }, () => {
  test("X6: tools over HTTP sends each --header on every request and never prints its value", async () => {
    const before = server.requests.length;
    const r = await yada(["tools", "--url", server.url, "--header", `Authorization: Bearer ${SECRET}`, "--header", "X-Team: blue"]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^lookup +read-only/m);
    const seen = server.requests.slice(before);
    assert.ok(seen.some((q) => q.rpcMethod === "tools/list"));
    assert.ok(seen.some((q) => q.method === "DELETE"), "the session is released on exit (H6)");
    for (const q of seen) {
      assert.equal(q.headers.authorization, `Bearer ${SECRET}`, `${q.method} ${q.rpcMethod ?? ""}`);
      assert.equal(q.headers["x-team"], "blue");
    }
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
  });

  test("X6: call over HTTP, with an SSE answer", async () => {
    const r = await yada(["call", "lookup", '{"sku":"JKL-012"}', "--url", server.url]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "Product JKL-012: Sprocket, 3.25 EUR, in stock\n");
  });

  test("X6: a header with an invalid name is refused before any request: exit 2, config, value not shown", async () => {
    const before = server.requests.length;
    const r = await yada(["tools", "--url", server.url, "--header", `Bad Name: ${SECRET}`]);
    assert.equal(r.code, EXIT.usage);
    assert.deepEqual(errorCodes(r.stderr), ["config"]);
    assert.match(r.stderr, /HTTP header name is not an RFC 9110 token/);
    assert.ok(!r.stderr.includes(SECRET));
    assert.equal(server.requests.length, before, "nothing was sent");
  });

  test("X6: a header the transport sets itself, or a value with a newline, is refused: exit 2", async () => {
    const reserved = await yada(["tools", "--url", server.url, "--header", "Content-Type: text/plain"]);
    assert.equal(reserved.code, EXIT.usage);
    assert.match(reserved.stderr, /^yada: config: HTTP header Content-Type is set by the transport/m);
    const newline = await yada(["tools", "--url", server.url, "--header", `X-Key: ${SECRET}\nInjected: 1`]);
    assert.equal(newline.code, EXIT.usage);
    assert.ok(!newline.stderr.includes(SECRET));
    const noColon = await yada(["tools", "--url", server.url, "--header", "X-Key"]);
    assert.equal(noColon.code, EXIT.usage);
    assert.match(noColon.stderr, /--header needs "Name: value"/);
  });

  test("X6: an HTTP server that is not there: exit 3, transport", async () => {
    const port = await closedPort();
    const r = await yada(["tools", "--url", `http://127.0.0.1:${port}/mcp`, "--timeout", "5000"]);
    assert.equal(r.code, EXIT.connection);
    assert.deepEqual(errorCodes(r.stderr), ["transport"]);
  });
});

describe("X6, T14: --server from YADA_MCP_SERVERS", { timeout: 30_000 }, () => {
  test("X6: an HTTP server from YADA_MCP_SERVERS, with its configured headers plus --header", async () => {
    const servers = JSON.stringify([
      { name: "shop", url: server.url, headers: { "x-api-key": SECRET } },
      { name: "local", command: process.execPath, args: [fixtureServer("catalog/stdio.mjs")] },
    ]);
    const before = server.requests.length;
    const r = await yada(["prompts", "--server", "shop", "--header", "X-Extra: 1"], { env: { YADA_MCP_SERVERS: servers } });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /^summarize +\{sku\*\}/m);
    const seen = server.requests.slice(before);
    assert.ok(seen.length > 0);
    for (const q of seen) {
      assert.equal(q.headers["x-api-key"], SECRET);
      assert.equal(q.headers["x-extra"], "1");
    }
  });

  test("X6: a stdio server from YADA_MCP_SERVERS", async () => {
    const servers = JSON.stringify([{ name: "local", command: process.execPath, args: [fixtureServer("catalog/stdio.mjs")] }]);
    const r = await yada(["call", "lookup", '{"sku":"MNO-345"}', "--server", "local"], { env: { YADA_MCP_SERVERS: servers } });
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.equal(r.stdout, "Product MNO-345: Doohickey, 45.00 EUR, in stock\n");
  });

  test("X6: an unknown name lists the known ones; an invalid YADA_MCP_SERVERS is a config error; both exit 2", async () => {
    const servers = JSON.stringify([{ name: "shop", url: server.url }]);
    const unknown = await yada(["tools", "--server", "nope"], { env: { YADA_MCP_SERVERS: servers } });
    assert.equal(unknown.code, EXIT.usage);
    assert.match(unknown.stderr, /^yada: usage: no server named "nope" in YADA_MCP_SERVERS; known: shop/m);
    const invalid = await yada(["tools", "--server", "shop"], { env: { YADA_MCP_SERVERS: `[{"name":"shop","url":"${server.url}","headers":{"x":"${SECRET}` } });
    assert.equal(invalid.code, EXIT.usage);
    assert.deepEqual(errorCodes(invalid.stderr), ["config"]);
    assert.ok(!invalid.stderr.includes(SECRET), "the JSON text is never quoted");
    const unset = await yada(["tools", "--server", "shop"]);
    assert.match(unset.stderr, /known: none/);
  });

  test("X6: --header with a stdio server from YADA_MCP_SERVERS is a usage error", async () => {
    const servers = JSON.stringify([{ name: "local", command: process.execPath, args: [CATALOG] }]);
    const r = await yada(["tools", "--server", "local", "--header", "A: b"], { env: { YADA_MCP_SERVERS: servers } });
    assert.equal(r.code, EXIT.usage);
    assert.match(r.stderr, /--header applies to HTTP servers; local is a stdio server/);
  });
});
