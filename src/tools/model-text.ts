/**
 * What the model may read of a failure (Y5). Error messages are written for the
 * host: they may name a server by its URL, whose path or query often carries a key,
 * and a closed connection's message carries the server's stderr, where secrets and
 * env values show up. The model gets the message without those.
 *
 * @module
 */
import { YadaError } from "../errors.js";

// Any absolute URL (scheme "://" up to whitespace or a quote), anywhere in a message.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]*/gi;

/**
 * The message of `error` fit for the model: a closed connection's message up to
 * its first `"; "` (how it ended, not its stderr or stray stdout, S4), and every URL
 * replaced by `<url>`. Servers are named by their configured name, which every
 * message of a connection made by `connectMcp` starts with.
 *
 * @example
 * ```ts
 * modelFacingMessage(new TransportError("HTTP server https://x.example/k/sk-1: reset")); // "HTTP server <url>: reset"
 * ```
 */
export function modelFacingMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : typeof error === "string" ? error : "the tool failed";
  if (error instanceof YadaError && error.code === "connection_closed") message = message.split("; ")[0] ?? "the connection closed";
  return message.replace(URL_IN_TEXT, "<url>");
}
