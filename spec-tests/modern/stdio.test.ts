// V2 over stdio against the dual-era server of the official SDK v2 packages: the
// client probes with server/discover, speaks revision 2026-07-28 with `_meta` on
// every request, answers input_required rounds, and caches lists by ttlMs. Every
// message goes through the transcript recorder, so the wire itself is checked.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ListKind } from "../../src/mcp/client.js";
import { waitFor } from "../helpers/clients.js";
import {
  assertModernRequests,
  catalogScript,
  connectDual,
  connectRecorded,
  MODERN,
  metaOf,
  readWire,
  requestsOf,
  responseTo,
  sent,
  textOf,
  transcriptPath,
  using,
} from "./support.js";

test("V2: a dual-era server over stdio is spoken to in the modern era: discover, list, call, read, prompt", { timeout: 30_000 }, async () => {
  const { client, out } = await connectDual();
  await using(client, async () => {
    assert.equal(client.era, "modern");
    assert.equal(client.protocolVersion, MODERN);
    // serverInfo lives in the discover result's _meta in this revision.
    assert.deepEqual(client.serverInfo, { name: "yada-dual-fixture", version: "2.4.0-fixture" });
    assert.equal(client.instructions, "A dual-era test server for yada.");
    assert.equal(typeof client.serverCapabilities.tools, "object");
    const names = (await client.listTools()).map((t) => t.name);
    for (const n of ["add", "greet", "summarize", "list-roots", "visit", "where", "touch", "log"]) assert.ok(names.includes(n), n);
    const sum = await client.callTool("add", { a: 2, b: 40 });
    assert.equal(textOf(sum), "42");
    assert.deepEqual(sum.structuredContent, { sum: 42 });
    assert.deepEqual((await client.listResources()).map((r) => r.uri), ["dual://readme"]);
    const contents = await client.readResource("dual://readme");
    assert.deepEqual(contents, [{ uri: "dual://readme", mimeType: "text/plain", text: "The dual-era fixture server." }]);
    assert.deepEqual((await client.listPrompts()).map((p) => p.name), ["welcome"]);
    const prompt = await client.getPrompt("welcome", { name: "Ada" });
    assert.deepEqual(prompt.messages, [{ role: "user", content: { type: "text", text: "Welcome, Ada!" } }]);
  });
  const wire = readWire(out);
  const messages = sent(wire);
  assert.equal(messages[0]?.method, "server/discover", "the probe is the first message");
  assert.equal(requestsOf(messages, "initialize").length, 0, "no initialize in the modern era");
  assert.equal(messages.filter((m) => m.method === "notifications/initialized").length, 0);
  assertModernRequests(messages);
  // A discover result is the server's own word that it is modern.
  const discovered = responseTo(wire, messages[0]?.id).result;
  assert.deepEqual(discovered?.supportedVersions, [MODERN]);
  const methods = messages.filter((m) => "id" in m).map((m) => m.method);
  assert.deepEqual(methods, ["server/discover", "tools/list", "tools/call", "resources/list", "resources/read", "prompts/list", "prompts/get"]);
});

test("V2: input_required is answered by the host handler and retried with a new id, the original params, inputResponses and the exact requestState", { timeout: 30_000 }, async () => {
  const asked: unknown[] = [];
  const { client, out } = await connectDual({
    handlers: {
      elicitation: {
        form: async (request) => {
          asked.push(request);
          return { action: "accept", content: { name: "Ada" } };
        },
      },
    },
  });
  let state: unknown;
  await using(client, async () => {
    const r = await client.callTool("greet", {}, { meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } });
    assert.equal(textOf(r), "Hello, Ada.");
    state = (r.structuredContent as { state: string }).state;
    // The next request carries no state of its own.
    await client.callTool("add", { a: 1, b: 1 });
  });
  assert.equal(asked.length, 1);
  const wire = readWire(out);
  const calls = requestsOf(sent(wire), "tools/call");
  const [first, retry, after] = calls;
  assert.ok(first && retry && after);
  const answer = responseTo(wire, first.id).result;
  assert.equal(answer?.resultType, "input_required");
  assert.equal(typeof answer?.requestState, "string");
  assert.equal(answer?.requestState, state, "the server saw the state it minted");
  assert.notEqual(retry.id, first.id, "the retry has a new id");
  const { inputResponses, requestState, ...retryParams } = retry.params ?? {};
  assert.deepEqual(retryParams, first.params, "the retry repeats the original params, _meta included");
  assert.equal(requestState, answer?.requestState, "the state is echoed exactly");
  // The form's defaults fill what the user left empty.
  assert.deepEqual(inputResponses, { name: { action: "accept", content: { name: "Ada", excited: false } } });
  assert.equal(first.params?.requestState, undefined, "no state is invented for the first request");
  assert.equal(after.params?.requestState, undefined, "the state is never reused for another request");
  assert.equal(after.params?.inputResponses, undefined);
  assertModernRequests(sent(wire), { elicitation: { form: {} } });
});

test("V2: a second connect to a server remembered as legacy sends no probe", { timeout: 30_000 }, async () => {
  const out = transcriptPath();
  const first = await connectRecorded(["node", catalogScript], {}, out);
  assert.equal(first.client.era, "legacy");
  await first.client.close();
  const before = sent(readWire(out)).map((m) => m.method);
  assert.deepEqual(before.slice(0, 2), ["server/discover", "initialize"]);
  // The same command line is the same server.
  const second = await connectRecorded(["node", catalogScript], {}, out);
  await using(second.client, async (client) => {
    assert.equal(client.era, "legacy");
    assert.ok((await client.listTools()).length > 0);
  });
  const after = sent(readWire(out)).map((m) => m.method);
  assert.equal(after[0], "initialize");
  assert.ok(!after.includes("server/discover"), "the remembered era skips the probe");
});

test("V2: tools/list is served from cache within its ttlMs; a list_changed notification makes it stale", { timeout: 30_000 }, async () => {
  const { client, out } = await connectDual();
  await using(client, async () => {
    assert.equal(client.era, "modern");
    const kinds: ListKind[] = [];
    client.onListChanged((k) => kinds.push(k));
    const ack = new Promise<void>((resolve) => {
      const off = client.onNotification((method) => {
        if (method !== "notifications/subscriptions/acknowledged") return;
        off();
        resolve();
      });
    });
    const firstList = await client.listTools();
    const cached = await client.listTools();
    assert.deepEqual(cached, firstList, "the cached list is the same list");
    // prompts/list comes with ttlMs 0: never cached.
    await client.listPrompts();
    await client.listPrompts();
    await ack;
    await client.callTool("touch", {});
    await waitFor(() => kinds.includes("tools"));
    await client.listTools();
  });
  const messages = sent(readWire(out));
  assert.equal(requestsOf(messages, "tools/list").length, 2, "one request before the change, one after");
  assert.equal(requestsOf(messages, "prompts/list").length, 2);
});
