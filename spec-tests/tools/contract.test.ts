// T13: the contract string of a connection is canonical: equal specs give equal
// strings whatever order the server wrote tools and keys in, and any change of
// a value changes it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_INSTANCE_DEPTH } from "../../src/limits.js";
import { contractOf, type ContractEntry } from "../../src/tools/contract.js";
import { connectMcp } from "../../src/node/tools.js";
import { alice, allowAll, inlineServer, rejection, T, using } from "./helpers.js";

const entry = (remote: string, spec: unknown): ContractEntry => ({ remote, effect: "read", spec });

test("T13: the contract is the same whatever order the server lists tools and writes object keys in", () => {
  const a = [
    entry("b", { description: "B", inputSchema: { type: "object", properties: { x: { type: "string", maxLength: 3 } }, required: ["x"] } }),
    entry("a", { inputSchema: { type: "object" }, description: "A", annotations: { readOnlyHint: true, "10": 1, "2": 2 } }),
  ];
  const b = [
    entry("a", { annotations: { "2": 2, readOnlyHint: true, "10": 1 }, description: "A", inputSchema: { type: "object" } }),
    entry("b", { inputSchema: { required: ["x"], properties: { x: { maxLength: 3, type: "string" } }, type: "object" }, description: "B" }),
  ];
  assert.equal(contractOf("srv", a), contractOf("srv", b));
  // Array order is meaning (required, enum): it is kept.
  const c = [a[0]!, entry("a", { inputSchema: { type: "object", enum: [2, 1] }, description: "A" })];
  const d = [a[0]!, entry("a", { inputSchema: { type: "object", enum: [1, 2] }, description: "A" })];
  assert.notEqual(contractOf("srv", c), contractOf("srv", d));
  // Any value changed, however deep, or another server name: another contract.
  const deeper = [entry("b", { description: "B", inputSchema: { type: "object", properties: { x: { type: "string", maxLength: 4 } }, required: ["x"] } }), a[1]!];
  assert.notEqual(contractOf("srv", a), contractOf("srv", deeper));
  assert.notEqual(contractOf("srv", a), contractOf("other", a));
});

test("T13: a \"__proto__\" key in a spec is data in the contract, never a prototype", () => {
  const withKey = (value: unknown): ContractEntry[] => {
    const spec = JSON.parse(`{"z": 1, "__proto__": ${JSON.stringify(value)}}`) as Record<string, unknown>;
    return [entry("t", spec)];
  };
  const one = contractOf("srv", withKey({ a: 1 }));
  assert.match(one, /"__proto__":\{"a":1\}/);
  assert.notEqual(one, contractOf("srv", withKey({ a: 2 })));
});

test("T13: a spec nested deeper than MAX_INSTANCE_DEPTH is a limit error, not a stack overflow", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.throws(() => contractOf("srv", [entry("t", { annotations: { deep } })]), { code: "limit", limit: "MAX_INSTANCE_DEPTH" });
  let fits: unknown = 1;
  for (let i = 0; i < MAX_INSTANCE_DEPTH - 6; i++) fits = [fits];
  assert.doesNotThrow(() => contractOf("srv", [entry("t", { annotations: { fits } })]));
});

/**
 * An inline server listing an exposed tool `t` (read-only) and a hidden tool `w`
 * (not read-only), whose annotations nest `exposed` and `hidden` arrays deep.
 */
function nestingServer(exposed: number, hidden: number) {
  return inlineServer(
    "nest",
    `(m) => {
      const deep = (n) => { let d = 1; for (let i = 0; i < n; i++) d = [d]; return d; };
      return m.method === "tools/list"
        ? { tools: [
            { name: "t", inputSchema: { type: "object" }, annotations: { readOnlyHint: true, deep: deep(${exposed}) } },
            { name: "w", inputSchema: { type: "object" }, annotations: { deep: deep(${hidden}) } },
          ] }
        : { content: [{ type: "text", text: "ran" }] };
    }`,
  );
}

test("T13: an exposed tool nested past MAX_INSTANCE_DEPTH is refused when the catalog enters, though the contract string is built on first use", T, async () => {
  const e = await rejection(connectMcp(nestingServer(MAX_INSTANCE_DEPTH, 1), { identity: alice, authorize: allowAll }));
  assert.equal(e.code, "limit");
  assert.equal((e as { limit?: string }).limit, "MAX_INSTANCE_DEPTH");
  // The bound is the contract's own: a tool the connection does not expose is not in it,
  // and the deepest exposed spec that fits connects, its contract read later without error.
  // {server, tools: [{spec: {annotations: {deep}}}]}: `deep` itself sits 5 levels down.
  await using(await connectMcp(nestingServer(MAX_INSTANCE_DEPTH - 6, 1_000), { identity: alice, authorize: allowAll }), async (c) => {
    assert.deepEqual(c.tools.map((t) => t.name), ["nest__t"]);
    assert.match(c.contract, /"remote":"t"/);
    assert.doesNotMatch(c.contract, /"remote":"w"/);
  });
});
