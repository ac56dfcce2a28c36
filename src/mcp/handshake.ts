/**
 * How a connection starts (V1, V2, S5): the modern `server/discover` probe, the
 * legacy `initialize` handshake, the fallback between them, and the era
 * remembered per server.
 *
 * @module
 */
import {
  CancelledError,
  ConnectionClosedError,
  JsonRpcError,
  LimitError,
  ProtocolError,
  UnsupportedVersionError,
  YadaError,
} from "../errors.js";
import type { JsonRpcSession } from "../jsonrpc/session.js";
import type { ClientOptions } from "./client-options.js";
import { DEFAULT_DISCOVER_TIMEOUT_MS, MAX_ERA_CACHE_ENTRIES, MAX_QUOTED_CHARS, MAX_QUOTED_TEXT_CHARS } from "../limits.js";
import { isRecord, readFields, type JsonRecord } from "./fields.js";
import type { ServerInfo } from "./types.js";
import {
  isModernErrorCode,
  isSupportedLegacyVersion,
  isSupportedModernVersion,
  LATEST_LEGACY_VERSION,
  LATEST_MODERN_VERSION,
  META,
  MODERN_ERRORS,
  pickVersion,
  SUPPORTED_VERSIONS,
  type Era,
} from "./versions.js";

/** What the start of a connection established. */
export interface Established {
  era: Era;
  protocolVersion: string;
  serverInfo: ServerInfo;
  capabilities: JsonRecord;
  instructions: string | undefined;
}

/** Who the client is, as sent to the server. */
export interface ClientIdentity {
  clientInfo: JsonRecord;
  capabilities: JsonRecord;
}

// V2: "Clients SHOULD cache the result for the lifetime of the server process (stdio)
// or origin (HTTP)". Keyed by the transport's server key; bounded, oldest out first.
const eraCache = new Map<string, Era>();

/** The era remembered for a server, if any. */
export function rememberedEra(key: string): Era | undefined {
  return eraCache.get(key);
}

/** Remembers the era of a server. */
export function rememberEra(key: string, era: Era): void {
  eraCache.delete(key);
  eraCache.set(key, era);
  // One entry is added at a time, so at most one is over the bound.
  if (eraCache.size > MAX_ERA_CACHE_ENTRIES) eraCache.delete(eraCache.keys().next().value as string);
}

/** Forgets what was remembered about one server, or about every server. */
export function forgetServerEra(key?: string): void {
  if (key === undefined) eraCache.clear();
  else eraCache.delete(key);
}

/** The `_meta` every modern request carries (spec 2026-07-28 "_meta"). */
export function modernMeta(version: string, who: ClientIdentity, logLevel: string | undefined): JsonRecord {
  const meta: JsonRecord = {
    [`${META}protocolVersion`]: version,
    [`${META}clientCapabilities`]: modernCapabilities(who.capabilities),
    [`${META}clientInfo`]: who.clientInfo,
  };
  if (logLevel !== undefined) meta[`${META}logLevel`] = logLevel;
  return meta;
}

// The 2026-07-28 roots capability is `{}`: notifications/roots/list_changed is gone,
// so the legacy `listChanged` flag would promise something that does not exist.
function modernCapabilities(capabilities: JsonRecord): JsonRecord {
  const roots = capabilities.roots;
  if (!isRecord(roots) || !("listChanged" in roots)) return capabilities;
  const { listChanged: _dropped, ...rest } = roots;
  return { ...capabilities, roots: rest };
}

/** The outcome of the `server/discover` probe: the modern era established, or why the server is taken as legacy. */
export type Probe = Established | string;

/**
 * Probes with `server/discover` (V2). A discover result, or a modern JSON-RPC
 * error, identifies a modern server; any other answer, or none within
 * `timeoutMs`, a legacy one (the fallback is never keyed to one error code).
 *
 * @throws ConnectionClosedError when the server went away; CancelledError when the
 * caller aborted; UnsupportedVersionError when no revision is shared; JsonRpcError
 * for a modern error that is not about the version (e.g. a missing capability).
 */
