// Paths the tests use. Tests run from the build tree (build/spec-tests/...), so the
// repository root is three levels above this module.
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";

/** The repository root. */
export const repoRoot = resolve(fileURLToPath(import.meta.url), "../../../..");
/** A path inside the repository. */
export const repoPath = (...parts: string[]): string => resolve(repoRoot, ...parts);
/** Test data of the repository (MCP schemas, the JSON Schema suite, provider streams): fixtures/. */
export const fixturePath = (...parts: string[]): string => repoPath("fixtures", ...parts);
/** A fixture server script. */
export const fixtureServer = (name: string): string => repoPath("fixtures", "servers", name);
