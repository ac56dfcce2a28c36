// V6: one set of host handlers serves both eras: legacy server requests
// (elicitation/create, sampling/createMessage, roots/list) and modern input_required
// rounds, against the dual-era server of the official SDK v2 packages. A capability
// is declared only when its handler is given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { JsonRpcError } from "../../src/errors.js";
import type { ClientHandlers, FormElicitation, SamplingRequest, UrlElicitation } from "../../src/mcp/handlers.js";
import type { McpClient } from "../../src/mcp/client.js";
import { rejection } from "../helpers/clients.js";
import { checkClientMessage } from "../helpers/schema.js";
import {
  assertModernRequests,
  connectDual,
  connectHttp,
  metaOf,
  posts,
  readWire,
  received,
  requestsOf,
  sent,
  startDualHttp,
  textOf,
  using,
  type WireLine,
} from "./support.js";

interface Seen {
  form: FormElicitation[];
  url: UrlElicitation[];
  sampling: SamplingRequest[];
  roots: number;
}

function hostHandlers(): { handlers: ClientHandlers; seen: Seen } {
  const seen: Seen = { form: [], url: [], sampling: [], roots: 0 };
  const handlers: ClientHandlers = {
    roots: () => {
      seen.roots++;
      return [{ uri: "file:///work/project", name: "project" }];
    },
    sampling: {
      handle: async (request) => {
        seen.sampling.push(request);
        return { role: "assistant", model: "host-model", content: { type: "text", text: "It is short." }, stopReason: "endTurn" };
      },
    },
    elicitation: {
      // The user leaves every field empty: the schema's defaults fill them.
      form: async (request) => {
        seen.form.push(request);
        return { action: "accept", content: {} };
      },
      url: async (request) => {
        seen.url.push(request);
        return { action: "accept" };
      },
    },
  };
  return { handlers, seen };
}

const DECLARED = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } };
// Revision 2026-07-28 has no roots list_changed notification, hence no listChanged flag.
const DECLARED_MODERN = { ...DECLARED, roots: {} };

async function exercise(client: McpClient): Promise<Record<string, string>> {
  return {
    greet: textOf(await client.callTool("greet", {})),
    summarize: textOf(await client.callTool("summarize", { text: "A long story about MCP." })),
    roots: textOf(await client.callTool("list-roots", {})),
    visit: textOf(await client.callTool("visit", {})),
  };
}

const EXPECTED = {
  greet: "Hello, friend.",
  summarize: "summary by host-model: It is short.",
  roots: "file:///work/project",
  visit: "consent: accept",
};

function checkSeen(seen: Seen, era: "legacy" | "modern"): void {
  assert.equal(seen.form.length, 1);
  assert.equal(seen.form[0]?.message, "What is your name?");
  assert.equal((seen.form[0]?.requestedSchema.properties as Record<string, { default?: unknown }>).name?.default, "friend");
  assert.equal(seen.sampling.length, 1);
  assert.deepEqual(seen.sampling[0]?.messages, [{ role: "user", content: { type: "text", text: "Summarize: A long story about MCP." } }]);
  assert.equal(seen.sampling[0]?.maxTokens, 64);
  assert.equal(seen.roots, 1);
  assert.equal(seen.url.length, 1);
  const url = seen.url[0];
  assert.equal(url?.url, "https://auth.example.com/sign-in?flow=42", "the full URL, for the user to examine");
  assert.equal(url?.domain, "auth.example.com", "the host to show prominently");
  // Legacy revisions correlate URL flows by elicitationId; 2026-07-28 by requestState.
  if (era === "legacy") assert.equal(typeof url?.elicitationId, "string");
  else assert.equal(url?.elicitationId, undefined);
}

const serverRequests = (wire: readonly WireLine[]) => received(wire).filter((m) => "method" in m && "id" in m).map((m) => m.method);

