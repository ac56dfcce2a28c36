// V9: completion/complete against server-everything (a prompt with completable
// arguments, a resource template with a completable variable), and the skills
// extension (SEP-2640) against fixtures/servers/skills.mjs, the wire read from the
// transcript recorder. The conformance suite's sep-2640-client-* scenarios run in
// spec-tests/conformance.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { McpClient } from "../../src/node/client.js";
import { listSkills, getSkill, loadSkill, serverHasSkills } from "../../src/mcp/skills.js";
import { frontmatterMatches } from "../../src/mcp/skill-frontmatter.js";
import { fixtureServer, repoPath } from "../helpers/paths.js";
import { connectRecorded, readWire, requestsOf, sent } from "../modern/support.js";

const T = { timeout: 60_000 };
const everything = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const skillsServer = fixtureServer("skills.mjs");
type Coded = Error & { code?: string };
const reads = (out: string): string[] => requestsOf(sent(readWire(out)), "resources/read").map((m) => String((m.params as { uri?: string }).uri));

describe("V9: completions (server-everything)", () => {
  // One server process for the three tests (its start-up is the costly part).
  let client: McpClient;
  before(async () => {
    client = await McpClient.connectStdio("node", [everything, "stdio"], undefined, { era: "legacy", handshakeTimeoutMs: 30_000 });
  });
  after(() => client?.close());

  test("V9: complete() suggests prompt argument values, narrowed by the context of other arguments", T, async () => {
    const dept = await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "S" } });
    assert.deepEqual(dept.values.sort(), ["Sales", "Support"]);
    const lead = await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "name", value: "" }, context: { department: "Sales" } });
    assert.deepEqual(lead.values, ["David", "Eve", "Frank"]);
  });

  test("V9: complete() suggests resource-template variable values", T, async () => {
    const ok = await client.complete({ ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" }, argument: { name: "resourceId", value: "7" } });
    assert.deepEqual(ok.values, ["7"]);
    const none = await client.complete({ ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" }, argument: { name: "resourceId", value: "x" } });
    assert.deepEqual(none.values, []);
  });

  test("V9, X3: complete(client, request) works on the web entry's client, and a withCallTimeout view of yada/node's client keeps complete()", T, async () => {
    const { complete } = await import("../../src/mcp/completions.js");
    const ref = { type: "ref/prompt", name: "completable-prompt" } as const;
    const viaFunction = await complete(client, { ref, argument: { name: "department", value: "Su" } });
    assert.deepEqual(viaFunction.values, ["Support"]);
    const view = client.withCallTimeout(5_000);
    assert.ok(view instanceof McpClient);
    assert.deepEqual((await view.complete({ ref, argument: { name: "department", value: "Su" } })).values, ["Support"]);
  });

  test("V9: a malformed completion request is refused before anything is sent", T, async () => {
    const bad = { ref: { type: "ref/tool", name: "x" }, argument: { name: "a", value: "" } } as unknown as Parameters<McpClient["complete"]>[0];
    await assert.rejects(client.complete(bad), (e: Coded) => e.code === "validation");
  });
});

describe("V9: skills extension (SEP-2640)", { concurrency: true }, () => {
  test("V9: listing reads no file; loading reads and verifies SKILL.md; a listed supporting file is read verified", T, async () => {
    const { client, out } = await connectRecorded(["node", skillsServer], { era: "legacy" });
    try {
      assert.equal(serverHasSkills(client), true);
      const [skill] = await listSkills(client);
      assert.ok(skill);
      assert.equal(skill.frontmatter.name, "pdf-tools");
      assert.deepEqual(await getSkill(client, skill.uri), skill);
      const loaded = await loadSkill(client, skill);
      assert.match(loaded.text, /references\/FORMS\.md/);
      const forms = new TextDecoder().decode(await loaded.readFile("references/FORMS.md"));
      assert.equal(forms, "Field list: name, date, signature.\n");
      await assert.rejects(loaded.readFile("extra.md"), (e: Coded) => e.code === "protocol" && /not one of the skill's files/.test(e.message));
    } finally {
      await client.close();
    }
    assert.deepEqual(reads(out), ["skill://acme/pdf-tools/SKILL.md", "skill://acme/pdf-tools/references/FORMS.md"], "nothing read ahead of need, nothing unlisted");
  });

  for (const tamper of ["digest", "size", "frontmatter"]) {
    test(`V9: a SKILL.md that fails ${tamper} verification is not loaded`, T, async () => {
      const { client, out } = await connectRecorded(["node", skillsServer, "--tamper", tamper], { era: "legacy" });
      try {
        const [skill] = await listSkills(client);
        assert.ok(skill);
        await assert.rejects(loadSkill(client, skill), (e: Coded) => e.code === "protocol" && /verification failed/.test(e.message));
      } finally {
        await client.close();
      }
      assert.deepEqual(reads(out), ["skill://acme/pdf-tools/SKILL.md"]);
    });
  }
});

test("V9: SKILL.md frontmatter is compared field by field, typed as YAML reads it, and fails closed on YAML it does not parse", () => {
  const md = (fm: string) => `---\n${fm}\n---\nbody\n`;
  const entry = { name: "x", description: "d" };
  assert.equal(frontmatterMatches(md("name: x\ndescription: d"), entry), undefined);
  assert.equal(frontmatterMatches(md("name: x\ndescription: 'd'  "), entry), undefined);
  assert.equal(frontmatterMatches(md('name: "x"\ndescription: d # a comment'), entry), undefined);
  assert.match(frontmatterMatches(md("name: x\ndescription: e"), entry) ?? "", /description differs/);
  assert.match(frontmatterMatches(md("name: x\ndescription: d\nextra: 1"), entry) ?? "", /other fields/);
  assert.match(frontmatterMatches(md("name: x"), entry) ?? "", /other fields|missing/);
  // Typing: an unquoted 2 is the number 2; a quoted "2" is the string only.
  assert.equal(frontmatterMatches(md("name: x\ndescription: d\nv: 2"), { ...entry, v: 2 }), undefined);
  assert.match(frontmatterMatches(md('name: x\ndescription: d\nv: "2"'), { ...entry, v: 2 }) ?? "", /v differs/);
  assert.equal(frontmatterMatches(md("name: x\ndescription: d\nmeta:\n  a: true\n  b: [1]"), { ...entry, meta: { a: true, b: [1] } })?.startsWith("unreadable"), true);
  assert.equal(frontmatterMatches(md("name: x\ndescription: d\ntags:\n- a\n- b"), { ...entry, tags: ["a", "b"] }), undefined);
  for (const bad of ["name: &a x\ndescription: d", "name: x\ndescription: |\n  d", "name: x\ndescription: {a: 1}", "name: x\nname: x\ndescription: d"]) {
    assert.match(frontmatterMatches(md(bad), entry) ?? "", /^unreadable/, bad);
  }
  assert.match(frontmatterMatches("no frontmatter\n", entry) ?? "", /^unreadable/);
});
