// Y1–Y8: SECURITY.md names, for every defence, the test that proves it. Each cited
// file must exist and each quoted title must be a test in it (a title cut with "…"
// must start one; a title built from a template matches it), so the page cannot
// go on citing a test that was renamed or removed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { repoPath } from "../helpers/paths.js";

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A test title of a file: its text (a template without its `${…}` parts) and a pattern of all its instances. */
interface Title {
  text: string;
  instances: RegExp;
}

/** The test titles of a test file: string literals and template literals. */
function titlesOf(source: string): Title[] {
  const titles: Title[] = [];
  for (const m of source.matchAll(/\btest\(\s*(?:"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`)/g)) {
    const pieces = m[1] !== undefined ? [JSON.parse(`"${m[1]}"`) as string] : (m[2] ?? "").split(/\$\{[^}]*\}/).map((p) => p.replace(/\\(.)/g, "$1"));
    titles.push({ text: pieces.join(""), instances: new RegExp(`^${pieces.map(escape).join(".*")}$`) });
  }
  return titles;
}

/** A title cited with "…" as a pattern: each "…" stands for any text. */
function cutPattern(title: string): RegExp {
  return new RegExp(`^${title.split("…").map((p) => escape(p.trim())).join(".*")}${title.endsWith("…") ? "" : "$"}`);
}

/** Every (file, quoted title) SECURITY.md cites; "same file" means the file cited last. */
function citations(page: string): Array<{ file: string; title: string }> {
  const out: Array<{ file: string; title: string }> = [];
  for (const line of page.split("\n")) {
    if (!line.startsWith("|")) continue;
    let file: string | undefined;
    for (const m of line.matchAll(/`(spec-tests\/[^`]+\.test\.ts)`|"([^"]+)"/g)) {
      if (m[1] !== undefined) file = m[1];
      else if (m[2] !== undefined && file !== undefined) out.push({ file, title: m[2] });
    }
  }
  return out;
}

test("Y1–Y8: every test SECURITY.md cites exists under its title", () => {
  const cited = citations(readFileSync(repoPath("SECURITY.md"), "utf8"));
  assert.ok(cited.length >= 60, `only ${cited.length} citations found: the page's format changed`);
  const missing: string[] = [];
  for (const { file, title } of cited) {
    const path = repoPath(file);
    if (!existsSync(path)) {
      missing.push(`${file} (no such file)`);
      continue;
    }
    const titles = titlesOf(readFileSync(path, "utf8"));
    // A cut may stand for a template's part too: then the title with any word there is an instance.
    const found = titles.some((t) => t.instances.test(title) || (title.includes("…") && (cutPattern(title).test(t.text) || t.instances.test(title.replace(/…/g, "x")))));
    if (!found) missing.push(`${file}: "${title}"`);
  }
  assert.deepEqual(missing, [], "cited tests that do not exist");
});
