// U6, P4: the y/n prompts on a real pseudo-terminal. Ctrl-C or Ctrl-D at `yada
// run`'s [y/N] leaves the action awaiting approval, prints the commands that
// decide it later, exits 130, and those commands, run as printed, decide and
// execute it; `yada call` of a tool not marked read-only asks first.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXIT } from "../../src/cli/exit.js";
import { splitCommandLine } from "../../src/cli/args.js";
import type { ActionRecord } from "../../src/actions/types.js";
import { fixtureServer } from "../helpers/paths.js";
import { yada, yadaOnTerminal } from "./support.js";

type CatalogHttpModule = typeof import("../../fixtures/servers/catalog/http.mjs");
const { startCatalogHttp } = (await import(pathToFileURL(fixtureServer("catalog/http.mjs")).href)) as CatalogHttpModule;

const T = { timeout: 60_000 };
let dir: string;
let plan: string;
before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "yada-prompt-")));
  plan = join(dir, "rename.json");
  writeFileSync(plan, JSON.stringify([{ toolCalls: [{ name: "catalog__rename", arguments: { sku: "ABC-123", name: "Widget Pro" } }] }, { text: "Done." }]));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** The printed command line that starts with `prefix`, as words (the CLI prints them quoted for a shell). */
function printed(screen: string, prefix: string): string[] {
  const line = screen.split("\n").find((l) => l.trimStart().startsWith(prefix));
  assert.ok(line, `no line starting with ${prefix}:\n${screen}`);
  return splitCommandLine(line.trim()).slice(1); // without "yada"
}

describe("U6: interrupting the approval prompt", T, () => {
  for (const [key, name] of [
    ["\u0003", "Ctrl-C"],
    ["\u0004", "Ctrl-D"],
  ] as const) {
    test(`U6: ${name} at the [y/N] prompt leaves the action awaiting approval, prints how to decide it, exits 130; the printed commands then decide and execute it`, T, async () => {
      const http = await startCatalogHttp();
      try {
        const store = join(dir, `${name}.jsonl`);
        const term = yadaOnTerminal(["run", "Rename it", "--url", http.url, "--name", "catalog", "--provider", "scripted", "--script", plan, "--store", store]);
        await term.waitFor(/approve catalog__rename \(call call_1_1\)\? \[y\/N\] /);
        term.type(key);
        const { code, screen } = await term.done;
        assert.equal(code, EXIT.interrupted, screen);
        assert.doesNotMatch(screen, /internal/);
        assert.match(screen, /yada: cancelled: the approval prompt was interrupted; 1 action still awaits approval/);
        const [action] = JSON.parse((await yada(["actions", "list", "--store", store, "--json"])).stdout) as ActionRecord[];
        assert.equal(action?.state, "awaiting_approval");
        assert.match(screen, new RegExp(`still awaiting approval \\(nothing was executed for it\\):\\n  ${action.id}  catalog__rename\\n`));
        assert.match((await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", http.url])).stdout, /Widget,/, "nothing was renamed");

        // The commands as printed: approve, then the worker (one pass).
        const approve = await yada(printed(screen, `yada actions approve ${action.id}`));
        assert.equal(approve.code, EXIT.ok, approve.stderr);
        assert.match(printed(screen, "yada actions reject").join(" "), new RegExp(`^actions reject ${action.id} <reason> --store `));
        const worker = await yada([...printed(screen, "yada worker"), "--once"]);
        assert.equal(worker.code, EXIT.ok, worker.stderr);
        assert.match(worker.stdout, new RegExp(`${action.id}  catalog__rename  succeeded: Renamed ABC-123 from Widget to Widget Pro`));
        assert.match((await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", http.url])).stdout, /Widget Pro/);
      } finally {
        await http.close();
      }
    });
  }
});

describe("P4: yada call of a tool not marked read-only", T, () => {
  test("P4: on a terminal it asks first: n calls nothing (exit 4), y calls it", T, async () => {
    const http = await startCatalogHttp();
    try {
      const ask = (): ReturnType<typeof yadaOnTerminal> => yadaOnTerminal(["call", "rename", '{"sku":"ABC-123","name":"Asked"}', "--url", http.url]);
      const no = ask();
      await no.waitFor(/call rename now\? \[y\/N\] /);
      assert.match(no.screen(), /yada: rename is not marked read-only: a direct call may change things and bypasses approvals/);
      no.type("n\r");
      const declined = await no.done;
      assert.equal(declined.code, EXIT.approval, declined.screen);
      assert.match(declined.screen, /yada: approval_required: rename was not called \(declined at the terminal\)/);
      assert.match((await yada(["call", "lookup", '{"sku":"ABC-123"}', "--url", http.url])).stdout, /Widget,/);
      const yes = ask();
      await yes.waitFor(/\[y\/N\] /);
      yes.type("y\r");
      const called = await yes.done;
      assert.equal(called.code, EXIT.ok, called.screen);
      assert.match(called.screen, /Renamed ABC-123 from Widget to Asked/);
    } finally {
      await http.close();
    }
  });
});
