// The wire of the Node adapter's tests (U7): a handler served by toNodeListener on a
// real node:http server on 127.0.0.1, and raw bytes sent to it as a client would.
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { toNodeListener, type NodeListenerOptions } from "../../src/node/fetch-adapter.js";

export type Handler = (request: Request) => Promise<Response>;

/** `handler` on 127.0.0.1, port 0, through toNodeListener with `options` (or options made from the port). */
export async function serve(handler: Handler, options: NodeListenerOptions | ((port: number) => NodeListenerOptions) = {}): Promise<{ origin: string; port: number; close(): Promise<void> }> {
  let listener: ReturnType<typeof toNodeListener> | undefined;
  const server: Server = createServer((req, res) => listener!(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  listener = toNodeListener(handler, typeof options === "function" ? options(port) : options);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Sends raw bytes and resolves with what came back before the server closed (bounded). */
export function raw(port: number, text: string, then?: (write: (s: string) => void) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    const timer = setTimeout(() => (socket.destroy(), resolve(got)), 10_000);
    socket.on("data", (d) => (got += d.toString("latin1")));
    socket.on("close", () => (clearTimeout(timer), resolve(got)));
    socket.on("error", (e) => (clearTimeout(timer), got ? resolve(got) : reject(e)));
    socket.write(text);
    then?.((s) => socket.write(s));
  });
}
