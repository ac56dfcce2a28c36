// V9 bounds crossed by a real stdio server: completion answers and skill entries
// at each bound are taken, one past it is a `limit` error naming the bound.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { McpClient } from "../../src/node/client.js";
import { listSkills, loadSkill } from "../../src/mcp/skills.js";
import {
  MAX_COMPLETION_VALUE_CHARS,
  MAX_COMPLETION_VALUES,
  MAX_SKILL_FRONTMATTER_BYTES,
  MAX_SKILL_RESOURCES,
  MAX_SKILL_TOTAL_BYTES,
  MAX_SKILLS_LISTED,
} from "../../src/limits.js";
import { limitNamed, stdioServer } from "./support.js";

const T = { timeout: 60_000 };
const caps = { completions: {}, resources: {}, extensions: { "io.modelcontextprotocol/skills": {} } };

// completion/complete: the argument value "<count>x<length>" asks for that many values of that length.
// skills/list: the mode picks the entries; resources/read serves a SKILL.md whose
// frontmatter is padded with a comment to the requested size.
const server = stdioServer(
  `(m) => {
  const p = m.params ?? {};
  if (m.method === "completion/complete") {
    const [n, len] = String(p.argument.value).split("x").map(Number);
    return { completion: { values: Array.from({ length: n }, (_, i) => String(i % 10).repeat(len)) } };
  }
  const digest = "sha256:" + "0".repeat(64);
  const skill = (i, resources) => ({ uri: "skill://b/s" + i + "/SKILL.md", frontmatter: { name: "s" + i, description: "d" }, resources });
  const [what, arg] = mode.split(":");
  if (m.method === "skills/list") {
    if (what === "files") return { skills: [skill(0, Array.from({ length: Number(arg) }, (_, i) => ({ uri: "skill://b/s0/f" + i, digest, size: 1 })))] };
    if (what === "bytes") return { skills: [skill(0, [{ uri: "skill://b/s0/a", digest, size: 1024 }, { uri: "skill://b/s0/b", digest, size: Number(arg) - 1024 }])] };
    if (what === "count") {
      // Pages of 500; the last one short to reach the total.
      const from = Number(p.cursor ?? 0), to = Math.min(Number(arg), from + 500);
      const skills = [];
      for (let i = from; i < to; i++) skills.push(skill(i, []));
      return to < Number(arg) ? { skills, nextCursor: String(to) } : { skills };
    }
    return { skills: [{ uri: "skill://b/x/SKILL.md", frontmatter: { name: "x", description: "d" }, resources: "dynamic" }] };
  }
  if (m.method === "resources/read") {
    // The frontmatter body: two fields, then a comment padding it to exactly arg bytes of "ch".
    const head = "name: x\\ndescription: d\\n# ";
    const ch = what === "wide" ? "\\u00e9" : "a";
    const n = Number(arg) - head.length, w = Buffer.byteLength(ch);
    const text = "---\\n" + head + ch.repeat(Math.floor(n / w)) + "a".repeat(n % w) + "\\n---\\nbody\\n";
    return { contents: [{ uri: p.uri, mimeType: "text/markdown", text }] };
  }
}`,
  caps,
);
const connect = (mode = ""): Promise<McpClient> => McpClient.connectStdio("node", [...server.slice(0, 2), mode], undefined, { era: "legacy", name: "bounds" });

describe("V9: completion answers at their bounds", () => {
  let client: McpClient;
  before(async () => {
    client = await connect();
  });
  after(() => client?.close());
  const ask = (value: string) => client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value } });

  test("V9: an answer of MAX_COMPLETION_VALUES values is taken; one more is a limit error naming the bound", T, async () => {
    assert.equal((await ask(`${MAX_COMPLETION_VALUES}x1`)).values.length, MAX_COMPLETION_VALUES);
    await assert.rejects(ask(`${MAX_COMPLETION_VALUES + 1}x1`), limitNamed("MAX_COMPLETION_VALUES", MAX_COMPLETION_VALUES));
  });

  test("V9: a completion value of MAX_COMPLETION_VALUE_CHARS characters is taken; one character more is a limit error", T, async () => {
    assert.equal((await ask(`1x${MAX_COMPLETION_VALUE_CHARS}`)).values[0]?.length, MAX_COMPLETION_VALUE_CHARS);
    await assert.rejects(ask(`1x${MAX_COMPLETION_VALUE_CHARS + 1}`), limitNamed("MAX_COMPLETION_VALUE_CHARS", MAX_COMPLETION_VALUE_CHARS));
  });
});

describe("V9: skill entries at their bounds", { concurrency: true }, () => {
  const listed = async (mode: string): Promise<number> => {
    const client = await connect(mode);
    try {
      return (await listSkills(client)).length;
    } finally {
      await client.close();
    }
  };

  test("V9: a skill listing MAX_SKILL_RESOURCES files is taken; one file more is a limit error naming the bound", T, async () => {
    assert.equal(await listed(`files:${MAX_SKILL_RESOURCES}`), 1);
    await assert.rejects(listed(`files:${MAX_SKILL_RESOURCES + 1}`), limitNamed("MAX_SKILL_RESOURCES", MAX_SKILL_RESOURCES));
  });

  test("V9: a skill whose files total MAX_SKILL_TOTAL_BYTES is taken; one byte more is a limit error naming the bound", T, async () => {
    assert.equal(await listed(`bytes:${MAX_SKILL_TOTAL_BYTES}`), 1);
    await assert.rejects(listed(`bytes:${MAX_SKILL_TOTAL_BYTES + 1}`), limitNamed("MAX_SKILL_TOTAL_BYTES", MAX_SKILL_TOTAL_BYTES));
  });

  test("V9: MAX_SKILLS_LISTED skills over several pages are taken; one more is a limit error naming the bound", T, async () => {
    assert.equal(await listed(`count:${MAX_SKILLS_LISTED}`), MAX_SKILLS_LISTED);
    await assert.rejects(listed(`count:${MAX_SKILLS_LISTED + 1}`), limitNamed("MAX_SKILLS_LISTED", MAX_SKILLS_LISTED));
  });

  for (const what of ["ascii", "wide"]) {
    test(`V9: a SKILL.md frontmatter of MAX_SKILL_FRONTMATTER_BYTES UTF-8 bytes is verified; one more is not loaded (${what} text)`, T, async () => {
      const load = async (size: number): Promise<string> => {
        const client = await connect(`${what}:${size}`);
        try {
          const [skill] = await listSkills(client);
          assert.ok(skill);
          return (await loadSkill(client, skill)).text;
        } finally {
          await client.close();
        }
      };
      assert.match(await load(MAX_SKILL_FRONTMATTER_BYTES), /body/);
      // A wide character is two bytes: over the bound in bytes while under it in characters.
      await assert.rejects(load(MAX_SKILL_FRONTMATTER_BYTES + 1), (e: Error & { code?: string }) => e.code === "protocol" && /too large/.test(e.message));
    });
  }
});
