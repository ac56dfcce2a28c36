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
  return typeof v === "string" && (LEGACY_VERSIONS as readonly string[]).includes(v);
}

/** Did this revision introduce structured tool output (outputSchema / structuredContent)? */
export function hasStructuredOutput(version: string): boolean {
  return version >= "2025-06-18";
}
