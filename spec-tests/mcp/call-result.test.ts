// V4: what callTool makes of a tools/call result, field by field: the plain text
// answer (read on the fast path) and every richer shape (read through the tables)
// must come out as the content model says, and every mistyped field is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { McpClient } from "../../src/node/client.js";
import { ProtocolError } from "../../src/errors.js";
import { inlineServer, rejection } from "../helpers/clients.js";

const answers = `({
  plain: { content: [{ type: "text", text: "a" }] },
  extra: { content: [{ type: "text", text: "a", extra: 1 }, { text: "b", type: "text" }], unknownField: 1 },
  rich: {
    content: [{ type: "text", text: "a", annotations: { audience: ["user"], priority: 1 }, _meta: { k: 1 } }],
    isError: false,
    structuredContent: { y: 2 },
    _meta: { x: 1 },
  },
  failed: { content: [{ type: "text", text: "no" }], isError: true },
  notFailed: { content: [], isError: false },
  badText: { content: [{ type: "text", text: 5 }] },
  missingText: { content: [{ type: "text" }] },
  badAnnotations: { content: [{ type: "text", text: "a", annotations: "x" }] },
  badBlockMeta: { content: [{ type: "text", text: "a", _meta: [] }] },
  badResultMeta: { content: [], _meta: "m" },
  badStructured: { content: [], structuredContent: [1] },
  notABlock: { content: ["text"] },
})`;
const server = inlineServer(`(m) => ${answers}[m.params.name]`);

test("V4: a text-only result is exactly its blocks and isError false; unknown fields are dropped", async () => {
  const client = await McpClient.connectStdio("node", server, undefined, { era: "legacy" });
  try {
    assert.deepEqual(await client.callTool("plain"), { content: [{ type: "text", text: "a" }], isError: false });
    assert.deepEqual(await client.callTool("extra"), { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], isError: false });
    assert.deepEqual(await client.callTool("failed"), { content: [{ type: "text", text: "no" }], isError: true });
    assert.deepEqual(await client.callTool("notFailed"), { content: [], isError: false });
  } finally {
    await client.close();
  }
});

test("V4: annotations, _meta and structuredContent of a result and its text blocks are kept", async () => {
  const client = await McpClient.connectStdio("node", server, undefined, { era: "legacy" });
  try {
    assert.deepEqual(await client.callTool("rich"), {
      content: [{ type: "text", text: "a", annotations: { audience: ["user"], priority: 1 }, _meta: { k: 1 } }],
      isError: false,
      structuredContent: { y: 2 },
      _meta: { x: 1 },
    });
  } finally {
    await client.close();
  }
});

test("V4: a mistyped text, annotations, _meta or structuredContent is a protocol error naming the field", async () => {
  const client = await McpClient.connectStdio("node", server, undefined, { era: "legacy" });
  try {
    const cases: Array<[string, RegExp]> = [
      ["badText", /"text" must be a string/],
      ["missingText", /"text" must be a string/],
      ["badAnnotations", /"annotations" must be an object/],
      ["badBlockMeta", /"_meta" must be an object/],
      ["badResultMeta", /"_meta" must be an object/],
      ["badStructured", /"structuredContent" must be an object/],
      ["notABlock", /content\[0\].*not an object/],
    ];
    for (const [name, message] of cases) {
      const e = await rejection(client.callTool(name));
      assert.ok(e instanceof ProtocolError, `${name}: ${e.message}`);
      assert.match(e.message, message, name);
      assert.match(e.message, new RegExp(`tools/call ${name}`), name);
    }
  } finally {
    await client.close();
  }
});

test("V2, V4: a legacy-era answer asking for input gets it from the host handlers, then the call completes", async () => {
  const asking = inlineServer(
    "(m) => m.params.inputResponses ? { content: [{ type: 'text', text: JSON.stringify(m.params.inputResponses) }] } : { resultType: 'input_required', inputRequests: { a: { method: 'roots/list' } } }",
  );
  let asked = 0;
  const client = await McpClient.connectStdio("node", asking, undefined, {
    era: "legacy",
    handlers: { roots: async () => (asked++, [{ uri: "file:///w" }]) },
  });
  try {
    const r = await client.callTool("t");
    assert.equal(asked, 1);
    assert.equal(r.isError, false);
    assert.deepEqual(JSON.parse((r.content[0] as { text: string }).text), { a: { roots: [{ uri: "file:///w" }] } });
  } finally {
    await client.close();
  }
});
