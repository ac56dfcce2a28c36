// P4: a CLI that means what it says, each against the built `yada` process:
// --json puts only JSON lines on stdout (decisions and outcomes as events);
// `run --approve all` with a closed stdout still does the approved write, or exits
// non-zero saying it did not; OAuth failures exit 8 (log in) or 9, an expired login
// and a 401 before any login say `yada login --url <url>`; the loopback login page
// says whether the login succeeded; `yada call` of a tool not marked read-only needs --yes.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT } from "../../src/cli/exit.js";
import { LOOPBACK_OUTCOME_WAIT_MS } from "../../src/limits.js";
import type { ActionRecord } from "../../src/actions/types.js";
import { fixtureServer, repoRoot } from "../helpers/paths.js";
import { performed } from "../tools/writes-support.js";
import { CLI, errorCodes, yada } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

const T = { timeout: 60_000 };
let dir: string;
let plan: string;
before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "yada-p4m-")));
  plan = join(dir, "rename.json");
  writeFileSync(plan, JSON.stringify([{ text: "Renaming.", toolCalls: [{ name: "catalog__rename", arguments: { sku: "ABC-123", name: "Widget Pro" } }] }, { text: "Done." }]));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const lookup = async (url: string): Promise<string> => (await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", url])).stdout;

/** Runs `yada args` with its stdout closed by the reader at once (`| head -0`); SIGINT after `interruptMs` when given. */
function closedStdout(args: string[], interruptMs?: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const interrupt = interruptMs === undefined ? undefined : setTimeout(() => child.kill("SIGINT"), interruptMs);
    const killer = setTimeout(() => child.kill("SIGKILL"), 50_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      clearTimeout(interrupt);
      resolve({ code, stderr });
    });
  });
}

describe("P4: --json is JSON lines only", T, () => {
  test("P4: run --json --approve all: every stdout line is JSON, the decision and the outcome are events, human text is on stderr", T, async () => {
    const http = await startCatalogHttp();
    try {
      const r = await yada(["run", "Rename it", "--json", "--approve", "all", "--url", http.url, "--name", "catalog", "--provider", "scripted", "--script", plan, "--store", join(dir, "json.jsonl")]);
      assert.equal(r.code, EXIT.ok, r.stderr);
      const events = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      const types = events.map((e) => e.type);
      const decision = events.find((e) => e.type === "approval_decision");
      const outcome = events.find((e) => e.type === "action_outcome");
      assert.ok(types.indexOf("approval_required") < types.indexOf("approval_decision"));
      assert.ok(types.indexOf("approval_decision") < types.indexOf("action_outcome"));
      assert.equal(types.at(-1), "agent_end");
      assert.deepEqual({ ...decision, actionId: "" }, { type: "approval_decision", actionId: "", callId: "call_1_1", toolName: "catalog__rename", decision: "approved", by: { actorId: "cli", tenantId: "local" } });
      assert.equal(outcome?.actionId, decision?.actionId);
      assert.equal(outcome?.state, "succeeded");
      assert.deepEqual(outcome?.result, { content: [{ type: "text", text: "Renamed ABC-123 from Widget to Widget Pro" }], isError: false });
      assert.match(r.stderr, /approval required: 1 proposed call, not executed/);
      assert.match(r.stderr, /← catalog__rename succeeded/);
    } finally {
      await http.close();
    }
  });

  test("P4: an undecided run with --json --store writes only JSON on stdout, its last line the {code, message, exit} of exit 4", T, async () => {
    const http = await startCatalogHttp();
    try {
      const r = await yada(["run", "Rename it", "--json", "--url", http.url, "--name", "catalog", "--provider", "scripted", "--script", plan, "--store", join(dir, "undecided.jsonl")]);
      assert.equal(r.code, EXIT.approval, r.stderr);
      const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(Object.keys(lines.at(-1) ?? {}), ["code", "message", "exit"]);
      assert.equal(lines.at(-1)?.code, "approval_required");
      assert.equal(lines.at(-1)?.exit, EXIT.approval);
      assert.match(r.stderr, /yada actions approve \S+ --store /);
    } finally {
      await http.close();
    }
  });
});

