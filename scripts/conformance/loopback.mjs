// Preload for the conformance runner (node --import): its scenario servers call
// listen(0) with no host, which binds every interface, and read the port right
// away. Here each such listen binds 127.0.0.1 instead, still synchronously: a TCP
// handle is bound first and the server listens on that handle.
import net from "node:net";

const { TCP, constants } = process.binding("tcp_wrap");
const originalListen = net.Server.prototype.listen;

net.Server.prototype.listen = function listen(...args) {
  const first = args[0];
  const portOnly = first === undefined || typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first)) || typeof first === "function";
  const hostless = portOnly && (args.length < 2 || typeof args[1] === "function" || typeof args[1] === "number");
  if (!hostless) return originalListen.apply(this, args);
  const callback = typeof args[args.length - 1] === "function" ? args[args.length - 1] : undefined;
  const handle = new TCP(constants.SERVER);
  const port = typeof first === "number" || typeof first === "string" ? Number(first) : 0;
  const err = handle.bind("127.0.0.1", port);
  if (err) throw new Error(`loopback preload: bind failed (${err})`);
  return callback ? originalListen.call(this, handle, callback) : originalListen.call(this, handle);
};
