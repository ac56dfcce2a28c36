// P4: the CLI as a Unix tool: a closed pipe ends it quietly, --json errors are one
// JSON object, every exit code of the help is produced by its case, capabilities
// are checked before listing, --env / --cwd / --root reach a stdio server, and
// --timeout ends the process within its value plus CLI_TIMEOUT_GRACE_MS.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT, EXIT_CODES, errorCodeOf, exitCodeOf } from "../../src/cli/exit.js";
import { CLI_TIMEOUT_GRACE_MS } from "../../src/limits.js";
import { repoRoot } from "../helpers/paths.js";
import { CATALOG, CLI, errorCodes, stdioOf, yada } from "./support.js";

const T = { timeout: 60_000 };
let dir: string;
let provider: Server;
let providerUrl: string;
let locked: Server;
let lockedUrl: string;
before(async () => {
  // An MCP endpoint that answers every request 401 with a challenge, and has no OAuth metadata anywhere.
  locked = createServer((req, res) => {
    if ((req.url ?? "").startsWith("/mcp")) res.writeHead(401, { "www-authenticate": 'Bearer realm="mcp"' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => locked.listen(0, "127.0.0.1", resolve));
  const at = locked.address();
  lockedUrl = `http://127.0.0.1:${typeof at === "object" && at ? at.port : 0}/mcp`;
  dir = realpathSync(mkdtempSync(join(tmpdir(), "yada-p4-")));
  // An OpenAI-compatible provider on loopback that refuses every key.
  provider = createServer((_req, res) => res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"invalid api key"}}'));
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  const address = provider.address();
  providerUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/v1`;
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await new Promise((resolve) => provider.close(resolve));
  await new Promise((resolve) => locked.close(resolve));
});

function planFile(name: string, steps: unknown[]): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(steps));
  return file;
}

/** Starts `yada args`, sends SIGINT `afterMs` after its first stderr output, and collects the outcome. */
function interrupted(args: string[], afterMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let sent = false;
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      if (!sent) {
        sent = true;
        setTimeout(() => child.kill("SIGINT"), afterMs);
      }
    });
    child.stdout.resume();
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stderr });
    });
  });
}

describe("P4: every exit code of the help, produced by its case", T, () => {
  const cases: Record<number, () => Promise<{ code: number | null; stderr: string }>> = {
    [EXIT.ok]: () => yada(["tools", "--stdio", CATALOG]),
    [EXIT.toolError]: () => yada(["call", "fail", "--stdio", CATALOG]),
    [EXIT.usage]: () => yada(["tools", "--no-such-flag"]),
    [EXIT.connection]: () => yada(["tools", "--stdio", stdioOf("exit-on-start.mjs")]),
    [EXIT.approval]: () =>
      yada(["run", "rename", "--stdio", CATALOG, "--name", "catalog", "--provider", "scripted", "--script", planFile("approval", [{ toolCalls: [{ name: "catalog__rename", arguments: { sku: "ABC-123", name: "X" } }] }])]),
    [EXIT.provider]: () => yada(["run", "hello", "--stdio", CATALOG], { env: { OPENAI_API_KEY: "sk-wrong", OPENAI_BASE_URL: providerUrl, YADA_MODEL: "m" } }),
    [EXIT.refused]: () => yada(["read", "catalog://nope", "--stdio", CATALOG]),
    [EXIT.incomplete]: () =>
      yada(["run", "loop", "--stdio", CATALOG, "--name", "catalog", "--provider", "scripted", "--max-steps", "1", "--script", planFile("steps", [{ toolCalls: [{ name: "catalog__lookup", arguments: { sku: "ABC-123" } }] }, { text: "done" }])]),
    [EXIT.interrupted]: () => interrupted(["call", "slow", '{"ms":20000}', "--stdio", CATALOG, "--verbose"], 1_500),
    // A 401 with a challenge before any login: log in.
    [EXIT.login]: () => yada(["tools", "--url", lockedUrl], { env: { YADA_TOKEN_FILE: join(dir, "no-login.json") } }),
    // A login to a server whose OAuth setup is missing: misconfigured.
    [EXIT.oauth]: () => yada(["login", "--url", lockedUrl], { env: { YADA_TOKEN_FILE: join(dir, "no-login.json") } }),
  };

  for (const doc of EXIT_CODES) {
    if (doc.code === EXIT.internal) continue; // no case can cause a bug on purpose: the next test pins its mapping
    test(`P4: exit ${doc.code} (${doc.meaning})`, async () => {
      const run = cases[doc.code];
      assert.ok(run, `no case for exit ${doc.code}`);
      const r = await run();
      assert.equal(r.code, doc.code, r.stderr);
      const printed = errorCodes(r.stderr).filter((c) => !["debug", "info", "warn"].includes(c)); // --verbose diagnostics
      for (const c of printed) assert.ok(doc.errorCodes.includes(c), `exit ${doc.code} printed ${c}, which its help line does not list`);
      if (doc.code !== EXIT.ok) assert.ok(printed.length > 0, `no error line for exit ${doc.code}`);
    });
  }

  test(`P4: exit ${EXIT.internal}: an error that is not yada's is reported as internal`, () => {
    assert.equal(exitCodeOf(new TypeError("x is undefined")), EXIT.internal);
    assert.equal(errorCodeOf(new TypeError("x is undefined")), "internal");
  });
});

