// P8: the examples can be copied. Each example server is one file that imports
// nothing but Node's built-ins, so it runs wherever a user copies it; each is
// copied alone into a folder of a consumer project that has only the packed
// package installed, and driven there with the installed client. (The docs'
// examples run against the same copies: spec-tests/docs/docs.test.ts.)
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { consumerProject, type Consumer } from "../helpers/consumer.js";
import { repoPath } from "../helpers/paths.js";

const servers = readdirSync(repoPath("examples", "servers")).filter((f) => f.endsWith(".mjs")).sort();
const T = { timeout: 240_000 };
let consumer: Consumer;
before(async () => {
  consumer = await consumerProject();
}, T);
after(() => consumer?.remove());

test("P8: every example server is one file whose only imports are Node built-ins", () => {
  assert.deepEqual(servers, ["catalog-http.mjs", "catalog.mjs", "contract.mjs", "enterprise.mjs", "oauth.mjs", "skills.mjs", "tasks.mjs"]);
  for (const name of servers) {
    const text = readFileSync(repoPath("examples", "servers", name), "utf8");
    const specifiers = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
    const foreign = specifiers.filter((s) => !s.startsWith("node:"));
    assert.deepEqual(foreign, [], `${name} imports ${foreign.join(", ")}`);
  }
});

test("P8: the example servers are the ones the tests run, rebuilt from their sources", async () => {
  const { exampleServer, EXAMPLE_SERVERS } = (await import(pathToFileURL(repoPath("scripts", "docs.mjs")).href)) as {
    exampleServer: (name: string) => Promise<string>;
    EXAMPLE_SERVERS: Record<string, unknown>;
  };
  assert.deepEqual(Object.keys(EXAMPLE_SERVERS).sort(), servers);
  for (const name of servers) assert.equal(readFileSync(repoPath("examples", "servers", name), "utf8"), await exampleServer(name), `${name} is stale: run node scripts/docs.mjs`);
});

/** A check script run in the consumer: the installed client against one copied server. */
const checks: Record<string, string> = {
  "catalog.mjs": `
    import { McpClient } from "yada-mcp/node";
    const client = await McpClient.connectStdio("node", [SERVER]);
    const names = (await client.listTools()).map((t) => t.name).sort();
    const r = await client.callTool("lookup", { sku: "ABC-123" });
    await client.close();
    console.log(JSON.stringify({ names, text: r.content[0]?.text }));`,
  "contract.mjs": `
    import { McpClient } from "yada-mcp/node";
    const client = await McpClient.connectStdio("node", [SERVER]);
    const names = (await client.listTools()).map((t) => t.name).sort();
    await client.close();
    console.log(JSON.stringify({ names }));`,
  "skills.mjs": `
    import { McpClient } from "yada-mcp/node";
    const client = await McpClient.connectStdio("node", [SERVER]);
    const read = await client.readResource("skill://acme/pdf-tools/SKILL.md");
    await client.close();
    console.log(JSON.stringify({ skill: read[0]?.text ?? "" }));`,
  "tasks.mjs": `
    import { McpClient } from "yada-mcp/node";
    const client = await McpClient.connectStdio("node", [SERVER]);
    const names = (await client.listTools()).map((t) => t.name);
    await client.close();
    console.log(JSON.stringify({ names }));`,
  "catalog-http.mjs": `
    import { HttpTransport, McpClient } from "yada-mcp";
    const { startCatalogHttp } = await import(SERVER_URL);
    const server = await startCatalogHttp({ port: 0 });
    const client = await McpClient.connect(new HttpTransport(server.url));
    const r = await client.callTool("search", { query: "g" });
    await client.close();
    await server.close();
    console.log(JSON.stringify({ items: Array.isArray(r.structuredContent?.items) }));`,
  "enterprise.mjs": `
    import { connectMcp, OAuthClient, workloadIdentity } from "yada-mcp";
    const { startEnterprise } = await import(SERVER_URL);
    const world = await startEnterprise();
    const auth = new OAuthClient({ grant: workloadIdentity(async () => world.workloadJwt()) });
    const connection = await connectMcp({ name: "demo", url: world.mcpUrl, auth }, { identity: { actorId: "job", tenantId: "acme" }, authorize: async () => true });
    const names = connection.tools.map((t) => t.name);
    await connection.close();
    await world.close();
    console.log(JSON.stringify({ names }));`,
  "oauth.mjs": `
    const { startOAuthServer } = await import(SERVER_URL);
    const server = await startOAuthServer();
    const answer = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    server.close();
    console.log(JSON.stringify({ status: answer.status, challenge: (answer.headers.get("www-authenticate") ?? "").startsWith("Bearer") }));`,
};

const expected: Record<string, (out: Record<string, unknown>) => void> = {
  "catalog.mjs": (o) => {
    for (const tool of ["lookup", "search", "rename", "report"]) assert.ok((o.names as string[]).includes(tool), `no ${tool}`);
    assert.match(String(o.text), /ABC-123/);
  },
  "contract.mjs": (o) => assert.ok(["get_item", "prepare_rename", "rename", "rename_receipt"].every((n) => (o.names as string[]).includes(n))),
  "skills.mjs": (o) => assert.match(String(o.skill), /pdf-tools/),
  "tasks.mjs": (o) => assert.ok((o.names as string[]).includes("research")),
  "catalog-http.mjs": (o) => assert.equal(o.items, true),
  "oauth.mjs": (o) => assert.deepEqual(o, { status: 401, challenge: true }),
  "enterprise.mjs": (o) => assert.deepEqual(o.names, ["demo__whoami"]),
};

test("P8: each example server, copied alone into a folder of a consumer project with only the package installed, runs", T, () => {
  for (const name of servers) {
    const alone = join(consumer.dir, `alone-${name.replace(/\.mjs$/, "")}`);
    mkdirSync(alone);
    cpSync(repoPath("examples", "servers", name), join(alone, name));
    assert.deepEqual(readdirSync(alone), [name]);
    const server = join(alone, name);
    const script = `const SERVER = ${JSON.stringify(server)};\nconst SERVER_URL = ${JSON.stringify(pathToFileURL(server).href)};\n${checks[name] ?? ""}\n`;
    const file = `check-${name}`;
    writeFileSync(join(consumer.dir, file), script);
    const r = consumer.exec(process.execPath, [file], 60_000);
    assert.equal(r.status, 0, `${name} copied alone:\n${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    expected[name]?.(out);
  }
});
