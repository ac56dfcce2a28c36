// X1: the web entry is web-standard. Everything under src/ except src/node/, src/cli/
// and src/node.ts must not import node:* nor touch process / Buffer; nothing may eval.
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";

export const WEB_FORBIDDEN = [
  [/\bfrom\s+["']node:/, "imports a node: module"],
  [/\bimport\s*\(\s*["']node:/, "imports a node: module"],
  [/\brequire\s*\(/, "calls require"],
  [/(?<![.\w])process\s*\./, "touches process"],
  [/(?<![.\w])Buffer\s*[.(]/, "touches Buffer"],
  [/\bglobalThis\s*(\.\s*|\[\s*["'])(process|Buffer)\b/, "touches a Node global"],
];
export const EVERYWHERE_FORBIDDEN = [
  [/(?<![.\w])eval\s*\(/, "calls eval"],
  [/(?<![.\w])Function\s*\(/, "calls the Function constructor"],
];
/** Lists the rule violations of `files` (paths under src/), as "path what" strings. */
export function purityViolations(files, read = (f) => readFileSync(f, "utf8")) {
  const problems = [];
  for (const file of files) {
    const rel = relative("src", file).split(sep).join("/");
    const nodeSide = rel.startsWith("node/") || rel.startsWith("cli/") || rel === "node.ts";
    const text = read(file)
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
    const rules = nodeSide ? EVERYWHERE_FORBIDDEN : [...WEB_FORBIDDEN, ...EVERYWHERE_FORBIDDEN];
    for (const [re, why] of rules) if (re.test(text)) problems.push(`${file} ${why}`);
  }
  return problems;
}