describe("P4: the CLI in pipes and scripts", T, () => {
  test("P4: a closed stdout (| head) ends yada quietly with exit 0", async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, "tools", "--stdio", CATALOG], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.destroy(); // the reader is gone before the first line
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(killer);
        resolve({ code, stderr });
      });
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
  });

  test("P4: with --json an error is one JSON object on stdout with code and message", async () => {
    const r = await yada(["call", "nope", "--json", "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.refused);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines.length, 1, r.stdout);
    const error = JSON.parse(lines[0] ?? "") as { code: string; message: string; exit: number };
    assert.equal(error.code, "tool_not_found");
    assert.match(error.message, /no tool "nope"/);
    assert.equal(error.exit, EXIT.refused);
    const usage = await yada(["tools", "--json", "--bogus"]);
    assert.equal(usage.code, EXIT.usage);
    assert.equal((JSON.parse(usage.stdout) as { code: string }).code, "usage");
  });

  test("P4: listing a capability the server does not declare sends no request and lists nothing", async () => {
    const r = await yada(["resources", "--json", "--stdio", stdioOf("echo.mjs")]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { resources: [], resourceTemplates: [] });
    const text = await yada(["prompts", "--stdio", stdioOf("echo.mjs")]);
    assert.equal(text.code, EXIT.ok, text.stderr);
    assert.match(text.stdout, /the server does not offer prompts/);
  });

  test("P4: --env and --cwd reach a stdio server; its data file lands in --cwd", async () => {
    const work = join(dir, "work");
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work);
    const r = await yada(["call", "whereami", "--json", "--env", "YADA_TEST_A=1", "--env", "YADA_TEST_B=x=y", "--cwd", work, "--stdio", stdioOf("whereami.mjs", "--write")], {
      env: { YADA_TEST_SECRET: "not inherited" },
    });
    assert.equal(r.code, EXIT.ok, r.stderr);
    const { content } = JSON.parse(r.stdout) as { content: Array<{ text: string }> };
    const seen = JSON.parse(content[0]?.text ?? "{}") as { cwd: string; env: Record<string, string> };
    assert.equal(seen.cwd, work);
    assert.deepEqual(seen.env, { YADA_TEST_A: "1", YADA_TEST_B: "x=y" });
    assert.ok(existsSync(join(work, "whereami.txt")));
    const bad = await yada(["tools", "--env", "no-equals", "--stdio", CATALOG]);
    assert.equal(bad.code, EXIT.usage);
    const missing = await yada(["tools", "--cwd", join(dir, "missing"), "--stdio", CATALOG]);
    assert.equal(missing.code, EXIT.usage);
    assert.match(missing.stderr, /--cwd ".*missing" is not a directory/);
    const http = await yada(["tools", "--env", "A=1", "--url", "http://127.0.0.1:9/mcp"]);
    assert.equal(http.code, EXIT.usage);
  });

  test("P4: --root offers a directory to the server as a root", async () => {
    const r = await yada(["call", "list_roots", "--root", dir, "--stdio", CATALOG]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    const answer = JSON.parse(r.stdout) as { result: { roots: Array<{ uri: string; name: string }> } };
    assert.deepEqual(answer.result.roots, [{ uri: pathToFileURL(dir).href, name: dir.split("/").pop() }]);
  });

  test("P4: --timeout ends yada within its value plus CLI_TIMEOUT_GRACE_MS, even with a server that ignores stdin's end and SIGTERM", async () => {
    const timeout = 1_500;
    const began = Date.now();
    const r = await yada(["call", "slow", '{"ms":20000}', "--verbose", "--timeout", String(timeout), "--stdio", stdioOf("ignore-stdin-close.mjs", "--max-life", "20000")], {
      timeoutMs: 20_000,
    });
    const elapsed = Date.now() - began;
    assert.equal(r.code, EXIT.connection, r.stderr);
    assert.deepEqual(errorCodes(r.stderr).filter((c) => c !== "debug" && c !== "info"), ["timeout"]);
    assert.match(r.stderr, /call timed out after 1500 ms \(--timeout\)/);
    // Node's own start-up on a loaded machine is outside the bound: 1.5 s is allowed
    // for it, far less than the polite close (stdin grace, then SIGTERM grace) takes.
    assert.ok(elapsed < timeout + CLI_TIMEOUT_GRACE_MS + 1_500, `took ${elapsed} ms`);
    const pid = Number(/^pid (\d+)$/m.exec(r.stderr)?.[1]);
    assert.ok(pid > 0, "the server did not report its pid");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Gone, or a zombie no one has reaped yet (in a container, PID 1 may never reap it).
    const state = existsSync(`/proc/${pid}/stat`) ? /\) (\w)/.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1] : "gone";
    assert.ok(state === "gone" || state === "Z", `the server outlived yada (state ${state})`);
  });
});
