// A loopback HTTP server for tests that need one odd answer: each POST's body is
// read and parsed as one JSON-RPC message and handed to `answer` with the response.
import { createServer, type ServerResponse } from "node:http";

/** What a test server received: `{}` when the body was empty. */
export type PostedMessage = { id?: string | number; method?: string; params?: Record<string, unknown> };

/** A running loopback server; `close()` stops it. */
export interface LoopbackRpcServer {
  url: string;
  close(): void;
}

/** Starts a server on 127.0.0.1 (port 0) whose every POST is answered by `answer`. */
export async function startRpcServer(answer: (message: PostedMessage, res: ServerResponse) => void): Promise<LoopbackRpcServer> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => answer(body ? (JSON.parse(body) as PostedMessage) : {}, res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`, close: () => server.close() };
}

/** The answer of a legacy server to `initialize`, with the given capabilities. */
export const initializeResult = (capabilities: Record<string, unknown> = {}): Record<string, unknown> => ({
  protocolVersion: "2025-11-25",
  capabilities,
  serverInfo: { name: "h", version: "1" },
});