export async function probeModern(
  session: JsonRpcSession,
  name: string,
  who: ClientIdentity,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Probe> {
  let version: string = LATEST_MODERN_VERSION;
  for (let attempt = 0; attempt < 2; attempt++) {
    session.transport.setProtocolVersion?.(version);
    let result: JsonRecord;
    try {
      result = await session.request("server/discover", { _meta: modernMeta(version, who, undefined) }, { timeoutMs, signal });
    } catch (e) {
      if (e instanceof ConnectionClosedError || e instanceof CancelledError || e instanceof LimitError) throw e;
      // An OAuth failure (a login that timed out or was denied) is no era answer: initialize would
      // log in again. By code: the OAuth error class stays out of bundles without the OAuth client.
      if (e instanceof YadaError && e.code === "oauth") throw e;
      if (signal.aborted) throw e;
      if (e instanceof JsonRpcError && isModernErrorCode(e.rpcCode)) {
        if (e.rpcCode !== MODERN_ERRORS.unsupportedProtocolVersion) throw e;
        const supported = isRecord(e.data) ? e.data.supported : undefined;
        const next = pickVersion(supported);
        if (next === undefined) throw noSharedVersion(name, supported);
        if (isSupportedLegacyVersion(next)) return `the server prefers ${next}`;
        // One retry, with the version the server names (even the one just sent).
        version = next;
        continue;
      }
      return e instanceof YadaError ? `${e.code}: ${e.message}` : String(e);
    }
    return parseDiscover(name, result);
  }
  throw new UnsupportedVersionError(`${name}: no protocol revision could be agreed`, version);
}

function noSharedVersion(name: string, supported: unknown): UnsupportedVersionError {
  return unsupported(name, Array.isArray(supported) ? supported.filter((v) => typeof v === "string").join(", ").slice(0, MAX_QUOTED_TEXT_CHARS) : "");
}

function unsupported(name: string, offered: string): UnsupportedVersionError {
  return new UnsupportedVersionError(`${name} offers protocol revisions '${offered}'; yada speaks only ${SUPPORTED_VERSIONS.join(", ")}`, offered);
}

function parseDiscover(name: string, result: JsonRecord): Probe {
  if (!Array.isArray(result.supportedVersions) || !isRecord(result.capabilities)) {
    // Not a discover result: whatever answered does not speak the modern era.
    return "not a server/discover result";
  }
  const where = `${name}: server/discover`;
  const type = result.resultType;
  if (type !== undefined && type !== "complete") throw new ProtocolError(`${where}: unexpected resultType`);
  const chosen = pickVersion(result.supportedVersions);
  if (chosen === undefined) throw noSharedVersion(name, result.supportedVersions);
  if (!isSupportedModernVersion(chosen)) return `the server's newest shared revision is ${chosen}`;
  const info = isRecord(result._meta) ? result._meta[`${META}serverInfo`] : undefined;
  return established("modern", chosen, isServerInfo(info) ? info : { name: "", version: "" }, result, where);
}

function isServerInfo(v: unknown): v is ServerInfo {
  return isRecord(v) && typeof v.name === "string" && typeof v.version === "string";
}

// What both handshakes keep of the server's answer, checked.
function established(era: Era, protocolVersion: string, serverInfo: ServerInfo, result: JsonRecord, where: string): Established {
  return readFields(result, where, { capabilities: "object", instructions: "string?" }, { era, protocolVersion, serverInfo });
}

/**
 * The legacy handshake (V1, S5): `initialize` with the newest legacy revision,
 * the answer's revision checked, then `notifications/initialized`.
 *
 * @throws UnsupportedVersionError when the server answers a revision yada does not speak.
 * @throws ProtocolError for a malformed answer; the errors of the request itself.
 */
export async function initializeLegacy(
  session: JsonRpcSession,
  name: string,
  who: ClientIdentity,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Established> {
  const result = await session.request(
    "initialize",
    { protocolVersion: LATEST_LEGACY_VERSION, capabilities: who.capabilities, clientInfo: who.clientInfo },
    { signal, timeoutMs },
  );
  const version = result.protocolVersion;
  if (!isSupportedLegacyVersion(version)) {
    throw unsupported(name, typeof version === "string" ? version.slice(0, MAX_QUOTED_CHARS) : typeof version);
  }
  const where = `${name}: initialize`;
  if (!isServerInfo(result.serverInfo)) throw new ProtocolError(`${where}: "serverInfo" needs a string name and version`);
  const out = established("legacy", version, result.serverInfo, result, where);
  session.transport.setProtocolVersion?.(version);
  // S5: sent as a notification, not awaited for an answer; failing to deliver it fails the connect.
  await session.notify("notifications/initialized");
  return out;
}

/**
 * Establishes the protocol era (V2, S5): the modern probe unless the era is
 * `legacy` or remembered so, then `initialize` when the server is not modern; the
 * outcome is remembered for `key`. A server remembered as legacy that answers
 * `initialize` with a modern error is probed again, once.
 *
 * @throws UnsupportedVersionError (`unsupported_version`) when no revision is shared,
 * or `era: "modern"` and the server is not; the errors of the requests themselves.
 */
export async function establish(
  session: JsonRpcSession,
  name: string,
  who: ClientIdentity,
  options: Pick<ClientOptions, "era" | "discoverTimeoutMs" | "logger">,
  key: string,
  handshakeMs: number,
  signal: AbortSignal,
): Promise<Established> {
  const era = options.era ?? "auto";
  const remembered = rememberedEra(key);
  if (era === "modern" || (era === "auto" && remembered !== "legacy")) {
    const probeMs = era === "modern" ? handshakeMs : Math.min(options.discoverTimeoutMs ?? DEFAULT_DISCOVER_TIMEOUT_MS, handshakeMs);
    // Over HTTP the aborted POST already cancels the probe (2026-07-28); a
    // notifications/cancelled POST would reach a legacy server before initialize.
    // (The session is new, so cancel notifications are on before and after.)
    session.cancelNotifications = session.transport.kind !== "http";
    const probe = await probeModern(session, name, who, probeMs, signal).finally(() => (session.cancelNotifications = true));
    if (typeof probe !== "string") {
      rememberEra(key, "modern");
      return probe;
    }
    if (era === "modern") throw new UnsupportedVersionError(`${name} does not speak the modern protocol era (${probe})`, "");
    options.logger?.("info", "no modern era; falling back to initialize", { server: name, reason: probe });
    session.transport.setProtocolVersion?.(undefined);
  }
  let established: Established;
  try {
    established = await initializeLegacy(session, name, who, handshakeMs, signal);
  } catch (e) {
    // The remembered era was wrong (the server changed, or its probe answer came too
    // late): a modern error to initialize sends us back to the modern probe, once.
    if (era === "auto" && remembered === "legacy" && e instanceof JsonRpcError && isModernErrorCode(e.rpcCode)) {
      forgetServerEra(key);
      options.logger?.("info", "remembered as legacy but answers as modern; probing again", { server: name });
      return establish(session, name, who, options, key, handshakeMs, signal);
    }
    throw e;
  }
  if (era === "auto") rememberEra(key, "legacy");
  return established;
}
