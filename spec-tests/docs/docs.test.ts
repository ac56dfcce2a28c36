// The user documentation (README.md, docs/*.md, SECURITY.md) is checked as a user
// meets it (P1): every ```js example runs, and every ```ts example type-checks under
// strict, from a consumer project that installed the packed tarball. The generated
// reference pages match the source, every export has TSDoc and is used in a runnable
// example, and neither the docs nor the comments of src/ cite a document the
// reader does not have.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { consumerProject, tscBin, type Consumer } from "../helpers/consumer.js";
import { repoPath } from "../helpers/paths.js";

// docs/features.src.md is the source of docs/features.md, not a page of its own.
const docFiles = ["README.md", "SECURITY.md", ...readdirSync(repoPath("docs")).filter((f) => f.endsWith(".md") && !f.endsWith(".src.md")).map((f) => `docs/${f}`)].filter((f) =>
  existsSync(repoPath(f)),
);
const texts = new Map(docFiles.map((f) => [f, readFileSync(repoPath(f), "utf8")]));
const blocks = (lang: string) =>
  [...texts].flatMap(([file, text]) => [...text.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m, i) => ({ file, n: i + 1, code: m[1] ?? "" })));
const jsExamples = blocks("js");
const tsExamples = blocks("ts");
const slug = (file: string, n: number) => `doc-${file.replace(/[/.]/g, "-")}-${n}`;

const T = { timeout: 240_000 };
let consumer: Consumer;
before(async () => {
  consumer = await consumerProject();
}, T);
after(() => consumer?.remove());

test("P1: every js example of the docs runs from a consumer project", T, () => {
  assert.ok(jsExamples.length >= 25, `only ${jsExamples.length} examples`);
  for (const { file, n, code } of jsExamples) {
    const name = `${slug(file, n)}.mjs`;
    writeFileSync(join(consumer.dir, name), code);
    const r = consumer.exec(process.execPath, [name], 60_000);
    assert.equal(r.status, 0, `${file}, js example ${n} failed:\n${code}\n${r.stdout}\n${r.stderr}`);
  }
});

test("P1, P3: every ts example of the docs type-checks under strict from a consumer project", T, () => {
  assert.ok(tsExamples.length >= 1);
  for (const { file, n, code } of tsExamples) writeFileSync(join(consumer.dir, `${slug(file, n)}.ts`), code.includes("export ") || code.includes("import ") ? code : `${code}\nexport {};\n`);
  const r = consumer.exec(tscBin, ["-p", "."]);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});

test("P1: the examples need nothing from the repository: no fixtures/, build/ or dist/ path", () => {
  const bad = [...jsExamples, ...tsExamples].filter((e) => /["'`](\.\/)?(fixtures|build|dist|src)\//.test(e.code));
  assert.deepEqual(bad.map((e) => `${e.file} #${e.n}`), []);
});

test("P1: the generated reference pages (limits, errors, API, features, CLI) match the source", async () => {
  const { generatedFiles } = (await import(pathToFileURL(repoPath("scripts", "docs.mjs")).href)) as {
    generatedFiles: (check: boolean) => Promise<Record<string, string>>;
  };
  for (const [file, text] of Object.entries(await generatedFiles(true))) {
    assert.equal(readFileSync(repoPath(file), "utf8"), text, `${file} is stale: run node scripts/docs.mjs`);
  }
});

test("P1: every export of the entries has TSDoc (its row in docs/api.md says what it is)", () => {
  const api = texts.get("docs/api.md") ?? "";
  const undocumented = [...api.matchAll(/^\| `(\w+)` \| \w* \| \(see its module\) \|$/gm)].map((m) => m[1]);
  assert.deepEqual(undocumented, []);
});

test("P1: every public function and class is used in a runnable example", async () => {
  const code = jsExamples.map((e) => e.code).join("\n");
  const names = new Set<string>();
  for (const bundle of ["yada.js", "yada-node.js"]) {
    const mod = (await import(pathToFileURL(repoPath("dist", bundle)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) if (typeof value === "function") names.add(name);
  }
  assert.ok(names.size > 50, `only ${names.size} callable exports found`);
  const missing = [...names].filter((n) => !new RegExp(`\\b${n}\\b`).test(code));
  assert.deepEqual(missing, [], `in no js example: ${missing.join(", ")}`);
});

test("P1: the README is what a newcomer reads first: what and why, the two commands, quick starts, links to every guide", () => {
  const readme = texts.get("README.md") ?? "";
  assert.ok(readme.split("\n").length <= 200, "the README grew past 200 lines: move the detail into docs/");
  assert.match(readme, /npm install && npm start/);
  assert.match(readme, /^npm test /m);
  assert.match(readme, /ESM only/);
  // The README is also the registry's page: its links to the guides are absolute (P6).
  const repository = (JSON.parse(readFileSync(repoPath("package.json"), "utf8")) as { homepage: string }).homepage.replace(/#.*$/, "");
  for (const f of docFiles.filter((d) => d.startsWith("docs/"))) assert.ok(readme.includes(`](${repository}/blob/main/${f})`), `the README does not link ${f}`);
});

test("P1: no doc or src/ comment cites a document the reader does not have, and no heading is a checker artifact", () => {
  const internal = /\bseed \d{3}\b|seed-style|\.\.\/FEATURES\.md|\.\.\/shared\/|\.\.\/seeds\//;
  const cited = [...texts, ["docs/features.src.md", readFileSync(repoPath("docs", "features.src.md"), "utf8")] as const].filter(([, t]) => internal.test(t)).map(([f]) => f);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : []));
  for (const file of walk(repoPath("src"))) if (internal.test(readFileSync(file, "utf8"))) cited.push(file.slice(repoPath().length + 1));
  assert.deepEqual(cited, []);
  const artifacts = [...texts].filter(([, t]) => /^# .*examples/im.test(t.replace(/```[\s\S]*?```/g, ""))).map(([f]) => f);
  assert.deepEqual(artifacts, []);
});
