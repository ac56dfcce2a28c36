/**
 * Paginated listing (V3): one page with its cursor checked, or every page up to
 * `MAX_LIST_PAGES` and `MAX_LIST_ITEMS`, a repeated cursor refused, and the
 * modern era's `ttlMs` cache (V2).
 *
 * @module
 */
import { LimitError, ProtocolError } from "../errors.js";
import type { RequestOptions } from "../jsonrpc/session.js";
import { MAX_CURSOR_CHARS, MAX_LIST_ITEMS, MAX_LIST_PAGES, MAX_LIST_TTL_MS } from "../limits.js";
import type { Shared } from "./client-state.js";
import { readList } from "./fields.js";
import type { JsonRecord } from "./types.js";

/** How a list sends one page's request: `McpClient.request`. */
export type ListRequest = (method: string, params: JsonRecord, options: RequestOptions) => Promise<JsonRecord>;

/** One page of a list (V3): its items, parsed, the next cursor and the page's ttlMs. @throws ProtocolError (`protocol`), LimitError (`limit`). */
export async function listPage<T>(
  s: Shared,
  request: ListRequest,
  method: string,
  key: string,
  parse: (v: unknown, where: string) => T,
  cursor: string | undefined,
  options: RequestOptions,
): Promise<{ items: T[]; next: string | undefined; ttlMs: unknown }> {
  const result = await request(method, cursor === undefined ? {} : { cursor }, options);
  const where = `${s.name}: ${method}`;
  const next = result.nextCursor ?? undefined; // null is no cursor
  if (next !== undefined && typeof next !== "string") throw new ProtocolError(`${where}: "nextCursor" must be a string`);
  if (next && next.length > MAX_CURSOR_CHARS) {
    throw new LimitError("MAX_CURSOR_CHARS", MAX_CURSOR_CHARS, `${where}: a cursor is longer than ${MAX_CURSOR_CHARS} characters`);
  }
  return { items: readList(result, key, where, parse), next, ttlMs: result.ttlMs };
}

/**
 * Every page of a list (V3), from the modern era's cache while it is fresh (V2).
 *
 * @throws LimitError (`limit`) past `MAX_LIST_PAGES` pages or `MAX_LIST_ITEMS` items; ProtocolError (`protocol`) for a repeated cursor.
 */
export async function listAll<T>(
  s: Shared,
  request: ListRequest,
  method: string,
  key: string,
  parse: (v: unknown, where: string) => T,
  options: { signal?: AbortSignal; timeoutMs?: number | null },
): Promise<T[]> {
  const cached = s.listCache.get(method);
  if (cached && Date.now() < cached.until) return [...(cached.items as T[])];
  const where = `${s.name}: ${method}`;
  const opts: RequestOptions = { signal: options.signal };
  if (options.timeoutMs !== undefined) opts.timeoutMs = options.timeoutMs;
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let ttl = Infinity;
  for (let page = 1; ; page++) {
    if (page > MAX_LIST_PAGES) throw new LimitError("MAX_LIST_PAGES", MAX_LIST_PAGES, `${where} has more than ${MAX_LIST_PAGES} pages`);
    const { items: got, next, ttlMs } = await listPage(s, request, method, key, parse, cursor, opts);
    // Each page's ttlMs bounds the freshness of the whole list; absent means 0.
    ttl = Math.min(ttl, typeof ttlMs === "number" && ttlMs > 0 ? ttlMs : 0);
    if (items.length + got.length > MAX_LIST_ITEMS) {
      throw new LimitError("MAX_LIST_ITEMS", MAX_LIST_ITEMS, `${where} lists more than ${MAX_LIST_ITEMS} items`);
    }
    items.push(...got);
    if (next === undefined) break;
    if (seen.has(next)) throw new ProtocolError(`${where}: the server repeated a cursor (page ${page + 1})`);
    seen.add(next);
    cursor = next;
  }
  if (s.era === "modern" && ttl > 0) s.listCache.set(method, { items: [...items], until: Date.now() + Math.min(ttl, MAX_LIST_TTL_MS) });
  return items;
}
