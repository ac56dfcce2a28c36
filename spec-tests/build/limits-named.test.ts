// Y1-Y8: every bound of src/limits.ts is crossed by some test. A bound that no
// spec test names cannot be shown to hold: removing or loosening it would go
// unnoticed. So each export must be named in a spec-tests file other than this
// guard, or be listed below (or in the second allow-list file, when present) with
// the reason no test can cross it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import * as limits from "../../src/limits.js";
import { repoPath } from "../helpers/paths.js";

/** Bounds no test can cross, each with the one-line reason. */
const ALLOWED: Record<string, string> = {
  MAX_CANCEL_REASON_CHARS:
    "every reason yada sends in notifications/cancelled is one of its own short texts ('cancelled by the caller', 'timed out after N ms'); no input reaches it",
  LOCK_LISTEN_TIMEOUT_MS:
    "binding an abstract Unix socket answers at once (the name is free or EADDRINUSE); no test can make the kernel stall a bind, the bound only guards against a stuck call",
  LOCK_TAKEOVER_ATTEMPTS:
    "an opener loses a generation race only when another opener creates that generation between its listing and its link; losing 32 in a row needs 32 rivals to win and die inside that gap, which no test can schedule (the race tests count zero losses past the bound)",
  CLI_EXIT_GRACE_MS:
    "the CLI's last-resort exit timer is unref'd and only fires when a peer leaves a handle open after the work is closed; every fixture closes cleanly, so no test can hold a handle open in the CLI process",
};

/** The guard itself and the allow-list files name every bound without crossing any. */
const SELF = new Set(["limits-named.test.ts", "limits-allow-b.ts"]);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith(".ts") && !SELF.has(name)) out.push(p);
  }
  return out;
}

/** The upper-case names a source text mentions as whole words. */
const namesIn = (text: string): Set<string> => new Set(text.match(/\b[A-Z][A-Z0-9_]{2,}\b/g) ?? []);

/** The second allow-list (spec-tests/build/limits-allow-b.ts), if that file exists: every Record of strings it exports. */
async function allowListB(): Promise<Record<string, string>> {
  const url = new URL("./limits-allow-b.js", import.meta.url);
  if (!existsSync(url)) return {};
  const mod = (await import(url.href)) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const value of Object.values(mod)) {
    if (typeof value !== "object" || value === null) continue;
    for (const [k, v] of Object.entries(value)) {
      assert.equal(typeof v, "string", `limits-allow-b: the reason for ${k} is text`);
      out[k] = v as string;
    }
  }
  return out;
}

test("Y1-Y8: every export of limits.ts is named in a spec test, or allow-listed with a reason", async () => {
  const exported = Object.keys(limits).sort();
  assert.ok(exported.length > 150, `limits.ts exports ${exported.length} names`);
  const text = sources(repoPath("spec-tests")).map((f) => readFileSync(f, "utf8")).join("\n");
  const named = namesIn(text);
  const allowed = { ...ALLOWED, ...(await allowListB()) };
  const missing = exported.filter((name) => !named.has(name) && !Object.hasOwn(allowed, name));
  assert.deepEqual(missing, [], `bounds no spec test names (add a test that crosses each, or allow-list it with a reason): ${missing.join(", ")}`);
});

test("Y1-Y8: every allow-list entry is a real bound with a reason of its own", async () => {
  const exported = new Set(Object.keys(limits));
  for (const [name, reason] of Object.entries({ ...ALLOWED, ...(await allowListB()) })) {
    assert.ok(exported.has(name), `${name} is allow-listed but limits.ts does not export it`);
    assert.ok(reason.trim().length >= 20, `${name} needs a real reason, not '${reason}'`);
  }
});

test("Y1-Y8: the guard sees a bound named in a test, and misses one named nowhere", () => {
  // The scan is a whole-word match: a longer name that contains a bound does not count.
  const text = "import { MAX_LINE_BYTES_X, DEFAULT_CALL_TIMEOUT_MS } from '../../src/limits.js';";
  const named = namesIn(text);
  assert.ok(named.has("DEFAULT_CALL_TIMEOUT_MS"));
  assert.ok(!named.has("MAX_LINE_BYTES"));
});
