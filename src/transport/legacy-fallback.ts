/**
 * The HTTP+SSE fallback (H14) as a module the host passes to `HttpTransport`:
 * a client that only speaks to Streamable HTTP servers does not carry the
 * 2024-11-05 transport, so a bundler drops it when unused.
 *
 * @module
 */
import type { LegacyFallback } from "./http.js";
import { LegacySseTransport } from "./legacy-sse.js";

/**
 * The HTTP+SSE fallback (H14), for `new HttpTransport(url, { fallback: legacySse })`:
 * when a Streamable HTTP `initialize` is answered HTTP 400, 404 or 405,
 * `McpClient.connect` connects again over a {@link LegacySseTransport} to the same
 * URL with the same fetch, logger, idle bound, event bound, headers, `auth` and
 * `name`, within
 * what is left of the handshake bound. `yada-mcp/node`'s `HttpTransport`,
 * `connectMcp`'s HTTP servers and the CLI pass it themselves.
 *
 * @throws ConfigError (`config`) as the {@link LegacySseTransport} constructor.
 *
 * @example
 * ```ts
 * import { HttpTransport, legacySse, McpClient } from "yada-mcp";
 * const client = await McpClient.connect(new HttpTransport("http://127.0.0.1:3001/mcp", { fallback: legacySse }));
 * ```
 */
export const legacySse: LegacyFallback = (url, options) => new LegacySseTransport(url, options);
