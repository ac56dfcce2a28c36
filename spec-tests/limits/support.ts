// What the bound-crossing tests share: a predicate for the typed `limit` error
// that names its bound, and a small stdio server given as code.
import type { LimitError } from "../../src/errors.js";

/** A rejection predicate: a LimitError (`limit`) naming `name`, with `max` as its value. */
export function limitNamed(name: string, max?: number): (e: unknown) => boolean {
  return (e: unknown) => {
    const l = e as Partial<LimitError>;
    return l?.code === "limit" && l.limit === name && (max === undefined || l.max === max);
  };
}

/**
 * A one-file 2025-11-25 stdio server declaring `capabilities`: `handler(m, send)`
 * gets every other message and returns a request's result (or a Promise of it),
 * or undefined to answer nothing. `mode` is its `process.argv[1]`.
 */
export function stdioServer(handler: string, capabilities: Record<string, unknown>, mode = ""): string[] {
  const script = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const mode = process.argv[1] ?? "";
const handler = ${handler};
rl.on("line", async (l) => {
  const m = JSON.parse(l);
  if (m.method === undefined) return;
  if (m.method === "server/discover") return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: ${JSON.stringify(capabilities)}, serverInfo: { name: "bounds", version: "1" } } });
  const result = await handler(m, send);
  if (m.id !== undefined && result !== undefined) send({ jsonrpc: "2.0", id: m.id, result });
});`;
  return ["-e", script, mode];
}
