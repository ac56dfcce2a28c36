// Y6 (H14): fuzzing the HTTP+SSE `endpoint` event (2024-11-05): a LegacySseTransport
// driven through its `fetch` option, with no socket. The stream announces an endpoint
// that is a relative path, the stream's own origin, another origin in every disguise
// (scheme change, `//host`, backslashes, credentials, odd case, tabs), empty, oversized
// or mutated bytes. Invariant: a message is POSTed only to the stream's own origin,
// without credentials, at the URL the event names; everything else is a typed error.
import { YadaError } from "../../src/errors.js";
import { MAX_LEGACY_ENDPOINT_CHARS } from "../../src/limits.js";
import { LegacySseTransport } from "../../src/transport/legacy-sse.js";
import type { TransportSink } from "../../src/transport/types.js";
import { check, chunked, enc, int, mutate, pick, rngFor, type FuzzTarget, type Rng } from "./fuzz-gen.js";

const STREAMS = ["http://127.0.0.1:7/sse", "https://mcp.example/sse", "https://mcp.example/a/b/sse?k=1"];
const ENDPOINTS = [
  "/messages?sessionId=abc", "messages", "./m?x=1", "../m", "https://mcp.example/messages", "http://127.0.0.1:7/m", "  /m  ",
  "https://evil.example/m", "//evil.example/m", "\\\\evil.example/m", "/\\evil.example/m", "https://u:p@mcp.example/m", "https://mcp.example@evil.example/",
  "http://mcp.example/m", "https://mcp.example:444/m", "https://MCP.EXAMPLE/m", "https://mcp.example:443/m", "http://127.0.0.1:8/m", "http://localhost:7/m",
  "/m\t?x", "javascript:alert(1)", "data:,x", "", " ", "x".repeat(MAX_LEGACY_ENDPOINT_CHARS + 1), "/" + "a".repeat(MAX_LEGACY_ENDPOINT_CHARS - 1),
  "https://mcp.example\u0000.evil/", "%2F%2Fevil.example/m", "/m#frag",
];

function streamBody(r: Rng): Uint8Array {
  let text = "";
  if (r() < 0.2) text += ": hello\n\n";
  if (r() < 0.1) text += 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n';
  const endpoint = r() < 0.9 ? pick(r, ENDPOINTS) : pick(r, ENDPOINTS) + pick(r, ENDPOINTS);
  const lines = r() < 0.1 ? endpoint.split("?").map((p) => `data: ${p}`).join("\n") : `data: ${endpoint}`;
  text += `${r() < 0.95 ? "event: endpoint\n" : ""}${lines}\n\n`;
  if (r() < 0.2) text += `event: endpoint\ndata: ${pick(r, ENDPOINTS)}\n\n`;
  const bytes = enc.encode(text);
  return r() < 0.15 ? mutate(r, bytes) : bytes;
}

/** What the 2024-11-05 rule allows: the endpoint resolved against the stream URL, on its origin, without credentials. */
function allowed(url: string, streamUrl: string): boolean {
  const u = new URL(url);
  return u.origin === new URL(streamUrl).origin && u.username === "" && u.password === "";
}

const sink: TransportSink = { message() {}, requestError() {}, closed() {} };

export const legacy: FuzzTarget = {
  name: "legacy",
  async run(seed, index) {
    const r = rngFor(seed, index);
    const streamUrl = pick(r, STREAMS);
    const body = streamBody(r);
    const posts: string[] = [];
    let gets = 0;
    const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if ((init?.method ?? "GET") === "POST") {
        posts.push(url);
        return Promise.resolve(new Response(null, { status: 202 }));
      }
      gets++;
      check(url === new URL(streamUrl).href, "the event stream was opened at another URL");
      const parts = chunked(r, body);
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          const p = parts.shift();
          if (p === undefined) c.close();
          else c.enqueue(p);
        },
      });
      return Promise.resolve(new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } }));
    };
    const t = new LegacySseTransport(streamUrl, { fetch, endpointTimeoutMs: 30 + int(r, 20), maxReconnectAttempts: 1 });
    try {
      await t.start(sink);
      await t.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    } catch (e) {
      check(e instanceof YadaError, `the transport threw an untyped error: ${String(e).slice(0, 200)}`);
    } finally {
      await t.close();
    }
    check(gets <= 3, `the stream was opened ${gets} times`);
    for (const p of posts) check(allowed(p, streamUrl), `a message was POSTed to ${p.slice(0, 100)} for a stream at ${streamUrl}`);
  },
};
