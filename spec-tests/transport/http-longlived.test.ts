import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpTransport } from "../../src/transport/http.js";
import type { YadaError } from "../../src/errors.js";
import { startRpcServer, type LoopbackRpcServer } from "../helpers/http.js";

// A server that opens an SSE answer, stays quiet for 2 s, then answers. The idle
// bound (400 ms) leaves a loaded machine time to deliver the response headers.
function quietServer(): Promise<LoopbackRpcServer> {
  return startRpcServer((m, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": opened\n\n");
    setTimeout(() => res.end(`data: ${JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { resultType: "complete" } })}\n\n`), 2_000);
  });
}

async function exchange(url: string, longLived: boolean): Promise<"answered" | string> {
  const transport = new HttpTransport(url, { idleTimeoutMs: 400 });
  let outcome: string | undefined;
  await transport.start({ message: () => (outcome = "answered"), requestError: (_id, e: YadaError) => (outcome = e.code), closed: () => {} });
  await transport.send({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: {} }, { longLived });
  await transport.close();
  return outcome ?? "nothing";
}

test("H5, V5: a long-lived answer stream (subscriptions/listen) is exempt from the idle bound; others are not", { timeout: 10_000 }, async () => {
  const server = await quietServer();
  try {
    assert.equal(await exchange(server.url, true), "answered");
    assert.equal(await exchange(server.url, false), "timeout");
  } finally {
    server.close();
  }
});
