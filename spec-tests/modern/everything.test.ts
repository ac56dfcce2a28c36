// The legacy path against a real legacy-only server: server-everything (official
// reference server, SDK v1) over stdio and over Streamable HTTP on 127.0.0.1. The
// client probes, falls back to initialize, and then lists, calls, reads a resource,
// gets a prompt, receives a list change and answers the server's sampling and
// elicitation requests through the same API as in the modern era (V1, V5, V6).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ClientHandlers, FormElicitation, SamplingRequest } from "../../src/mcp/handlers.js";
import type { ListKind, McpClient } from "../../src/mcp/client.js";
import { repoPath } from "../helpers/paths.js";
import { waitFor } from "../helpers/clients.js";
import { startEverything } from "../helpers/everything.js";
import { connectHttp, connectRecorded, readWire, sent, textOf, using } from "./support.js";

const everything = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

function handlers(): { handlers: ClientHandlers; forms: FormElicitation[]; samples: SamplingRequest[] } {
  const forms: FormElicitation[] = [];
  const samples: SamplingRequest[] = [];
  return {
    forms,
    samples,
    handlers: {
      sampling: {
        handle: async (request) => {
          samples.push(request);
          return { role: "assistant", model: "host-model", content: { type: "text", text: "sampled by the host" }, stopReason: "endTurn" };
        },
      },
      elicitation: {
        form: async (request) => {
          forms.push(request);
          return { action: "accept", content: { name: "Ada Lovelace", check: true } };
        },
      },
    },
  };
}

// The steps of issue #5's interop list, the same for both transports.
async function interop(client: McpClient, seen: ReturnType<typeof handlers>): Promise<void> {
  assert.equal(client.era, "legacy");
  assert.equal(client.protocolVersion, "2025-11-25");
  // Tools that need a client capability are registered once the client is known.
  const wanted = ["trigger-sampling-request", "trigger-elicitation-request"];
  let names: string[] = [];
  for (let i = 0; i < 50; i++) {
    names = (await client.listTools()).map((t) => t.name);
    if (wanted.every((n) => names.includes(n))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const n of wanted) assert.ok(names.includes(n), names.join(", "));
  assert.deepEqual((await client.callTool("echo", { message: "both eras" })).content, [{ type: "text", text: "Echo: both eras" }]);
  const resources = await client.listResources();
  const first = resources[0];
  assert.ok(first, "server-everything lists resources");
  const contents = await client.readResource(first.uri);
  assert.equal(contents[0]?.uri, first.uri);
  const prompt = await client.getPrompt("simple-prompt");
  assert.ok(prompt.messages.length > 0);
  // A new session resource is announced with notifications/resources/list_changed.
  const kinds: ListKind[] = [];
  client.onListChanged((k) => kinds.push(k));
  await client.callTool("gzip-file-as-resource", { name: "hello.gz", data: "data:text/plain;base64,aGVsbG8=", outputType: "resourceLink" });
  await waitFor(() => kinds.includes("resources"));
  // The server's requests are answered by the host handlers.
  const sampled = await client.callTool("trigger-sampling-request", { prompt: "Say hi", maxTokens: 20 });
  assert.match(textOf(sampled), /sampled by the host/);
  assert.equal(seen.samples.length, 1);
  const elicited = await client.callTool("trigger-elicitation-request", {});
  assert.equal(elicited.isError, false);
  // Fields left empty took the schema's defaults.
  assert.match(textOf(elicited), /Name: Ada Lovelace/);
  assert.match(textOf(elicited), /Favorite Integer: 42/);
  assert.equal(seen.forms.length, 1);
}

test("V1, V5, V6: server-everything over stdio: fallback to initialize, list, call, read, prompt, list_changed, sampling and elicitation", { timeout: 60_000 }, async () => {
  const seen = handlers();
  const { client, out } = await connectRecorded(["node", everything, "stdio"], { handlers: seen.handlers });
  await using(client, (c) => interop(c, seen));
  const methods = sent(readWire(out)).map((m) => m.method);
  assert.deepEqual(methods.slice(0, 2), ["server/discover", "initialize"]);
});

test("V1, V5, V6: server-everything over Streamable HTTP on 127.0.0.1: the same steps", { timeout: 60_000 }, async () => {
  const server = await startEverything();
  try {
    const seen = handlers();
    await using(await connectHttp(server.url, { handlers: seen.handlers }), (c) => interop(c, seen));
  } finally {
    await server.stop();
  }
});