describe("P4: decided work is done, or the exit says it was not", T, () => {
  test("P4: run --approve all with a closed stdout (| head) still does the approved rename and exits 0", T, async () => {
    const http = await startCatalogHttp();
    try {
      const r = await closedStdout(["run", "Rename it", "--approve", "all", "--url", http.url, "--name", "catalog", "--provider", "scripted", "--script", plan, "--store", join(dir, "head.jsonl")]);
      assert.equal(r.code, EXIT.ok, r.stderr);
      assert.match(await lookup(http.url), /Widget Pro/, "the approved rename was done");
      const [a] = JSON.parse((await yada(["actions", "list", "--store", join(dir, "head.jsonl"), "--json"])).stdout) as ActionRecord[];
      assert.equal(a?.state, "succeeded");
    } finally {
      await http.close();
    }
  });

  test("P4: an approved write left unsettled (reconciling) ends the run non-zero, saying so and how a worker carries on", T, async () => {
    const at = join(dir, "unsettled");
    mkdirSync(at, { mode: 0o700 });
    const log = join(at, "contract.log");
    const config = join(at, "yada.json");
    const server = { name: "contract", command: process.execPath, args: [fixtureServer("contract/stdio.mjs"), "--log", log, "--principal", "cli/local", "--mode", "receipt-unknown"], writeTools: { rename: { version: "reviewed-1", prepareTool: "prepare_rename", receiptTool: "rename_receipt" } } };
    writeFileSync(config, JSON.stringify([server]), { mode: 0o600 });
    const script = join(at, "plan.json");
    writeFileSync(script, JSON.stringify([{ toolCalls: [{ name: "contract__rename", arguments: { id: "A", name: "Renamed A" } }] }, { text: "done" }]));
    const store = join(at, "actions.jsonl");
    const r = await closedStdout(["run", "rename", "--approve", "all", "--server", "contract", "--config", config, "--provider", "scripted", "--script", script, "--store", store], 4_000);
    assert.equal(r.code, EXIT.interrupted, r.stderr);
    assert.match(r.stderr, /approved, not finished:\n {2}\S+ {2}contract__rename {2}reconciling/);
    assert.match(r.stderr, /a worker carries on \(never sending a call twice\):\n {2}yada worker --store \S+ --server contract --config \S+/);
    assert.match(r.stderr, /yada: cancelled: interrupted with 1 approved call not finished/);
    assert.equal(performed(log), 1, "sent once");
  });
});

/**
 * A loopback MCP server that is its own OAuth authorization server (metadata,
 * registration, PKCE S256, RFC 9207 iss) and refuses every refresh. `mode`:
 * `good` logs in; `denied` sends the user back with error=access_denied;
 * `bad-code` refuses the code. `revoke()` forgets every token: the login expired.
 */
async function oauthWorld(mode: "good" | "denied" | "bad-code"): Promise<{ url: string; revoke(): void; close(): Promise<void> }> {
  let origin = "";
  const codes = new Map<string, string>();
  const tokens = new Set<string>();
  const json = (res: import("node:http").ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", origin);
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      if (url.pathname === "/.well-known/oauth-protected-resource/mcp") return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return json(res, 200, {
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
          authorization_response_iss_parameter_supported: true,
          token_endpoint_auth_methods_supported: ["none"],
        });
      }
      if (url.pathname === "/register") return json(res, 201, { client_id: "cli-client", token_endpoint_auth_method: "none" });
      if (url.pathname === "/authorize") {
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        back.searchParams.set("iss", origin);
        if (mode === "denied") back.searchParams.set("error", "access_denied");
        else {
          const code = randomBytes(8).toString("hex");
          codes.set(code, url.searchParams.get("code_challenge") ?? "");
          back.searchParams.set("code", code);
        }
        return void res.writeHead(302, { location: back.href }).end();
      }
      if (url.pathname === "/token") {
        const p = new URLSearchParams(body);
        const challenge = codes.get(p.get("code") ?? "");
        const verified = challenge !== undefined && createHash("sha256").update(p.get("code_verifier") ?? "").digest("base64url") === challenge;
        if (p.get("grant_type") !== "authorization_code" || !verified || mode === "bad-code") return json(res, 400, { error: "invalid_grant" });
        const access = randomBytes(8).toString("hex");
        tokens.add(access);
        return json(res, 200, { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: "never-valid" });
      }
      if (url.pathname === "/mcp") {
        const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
        if (req.method !== "POST") return void res.writeHead(405).end();
        if (!tokens.has(token)) return json(res, 401, { error: "invalid_token" }, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
        const m = JSON.parse(body) as { id?: number; method?: string };
        if (m.id === undefined) return void res.writeHead(202).end();
        if (m.method === "initialize") return json(res, 200, { jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "o", version: "1" } } });
        return json(res, 200, { jsonrpc: "2.0", id: m.id, result: { tools: [] } });
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: `${origin}/mcp`,
    revoke: () => tokens.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `yada login --url url` with a browser that follows the printed URL to the loopback page. Returns the exit, output and the page. */
async function login(url: string, tokenFile: string): Promise<{ code: number | null; out: string; err: string; page: string }> {
  const child = spawn(process.execPath, [CLI, "login", "--url", url], { cwd: repoRoot, env: { ...process.env, YADA_TOKEN_FILE: tokenFile }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => (clearTimeout(killer), resolve(code))));
  const authorization = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /^\s+(http\S+authorize\S+)$/m.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    void closed.then(() => reject(new Error(`no URL printed:\n${out}\n${err}`)));
  });
  const redirect = await fetch(authorization, { redirect: "manual" });
  const callback = redirect.headers.get("location") ?? "";
  const landed = Date.now();
  const page = await (await fetch(callback)).text();
  // The page waited for the login's outcome, not for LOOPBACK_OUTCOME_WAIT_MS to pass.
  assert.ok(Date.now() - landed < LOOPBACK_OUTCOME_WAIT_MS / 4);
  return { code: await closed, out, err, page };
}

