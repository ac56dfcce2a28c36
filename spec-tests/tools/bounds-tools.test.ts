// Bounds of the tool layer, crossed through connectMcp against a real stdio server
// (T2 names, T7 images, T16 unknown content), and through the configuration
// parsers the host feeds from its environment (T14, timeouts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectMcp } from "../../src/node/tools.js";
import { parseServerConfig } from "../../src/tools/config.js";
import { mcpServersFromEnv } from "../../src/tools/env.js";
import { ConfigError, LimitError } from "../../src/errors.js";
import {
  MAX_IMAGES_PER_RESULT,
  MAX_INLINE_BASE64_CHARS,
  MAX_MCP_SERVERS,
  MAX_MCP_SERVERS_ENV_CHARS,
  MAX_MCP_TIMEOUT_MS,
  MAX_TOOL_NAME_CHARS,
  MAX_UNKNOWN_CONTENT_DEPTH,
} from "../../src/limits.js";
import { alice, allowAll, inlineServer, rejection, T, textOf, tool, using } from "./helpers.js";

const SERVER = "b"; // the prefix "b__" takes three of the 64 characters
const atBound = "t".repeat(MAX_TOOL_NAME_CHARS - SERVER.length - 2);

/** A nesting of `levels` objects, the innermost holding "end". */
const nested = (levels: number): unknown => (levels === 0 ? "end" : { a: nested(levels - 1) });

/**
 * The server: tools `images` (MAX_IMAGES_PER_RESULT + 1 png images), `unknown` (a
 * block of a kind MCP does not define, with base64-looking strings at and past the
 * inline bound) and `deep` / `deeper` (unknown blocks whose innermost member sits
 * just inside and just past the nesting bound), plus one tool named `extraName`.
 */
function server(extraName: string) {
  const png = { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" };
  const results = {
    images: { content: Array.from({ length: MAX_IMAGES_PER_RESULT + 1 }, () => png) },
    unknown: { content: [{ type: "future", short: "A".repeat(MAX_INLINE_BASE64_CHARS), long: "A".repeat(MAX_INLINE_BASE64_CHARS + 4) }] },
    // The block is level 0; its member `a` opens level 1.
    deep: { content: [{ type: "future", a: nested(MAX_UNKNOWN_CONTENT_DEPTH - 1) }] },
    deeper: { content: [{ type: "future", a: nested(MAX_UNKNOWN_CONTENT_DEPTH) }] },
  };
  const tools = [...Object.keys(results), extraName].map((name) => ({ name, inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }));
  return inlineServer(
    SERVER,
    `(m) => m.method === "tools/list" ? ${JSON.stringify({ tools })} : (${JSON.stringify(results)})[m.params.name] ?? { content: [{ type: "text", text: "ok" }] }`,
  );
}

test("T2: a prefixed tool name of MAX_TOOL_NAME_CHARS is exposed; one character more refuses the connection with a limit error", T, async () => {
  await using(await connectMcp(server(atBound), { identity: alice, authorize: allowAll }), async (c) => {
    const name = `${SERVER}__${atBound}`;
    assert.equal(name.length, MAX_TOOL_NAME_CHARS);
    assert.equal(textOf(await tool(c, name).execute({}, { identity: alice })), "ok");
  });
  const e = await rejection(connectMcp(server(atBound + "t"), { identity: alice, authorize: allowAll }));
  assert.ok(e instanceof LimitError && e.limit === "MAX_TOOL_NAME_CHARS", `${e.name}: ${e.message}`);
});

test("T7: MAX_IMAGES_PER_RESULT images of a result reach the model as images; the next is a placeholder", T, async () => {
  await using(await connectMcp(server("x"), { identity: alice, authorize: allowAll }), async (c) => {
    const r = await tool(c, `${SERVER}__images`).execute({}, { identity: alice });
    assert.equal(r.content.filter((p) => p.type === "image").length, MAX_IMAGES_PER_RESULT);
    assert.equal(textOf(r), "[image: image/png]");
  });
});

test("T16: in unknown content, a base64-looking string of MAX_INLINE_BASE64_CHARS stays; a longer one becomes its size", T, async () => {
  await using(await connectMcp(server("x"), { identity: alice, authorize: allowAll }), async (c) => {
    const seen = JSON.parse(textOf(await tool(c, `${SERVER}__unknown`).execute({}, { identity: alice }))) as Record<string, string>;
    assert.equal(seen.short, "A".repeat(MAX_INLINE_BASE64_CHARS));
    assert.equal(seen.long, `[base64: ${((MAX_INLINE_BASE64_CHARS + 4) / 4) * 3} bytes]`);
  });
});

test("T16: unknown content is shown to MAX_UNKNOWN_CONTENT_DEPTH levels; deeper nesting is elided", T, async () => {
  await using(await connectMcp(server("x"), { identity: alice, authorize: allowAll }), async (c) => {
    const deep = textOf(await tool(c, `${SERVER}__deep`).execute({}, { identity: alice }));
    assert.ok(deep.includes('"end"') && !deep.includes("[…]"), deep);
    const deeper = textOf(await tool(c, `${SERVER}__deeper`).execute({}, { identity: alice }));
    assert.ok(!deeper.includes('"end"') && deeper.includes('"[…]"'), deeper);
  });
});

test("T14: a YADA_MCP_SERVERS value of MAX_MCP_SERVERS_ENV_CHARS characters is read; one character more is refused", () => {
  const json = JSON.stringify([{ name: "s", url: "https://s.example/mcp" }]);
  const padded = (chars: number): string => json + " ".repeat(chars - json.length);
  assert.equal(mcpServersFromEnv({ YADA_MCP_SERVERS: padded(MAX_MCP_SERVERS_ENV_CHARS) }).length, 1);
  assert.throws(
    () => mcpServersFromEnv({ YADA_MCP_SERVERS: padded(MAX_MCP_SERVERS_ENV_CHARS + 1) }),
    (e: unknown) => e instanceof ConfigError && e.message.includes(String(MAX_MCP_SERVERS_ENV_CHARS)),
  );
});

test("T14: YADA_MCP_SERVERS may list MAX_MCP_SERVERS servers, not one more", () => {
  const servers = (n: number): string => JSON.stringify(Array.from({ length: n }, (_, i) => ({ name: `s${i}`, url: `https://s${i}.example/mcp` })));
  assert.equal(mcpServersFromEnv({ YADA_MCP_SERVERS: servers(MAX_MCP_SERVERS) }).length, MAX_MCP_SERVERS);
  assert.throws(
    () => mcpServersFromEnv({ YADA_MCP_SERVERS: servers(MAX_MCP_SERVERS + 1) }),
    (e: unknown) => e instanceof ConfigError && e.message.includes(String(MAX_MCP_SERVERS)),
  );
});

test("T14: a server's timeoutMs may be MAX_MCP_TIMEOUT_MS, not one more, in a config and in the environment", () => {
  const config = (timeoutMs: number) => ({ name: "s", url: "https://s.example/mcp", timeoutMs });
  assert.equal(parseServerConfig(config(MAX_MCP_TIMEOUT_MS)).timeoutMs, MAX_MCP_TIMEOUT_MS);
  assert.throws(() => parseServerConfig(config(MAX_MCP_TIMEOUT_MS + 1)), ConfigError);
  assert.throws(() => mcpServersFromEnv({ YADA_MCP_SERVERS: JSON.stringify([config(MAX_MCP_TIMEOUT_MS + 1)]) }), ConfigError);
});
