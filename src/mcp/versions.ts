/**
 * The protocol revisions yada speaks, and the rules for choosing one. Every piece
 * of era / version logic lives here (V1, V2).
 *
 * @module
 */

/** The legacy (initialize-based) revisions, newest first (V1). */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** A legacy revision. */
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

/** The revision the client asks for in `initialize` (V1). */
export const LATEST_LEGACY_VERSION: LegacyVersion = "2025-11-25";

/** Is `v` a legacy revision yada accepts from a server's initialize answer (V1)? */
export function isSupportedLegacyVersion(v: unknown): v is LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(v);
}

/** The modern (stateless, per-request `_meta`) revisions yada speaks, newest first (V2). */
export const MODERN_VERSIONS = ["2026-07-28"] as const;

/** A modern revision. */
export type ModernVersion = (typeof MODERN_VERSIONS)[number];

/** The revision the client asks for in the modern era (V2). */
export const LATEST_MODERN_VERSION: ModernVersion = "2026-07-28";

/** Every revision yada speaks, newest first. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

/** Is `v` a modern revision yada speaks? */
export function isSupportedModernVersion(v: unknown): v is ModernVersion {
  return (MODERN_VERSIONS as readonly unknown[]).includes(v);
}

/** The protocol eras: `legacy` (initialize handshake) and `modern` (2026-07-28 and later). */
export type Era = "legacy" | "modern";

/**
 * The prefix of the reserved `_meta` keys of the modern era (spec 2026-07-28
 * "_meta"): `protocolVersion`, `clientCapabilities`, `clientInfo`, `logLevel`,
 * `serverInfo`, `subscriptionId`.
 */
export const META = "io.modelcontextprotocol/";

/** JSON-RPC error codes that only a modern server sends (spec 2026-07-28 "Error Codes"). */
export const MODERN_ERRORS = {
  headerMismatch: -32020,
  missingClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** Is `code` an error code that identifies a modern server? */
export function isModernErrorCode(code: number): boolean {
  return (Object.values(MODERN_ERRORS) as number[]).includes(code);
}

/**
 * Picks the newest revision both sides speak from a server's list (discover's
 * `supportedVersions`, or `data.supported` of -32022), or `undefined`.
 */
export function pickVersion(offered: unknown): string | undefined {
  if (!Array.isArray(offered)) return undefined;
  return SUPPORTED_VERSIONS.find((v) => offered.includes(v));
}