describe("P4: logins", T, () => {
  test("P4: a 401 with a challenge before any login says run yada login --url <url> (exit 8)", T, async () => {
    const world = await oauthWorld("good");
    try {
      const r = await yada(["tools", "--url", world.url], { env: { YADA_TOKEN_FILE: join(dir, "none.json") } });
      assert.equal(r.code, EXIT.login, r.stderr);
      assert.deepEqual(errorCodes(r.stderr), ["login_required"]);
      assert.match(r.stderr, new RegExp(`needs a login \\(HTTP 401 with a challenge\\): run yada login --url ${world.url.replace(/[.]/g, "\\.")}\\n`));
    } finally {
      await world.close();
    }
  });

  test("P4: the login page says the login succeeded; once it has expired, a command says run yada login --url <url> (exit 8)", T, async () => {
    const world = await oauthWorld("good");
    const tokenFile = join(dir, "expiring.json");
    try {
      const l = await login(world.url, tokenFile);
      assert.equal(l.code, EXIT.ok, `${l.out}\n${l.err}`);
      assert.match(l.page, /<h1>Logged in<\/h1><p>yada is logged in to http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\)\. You can close this window\.<\/p>/);
      assert.equal((await yada(["tools", "--url", world.url], { env: { YADA_TOKEN_FILE: tokenFile } })).code, EXIT.ok, "the login works");
      world.revoke(); // the access token is no longer taken, the refresh token never was
      const r = await yada(["tools", "--url", world.url, "--json"], { env: { YADA_TOKEN_FILE: tokenFile } });
      assert.equal(r.code, EXIT.login, r.stderr);
      assert.match(r.stderr, /^yada: oauth: http:\/\/127\.0\.0\.1:\d+\/mcp: the login has expired or was revoked: run yada login --url http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
      assert.equal((JSON.parse(r.stdout) as { exit: number }).exit, EXIT.login);
    } finally {
      await world.close();
    }
  });

  test("P4: the login page says the login was refused, or failed; yada login exits 8, storing nothing", T, async () => {
    for (const [mode, title] of [
      ["denied", /<h1>Login refused<\/h1><p>The authorization server answered &#34;access_denied&#34;\. Nothing was stored/],
      ["bad-code", /<h1>Login failed<\/h1><p>The login to http:\/\/127\.0\.0\.1:\d+\/mcp \(HTTP\) did not succeed \(oauth\); see the terminal/],
    ] as const) {
      const world = await oauthWorld(mode);
      try {
        const l = await login(world.url, join(dir, `${mode}.json`));
        assert.match(l.page, title);
        assert.equal(l.code, EXIT.login, `${l.out}\n${l.err}`);
        assert.deepEqual(errorCodes(l.err), ["oauth"]);
      } finally {
        await world.close();
      }
    }
  });
});

describe("P4: yada call bypasses approvals only when told", T, () => {
  test("P4: off a terminal, a tool not marked read-only is not called without --yes (exit 4), and is with it; stderr says so both times", T, async () => {
    const http = await startCatalogHttp();
    try {
      const no = await yada(["call", "rename", '{"sku":"ABC-123","name":"Direct"}', "--url", http.url]);
      assert.equal(no.code, EXIT.approval, no.stderr);
      assert.match(no.stderr, /^yada: rename is not marked read-only: a direct call may change things and bypasses approvals/);
      assert.match(no.stderr, /yada: approval_required: rename was not called: confirm a direct call with --yes/);
      assert.equal(no.stdout, "");
      assert.match(await lookup(http.url), /Widget,/);
      const yes = await yada(["call", "rename", '{"sku":"ABC-123","name":"Direct"}', "--yes", "--json", "--url", http.url]);
      assert.equal(yes.code, EXIT.ok, yes.stderr);
      assert.match(yes.stderr, /is not marked read-only/);
      assert.deepEqual(JSON.parse(yes.stdout), { content: [{ type: "text", text: "Renamed ABC-123 from Widget to Direct" }], isError: false });
      // A read-only tool is called as before, without a word.
      const read = await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", http.url]);
      assert.equal(read.stderr, "");
    } finally {
      await http.close();
    }
  });
});
