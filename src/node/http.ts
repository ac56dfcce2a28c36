/**
 * The Node flavour of {@link WebHttpTransport}: the HTTP+SSE fallback (H14) on by default.
 *
 * @module
 */
import { HttpTransport as WebHttpTransport, type HttpTransportOptions } from "../transport/http.js";
import { legacySse } from "../transport/legacy-fallback.js";

/**
 * {@link WebHttpTransport} with `fallback: legacySse` unless `options` gives its own:
 * `McpClient.connect` falls back to HTTP+SSE when a Streamable HTTP `initialize`
 * is answered HTTP 400, 404 or 405 (H14).
 *
 * @throws ConfigError (`config`) as the {@link WebHttpTransport} constructor.
 *
 * @example
 * ```ts
 * import { HttpTransport, McpClient } from "yada-mcp/node";
 * const client = await McpClient.connect(new HttpTransport("http://127.0.0.1:3001/mcp"));
 * ```
 */
export class HttpTransport extends WebHttpTransport {
  constructor(url: string | URL, options: HttpTransportOptions = {}) {
    super(url, typeof options === "object" && options !== null ? { fallback: legacySse, ...options } : options);
  }
}
