// V6, X6, P4: the CLI answers a server's elicitation and sampling requests only
// when asked (--elicit, --sampling), against server-everything as a real process:
// the CLI process over stdio (no terminal: elicitations are declined; sampling by
// the scripted provider), and the terminal prompt logic over a real connection
// with typed lines fed in (the answer goes through the client's schema check).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpClient } from "../../src/node/client.js";
import { elicitationHandlers, parseField, type AskLine } from "../../src/cli/host-handlers.js";
import type { Io } from "../../src/cli/terminal.js";
import { EXIT } from "../../src/cli/exit.js";
import { repoPath } from "../helpers/paths.js";
import { quote, yada } from "./support.js";

const T = { timeout: 60_000 };
const ENTRY = repoPath("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const EVERYTHING = [process.execPath, ENTRY, "stdio"].map(quote).join(" ");

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "yada-host-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function plan(steps: unknown[]): string {
  const file = join(dir, `plan-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(steps));
  return file;
}

/** An Io that keeps stderr, and an AskLine answering from `lines` in order (recording the questions). */
function terminal(lines: string[]): { io: Io; ask: AskLine; err: () => string; questions: string[] } {
  let err = "";
  const questions: string[] = [];
  const io: Io = { out: () => {}, err: (t) => void (err += t), color: false, errIsTTY: true, outIsTTY: true, columns: 100, env: {} };
  const ask: AskLine = async (q) => {
    questions.push(q);
    const next = lines.shift();
    if (next === undefined) throw new Error(`no typed line left for ${JSON.stringify(q)}`);
    return next;
  };
  return { io, ask, err: () => err, questions };
}

async function everything(elicitation: NonNullable<Parameters<typeof elicitationHandlers>[1]> | undefined, io: Io): Promise<McpClient> {
  return McpClient.connectStdio(process.execPath, [ENTRY, "stdio"], undefined, { name: "everything", handlers: { elicitation: elicitationHandlers(io, elicitation) } });
}

const textOf = (r: { content: Array<{ type: string; text?: string }> }): string => r.content.map((c) => c.text ?? "").join("\n");

describe("V6: the yada CLI process and server-everything", T, () => {
  test("V6, P4: without --elicit / --sampling nothing is declared: the server offers no elicitation or sampling tool", async () => {
    const r = await yada(["tools", "--json", "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    const names = (JSON.parse(r.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    assert.ok(names.includes("echo"), names.join(","));
    for (const n of ["trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request"]) assert.ok(!names.includes(n), `${n} offered without the flag`);
    const stray = await yada(["tools", "--provider", "scripted", "--stdio", EVERYTHING]);
    assert.equal(stray.code, EXIT.usage);
    assert.match(stray.stderr, /--provider does not apply to tools without --sampling/);
  });

  test("X6, V6: --elicit without a terminal declines a form elicitation, and says so on stderr", async () => {
    const r = await yada(["call", "trigger-elicitation-request", "--yes", "--elicit", "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    assert.match(r.stdout, /User declined to provide the requested information/);
    assert.match(r.stderr, /the server asked for input \(form\); declined, as there is no terminal/);
  });

  test("X6, V6: --sampling answers sampling/createMessage with the provider run uses (scripted, offline)", async () => {
    const r = await yada(["call", "trigger-sampling-request", '{"prompt":"hi"}', "--yes", "--sampling", "--provider", "scripted", "--script", plan([{ text: "hello from the plan" }]), "--stdio", EVERYTHING]);
    assert.equal(r.code, EXIT.ok, r.stderr);
    const result = JSON.parse(r.stdout.slice(r.stdout.indexOf("{"))) as { role: string; model: string; content: { type: string; text: string } };
    assert.deepEqual(result.content, { type: "text", text: "hello from the plan" });
    assert.equal(result.role, "assistant");
    assert.equal(result.model, "scripted");
    assert.match(r.stderr, /the server asked the model \(1 message\); answered by scripted/);
    // The same provider choice as run: no key and no --provider is refused before anything starts.
    const none = await yada(["tools", "--sampling", "--stdio", EVERYTHING]);
    assert.equal(none.code, EXIT.usage);
    assert.match(none.stderr, /no model provider/);
  });
});

describe("V6: the terminal prompts of --elicit over a real server-everything connection", T, () => {
  test("X6, V6: a form is shown field by field and the typed answers reach the server, defaults filled in", async () => {
    // accept; name; check; firstLine (default); email; homepage; birthdate; integer (default); then every other field its default.
    const t = terminal(["a", "Ada \u001b[2JLovelace", "y", "", "ada@example.com", "https://example.com/ada", "1815-12-10", "", "", "", "", "", "", ""]);
    const client = await everything(t.ask, t.io);
    try {
      const r = await client.callTool("trigger-elicitation-request", {});
      const text = textOf(r);
      assert.match(text, /User provided the requested information/);
      assert.match(text, /"action": "accept"/);
      assert.match(text, /- Agreed to terms: true/);
      assert.match(text, /- Favorite Integer: 42/); // the schema's default, left empty at the prompt
      assert.match(text, /- Email: ada@example\.com/);
      // The form as shown: the message and every field, with choices, through the terminal filter.
      const shown = t.err();
      assert.match(shown, /Please provide inputs for the following fields:/);
      assert.match(shown, /name \(String\) \[string, required\]/);
      assert.match(shown, /untitledSingleSelectEnum .* one of: 1\) Monica 2\) Rachel/);
      assert.equal(t.questions[0], "Answer it? [a]ccept, [d]ecline, [c]ancel: ");
    } finally {
      await client.close();
    }
  });

  test("V6: decline and cancel are passed on; an answer outside the schema never reaches the server as accepted", async () => {
    for (const [line, expected] of [["d", /User declined/], ["cancel", /User cancelled/]] as const) {
      const t = terminal([line]);
      const client = await everything(t.ask, t.io);
      try {
        assert.match(textOf(await client.callTool("trigger-elicitation-request", {})), expected);
      } finally {
        await client.close();
      }
    }
    // integer 500 is a number (the prompt takes it) but over the schema's maximum of 100:
    // the client's check refuses the answer, so the server gets an error, not the value.
    const t = terminal(["a", "Ada", "", "", "", "", "", "500", "", "", "", "", "", ""]);
    const client = await everything(t.ask, t.io);
    try {
      const r = await client.callTool("trigger-elicitation-request", {}).then(
        (x) => textOf(x),
        (e: Error) => `error: ${e.message}`,
      );
      assert.match(r, /the elicitation answer failed schema validation: must be <= 100/);
      assert.doesNotMatch(r, /"action": "accept"/);
      assert.doesNotMatch(r, /Favorite Integer: 500/);
    } finally {
      await client.close();
    }
  });

  test("X6, V6: a URL elicitation shows the URL in full with its domain, is not opened, and the choice is passed on", async () => {
    const url = "https://login.example.com/flow?step=1&state=abc#frag";
    const t = terminal(["a"]);
    const client = await everything(t.ask, t.io);
    try {
      const r = textOf(await client.callTool("trigger-url-elicitation", { url, message: "Sign in \u001b]0;title\u0007 please" }));
      assert.match(r, /accept/);
      const shown = t.err();
      assert.ok(shown.includes(`url:    ${url}`), shown);
      assert.match(shown, /domain: login\.example\.com/);
      assert.match(shown, /yada does not open it/);
      assert.ok(!shown.includes("\u001b"), "an escape sequence reached the terminal");
    } finally {
      await client.close();
    }
  });

  test("V6: typed values are parsed by the field's type, choices by number or value", () => {
    assert.deepEqual(parseField({ type: "integer" }, "7"), { value: 7 });
    assert.ok("error" in parseField({ type: "integer" }, "7.5"));
    assert.deepEqual(parseField({ type: "boolean" }, "no"), { value: false });
    assert.deepEqual(parseField({ type: "string", oneOf: [{ const: "hero-1", title: "Superman" }, { const: "hero-2", title: "Batman" }] }, "2"), { value: "hero-2" });
    assert.deepEqual(parseField({ type: "array", items: { enum: ["Guitar", "Piano"] } }, "Piano, 1"), { value: ["Piano", "Guitar"] });
    assert.ok("error" in parseField({ type: "string", enum: ["a", "b"] }, "c"));
  });
});
