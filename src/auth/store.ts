/**
 * The token store the host provides (A5): opaque string values under string keys,
 * each with a version, and a compare-and-swap write so that two processes (or two
 * tabs) refreshing the same token at once end with one winner. The OAuth layer
 * validates every value it reads back: a store is outside input too.
 *
 * Keys are `client <issuer>` (a registered client, per authorization server, A4),
 * `tokens <resource>` (the tokens for one MCP server, carrying their issuer) and
 * `flow <state>` (a started authorization, A3; deleted when used, or once expired), `flows`
 * (the index of open flows, for that deletion) and `dpop` (the DPoP key, only with
 * `persistDpopKey`).
 *
 * @module
 */

/** A stored value and its version (opaque; changes on every write). */
export interface StoredValue {
  value: string;
  version: string;
}

/**
 * Where OAuth clients, tokens and open flows live. Implementations: {@link MemoryTokenStore}
 * (web entry), `FileTokenStore` (Node entry, mode 0600, atomic replace).
 *
 * @example
 * ```ts
 * // A store over the browser's sessionStorage (one tab: no concurrent writers).
 * const tabStore: TokenStore = {
 *   async get(key) { const v = sessionStorage.getItem(key); return v === null ? undefined : { value: v, version: v }; },
 *   async set(key, value, ifVersion) {
 *     if ((sessionStorage.getItem(key) ?? undefined) !== ifVersion) return false;
 *     if (value === undefined) sessionStorage.removeItem(key); else sessionStorage.setItem(key, value);
 *     return true;
 *   },
 * };
 * ```
 */
export interface TokenStore {
  /** The value under `key`, or undefined. */
  get(key: string): Promise<StoredValue | undefined>;
  /**
   * Writes `value` (undefined deletes) only if the current version is `ifVersion`
   * (undefined: only if absent). Resolves false, writing nothing, otherwise.
   */
  set(key: string, value: string | undefined, ifVersion: string | undefined): Promise<boolean>;
}

/**
 * A {@link TokenStore} in memory: gone with the process or the page. The default
 * of {@link OAuthClient}.
 *
 * @example
 * ```ts
 * const store = new MemoryTokenStore();
 * await store.set("k", "v", undefined); // true
 * ```
 */
export class MemoryTokenStore implements TokenStore {
  readonly #map = new Map<string, StoredValue>();
  #counter = 0;

  async get(key: string): Promise<StoredValue | undefined> {
    return this.#map.get(key);
  }

  async set(key: string, value: string | undefined, ifVersion: string | undefined): Promise<boolean> {
    if (this.#map.get(key)?.version !== ifVersion) return false;
    if (value === undefined) this.#map.delete(key);
    else this.#map.set(key, { value, version: String(++this.#counter) });
    return true;
  }
}