test("V6: the same host handlers answer legacy server requests and modern input_required rounds (form with defaults, URL, sampling, roots)", { timeout: 60_000 }, async () => {
  // Legacy: the server asks with requests of its own.
  const legacy = hostHandlers();
  const l = await connectDual({ era: "legacy", handlers: legacy.handlers });
  await using(l.client, async (client) => {
    assert.equal(client.era, "legacy");
    assert.deepEqual(await exercise(client), EXPECTED);
  });
  checkSeen(legacy.seen, "legacy");
  const legacyWire = readWire(l.out);
  assert.deepEqual(serverRequests(legacyWire).sort(), ["elicitation/create", "elicitation/create", "roots/list", "sampling/createMessage"]);
  const init = requestsOf(sent(legacyWire), "initialize")[0];
  assert.deepEqual(init?.params?.capabilities, DECLARED);
  for (const m of sent(legacyWire)) checkClientMessage("2025-11-25", m);

  // Modern over stdio: the same handlers answer input_required, and the server sends no requests.
  const modern = hostHandlers();
  const m = await connectDual({ handlers: modern.handlers });
  await using(m.client, async (client) => {
    assert.equal(client.era, "modern");
    assert.deepEqual(await exercise(client), EXPECTED);
  });
  checkSeen(modern.seen, "modern");
  const modernWire = readWire(m.out);
  assert.deepEqual(serverRequests(modernWire), []);
  assert.equal(requestsOf(sent(modernWire), "tools/call").length, 8, "each call once, then its retry");
  assertModernRequests(sent(modernWire), DECLARED_MODERN);

  // Modern over HTTP.
  const overHttp = hostHandlers();
  const server = await startDualHttp();
  try {
    await using(await connectHttp(server.url, { handlers: overHttp.handlers }), async (client) => assert.deepEqual(await exercise(client), EXPECTED));
    assertModernRequests(posts(server.requests).map((p) => p.body), DECLARED_MODERN);
  } finally {
    await server.close();
  }
  checkSeen(overHttp.seen, "modern");
});

test("V6: a declined elicitation reaches the server as decline in both eras", { timeout: 30_000 }, async () => {
  for (const era of ["legacy", "modern"] as const) {
    const { client } = await connectDual({ era, handlers: { elicitation: { form: async () => ({ action: "decline" }) } } });
    await using(client, async () => assert.equal(textOf(await client.callTool("greet", {})), "no greeting (decline)", era));
  }
});

test("V6: a URL elicitation is never fetched by the client; the handler decides", { timeout: 30_000 }, async () => {
  let hits = 0;
  const page = createServer((_req, res) => {
    hits++;
    res.end("sign in");
  });
  await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/consent`;
  try {
    for (const era of ["legacy", "modern"] as const) {
      const shown: UrlElicitation[] = [];
      const { client } = await connectDual({
        era,
        handlers: {
          elicitation: {
            url: async (request) => {
              shown.push(request);
              return { action: "decline" };
            },
          },
        },
      });
      await using(client, async () => assert.equal(textOf(await client.callTool("visit", { url })), "consent: decline", era));
      assert.equal(shown[0]?.url, url);
      assert.equal(shown[0]?.domain, "127.0.0.1");
    }
    assert.equal(hits, 0, "the URL was neither pre-fetched nor opened without consent");
  } finally {
    page.closeAllConnections();
    await new Promise((r) => page.close(r));
  }
});

test("V6: capabilities are declared only for the handlers given, and the server asks for nothing else", { timeout: 30_000 }, async () => {
  let rootsAsked = 0;
  const roots = () => {
    rootsAsked++;
    return [{ uri: "file:///only/roots" }];
  };
  // Modern: the capabilities ride on every request; the server refuses to ask for an undeclared one (-32021).
  const m = await connectDual({ handlers: { roots } });
  await using(m.client, async (client) => {
    assert.equal(textOf(await client.callTool("list-roots", {})), "file:///only/roots");
    const e = await rejection(client.callTool("greet", {}));
    assert.ok(e instanceof JsonRpcError && e.rpcCode === -32021, String(e));
  });
  const modernSent = sent(readWire(m.out));
  for (const r of modernSent.filter((x) => "id" in x)) assert.deepEqual(metaOf(r)["io.modelcontextprotocol/clientCapabilities"], { roots: {} });
  // Legacy: declared once in initialize.
  const l = await connectDual({ era: "legacy", handlers: { roots } });
  await using(l.client, async (client) => {
    assert.equal(textOf(await client.callTool("list-roots", {})), "file:///only/roots");
    const r = await client.callTool("greet", {});
    assert.equal(r.isError, true, "the server could not ask for a name");
  });
  const legacyWire = readWire(l.out);
  assert.deepEqual(requestsOf(sent(legacyWire), "initialize")[0]?.params?.capabilities, { roots: { listChanged: true } });
  assert.ok(!serverRequests(legacyWire).includes("elicitation/create"));
  assert.equal(rootsAsked, 2);
  // No handlers at all: nothing declared.
  const none = await connectDual();
  await using(none.client, async (client) => void (await client.listTools()));
  for (const r of sent(readWire(none.out)).filter((x) => "id" in x)) assert.deepEqual(metaOf(r)["io.modelcontextprotocol/clientCapabilities"], {});
});
