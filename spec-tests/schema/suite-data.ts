// The JSON-Schema-Test-Suite's files as the suite tests read them: the test
// files of a folder, and the registry of remotes and meta-schemas a dialect needs.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

// Tests run from the repository root; the suite is test data of the repository.
export const root = process.cwd();
export const suite = join(root, "fixtures", "json-schema-test-suite");

export interface SuiteTest {
  description: string;
  data: unknown;
  valid: boolean;
}
export interface SuiteCase {
  description: string;
  schema: unknown;
  tests: SuiteTest[];
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Every .json file below `dir`, sorted, depth first. */
export function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith(".json")) out.push(p);
  }
  return out;
}

/** The meta-schema files of a dialect (the suite ships none; the ajv dev dependency does). */
export function metaSchemaFiles(dialect: "draft7" | "draft2020-12"): string[] {
  const refs = join(root, "node_modules", "ajv", "dist", "refs");
  const metas =
    dialect === "draft7"
      ? [join(refs, "json-schema-draft-07.json")]
      : [join(refs, "json-schema-2020-12", "schema.json"), ...walk(join(refs, "json-schema-2020-12", "meta"))];
  return metas.filter((f) => existsSync(f));
}

/**
 * The suite's remotes, served from memory as http://localhost:1234/..., plus the
 * dialect's meta-schemas under their `$id` unless `withMeta` is false.
 */
export function registry(dialect: "draft7" | "draft2020-12", withMeta = true): Map<string, unknown> {
  const reg = new Map<string, unknown>();
  const remotes = join(suite, "remotes");
  for (const file of walk(remotes)) {
    const rel = relative(remotes, file).split(sep).join("/");
    const top = rel.split("/")[0] ?? "";
    // Root-level files plus this dialect's folder (suite README).
    if (rel.includes("/") && top !== dialect && !top.startsWith("baseUriChange") && top !== "nested") continue;
    reg.set(`http://localhost:1234/${rel}`, readJson(file));
  }
  if (!withMeta) return reg;
  for (const file of metaSchemaFiles(dialect)) {
    const doc = readJson(file) as { $id?: unknown };
    if (typeof doc.$id === "string") reg.set(doc.$id, doc);
  }
  return reg;
}
