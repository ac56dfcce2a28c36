#!/usr/bin/env node
// Keeps the generated sections of README.md in step with the source: the limits
// table (from src/limits.ts), the error-code tables (from src/errors.ts), the CLI
// reference (from `yada --help`) and the size table (from scripts/size.mjs). Sections sit between markers
// `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`.
//
// Usage: node scripts/docs.mjs          rewrites README.md
//        node scripts/docs.mjs --check  exits 1 when README.md is out of date
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("..", import.meta.url));
const read = (p) => readFileSync(join(root, p), "utf8");

/** The limits table: one row per exported constant, grouped by section. */
export function limitsTable(source = read("src/limits.ts")) {
  const rows = ["| limit | value | what it bounds, and where it comes from |", "| --- | ---: | --- |"];
  let pendingDoc = "";
  for (const line of source.split("\n")) {
    const section = /^\/\/ ── (.+?) ─/.exec(line);
    if (section) rows.push(`| **${section[1]}** | | |`);
    const doc = /^\/\*\* (.+) \*\/$/.exec(line.trim());
    if (doc) pendingDoc = doc[1];
    const c = /^export const (\w+) = (.+);$/.exec(line);
    if (c) {
      rows.push(`| \`${c[1]}\` | ${valueOf(c[1], c[2])} | ${pendingDoc.replace(/\|/g, "\\|")} |`);
      pendingDoc = "";
    }
  }
  return rows.join("\n");
}

// The values come from the built module (node scripts/build.mjs runs first).
const limits = await import(join(root, "build", "src", "limits.js"));

function valueOf(name, expr) {
  const v = limits[name];
  return typeof v === "number" ? v.toLocaleString("en") : `\`${expr}\``;
}

/** The error-code table of YadaError, and the provider kinds. */
export function errorsTable(source = read("src/errors.ts")) {
  const codes = [...source.matchAll(/^ \* - `(\w+)`: (.+)$/gm)];
  const head = "| code | meaning |\n| --- | --- |";
  const split = codes.findIndex((m) => m[1] === "auth");
  const oauthAt = codes.findIndex((m) => m[1] === "insecure_url");
  const end = oauthAt < 0 ? codes.length : oauthAt;
  const main = (split < 0 ? codes.slice(0, end) : codes.slice(0, split)).map((m) => `| \`${m[1]}\` | ${m[2]} |`);
  const kinds = split < 0 ? [] : codes.slice(split, end).map((m) => `| \`${m[1]}\` | ${m[2]} |`);
  const oauthKinds = oauthAt < 0 ? [] : codes.slice(oauthAt).map((m) => `| \`${m[1]}\` | ${m[2]} |`);
  let out = `${head}\n${main.join("\n")}`;
  if (kinds.length) out += `\n\n\`ProviderError\` (code \`provider\`) carries a \`kind\`:\n\n| kind | meaning |\n| --- | --- |\n${kinds.join("\n")}`;
  if (oauthKinds.length) out += `\n\n\`OAuthError\` (code \`oauth\`) carries a \`kind\`:\n\n| kind | meaning |\n| --- | --- |\n${oauthKinds.join("\n")}`;
  return out;
}

export function sizeTable() {
  return execFileSync(process.execPath, [join(root, "scripts", "size.mjs")], { encoding: "utf8" }).trim();
}

/** The CLI reference: its own --help (dist/cli.js must be built). */
export function cliReference() {
  const help = execFileSync(process.execPath, [join(root, "dist", "cli.js"), "--help"], { encoding: "utf8" }).trim();
  return "```text\n" + help + "\n```";
}

const generators = { limits: limitsTable, errors: errorsTable, sizes: sizeTable, cli: cliReference };

export function regenerate(readme, only = Object.keys(generators)) {
  let out = readme;
  for (const name of only) {
    const re = new RegExp(`<!-- generated:${name} -->[\\s\\S]*?<!-- /generated:${name} -->`);
    if (!re.test(out)) throw new Error(`README.md has no generated:${name} section`);
    const body = generators[name]();
    out = out.replace(re, () => `<!-- generated:${name} -->\n${body}\n<!-- /generated:${name} -->`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const readme = read("README.md");
  const check = process.argv.includes("--check");
  const next = regenerate(readme, check ? ["limits", "errors", "cli"] : undefined);
  if (check) {
    if (next !== readme) {
      console.error("README.md is out of date: run node scripts/docs.mjs");
      process.exit(1);
    }
  } else writeFileSync(join(root, "README.md"), next);
}
