/**
 * How the Streamable HTTP transport judges an answer: which frame is the awaited
 * response (H3), the errors for answers it refuses (H8, H11, status codes), and
 * the short trailing read after the response (H4).
 *
 * @module
 */
import { HttpError } from "../errors.js";
import type { RequestId } from "../jsonrpc/messages.js";
import { HTTP_TRAILING_READ_MS } from "../limits.js";
import { isRec } from "../util/record.js";
import type { Exchange } from "./http-exchange.js";

/**
 * H3: a frame is the response to `id` only if it has no `method`, has `result` or
 * `error`, and carries that id. Progress, log messages and server requests are not.
 */
export function isResponseTo(v: unknown, id: RequestId): boolean {
  return isRec(v) && !("method" in v) && ("result" in v || "error" in v) && v.id === id;
}

/** H8: an empty 2xx where a body was due. */
export function proxyError(description: string, status: number, what: string): HttpError {
  return new HttpError(status, `${description}: ${what} got an empty HTTP ${status} answer: a proxy answered, not the MCP server`);
}

/**
 * The error for a non-2xx answer other than a session 404 (H11, 401 / 403, others).
 * A 401 or 403 is an authorization refusal before the request was taken: its error
 * says `notSent` (W5; a transport whose fetch is the host's own takes that back).
 */
export function statusError(description: string, res: Response, what: string): HttpError {
  const status = res.status;
  // Whether a challenge exists helps the host; its content may carry tokens.
  const challenge = res.headers.has("www-authenticate") ? "a WWW-Authenticate challenge is present" : "no WWW-Authenticate challenge";
  // H11: fetch is asked for `redirect: "error"`; a host fetch that answers a redirect
  // itself (an opaque redirect has status 0) is refused here.
  const why =
    res.type === "opaqueredirect" || status === 0 || (status >= 300 && status < 400)
      ? `got a redirect (HTTP ${status}), which is refused`
      : status === 401 || status === 403
        ? `was refused with HTTP ${status} (${challenge})`
        : `answered HTTP ${status}`;
  return new HttpError(status, `${description}: ${what} ${why}`, { notSent: status === 401 || status === 403 });
}

/**
 * H4: the call has returned. Frames that trail the response are still fed for a
 * short while, and a server that ends the stream right away keeps its connection
 * reusable; one that holds it open is cut at `HTTP_TRAILING_READ_MS`. `done` runs
 * at the end, once `feed` is no longer called.
 */
export async function trail(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  feed: (chunk: Uint8Array) => void,
  ex: Exchange,
  done: () => void,
): Promise<void> {
  ex.endIn(HTTP_TRAILING_READ_MS);
  try {
    for (;;) {
      const r = await reader.read();
      if (ex.cause !== undefined) break;
      if (r.done) {
        ex.ended();
        break;
      }
      feed(r.value);
    }
  } catch {
    // Cancelled at the bound, or the server cut the connection: both fine here.
  } finally {
    ex.finish();
    done();
  }
}
