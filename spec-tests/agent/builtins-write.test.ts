// R5 (writes): the opt-in Node built-ins writeFile, editFile and runCommand as
// confirm tools: prepare previews and changes nothing, execute runs once and only
// on the state reviewed, paths stay inside the roots (also against a concurrent
// swapper process, Y4), commands come from an allow-list as argument vectors
// (never a shell) with bounded output and time. Real files, real processes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeWriteTools } from "../../src/node/builtins/index.js";
import { ConfigError, ValidationError } from "../../src/errors.js";
import type { ActionOutcome, ApprovedAction, ConfirmTool, Identity, PreparedAction } from "../../src/tools/types.js";

const me: Identity = { actorId: "alice", tenantId: "acme" };
let base: string;
let root: string;
let outside: string;
let swapper: ChildProcess | undefined;
let op = 0;

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "yada-writes-")));
  root = join(base, "root");
  outside = join(base, "outside");
  await mkdir(join(root, "d"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, "f.txt"), "outside\n");
  await symlink(outside, join(root, "out-link"));
  await symlink(join(outside, "f.txt"), join(root, "file-link.txt"));
});
after(async () => {
  swapper?.kill("SIGKILL");
  await rm(base, { recursive: true, force: true });
});

function tools(extra: Parameters<typeof nodeWriteTools>[0] | object = {}): Map<string, ConfirmTool> {
  return new Map(nodeWriteTools({ roots: [root], commands: [process.execPath], commandTimeoutMs: 5_000, ...extra }).map((t) => [t.name, t]));
}

function approve(p: PreparedAction): ApprovedAction {
  return { ...p, operationId: `op-${++op}` };
}

function text(o: ActionOutcome): string {
  assert.ok(o.status !== "unknown");
  return o.result.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

async function outsideUntouched(): Promise<void> {
  assert.deepEqual((await readdir(outside)).sort(), ["f.txt"]);
  assert.equal(await readFile(join(outside, "f.txt"), "utf8"), "outside\n");
}

test("R5: writeFile previews a creation and writes nothing until executed, then exactly once", async () => {
  const w = tools().get("writeFile") as ConfirmTool;
  assert.equal(w.effect, "confirm");
  const p = await w.prepare({ path: "d/new.txt", content: "one\ntwo\n" }, { identity: me });
  assert.match(p.preview ?? "", /^create .*d\/new\.txt: 2 lines, 8 bytes$/);
  const one = await w.prepare({ path: "d/one.txt", content: "x" }, { identity: me });
  assert.match(one.preview ?? "", /^create .*d\/one\.txt: 1 line, 1 byte$/);
  assert.equal(p.stateVersion, "absent");
  await assert.rejects(stat(join(root, "d", "new.txt")), { code: "ENOENT" });
  const action = approve(p);
  const first = await w.execute(action, { identity: me });
  assert.equal(first.status, "succeeded", text(first));
  assert.equal(await readFile(join(root, "d", "new.txt"), "utf8"), "one\ntwo\n");
  // Changed by someone else afterwards: executing the same approval again must not write.
  await writeFile(join(root, "d", "new.txt"), "changed\n");
  const again = await w.execute(action, { identity: me });
  assert.deepEqual(again, first);
  assert.equal(await readFile(join(root, "d", "new.txt"), "utf8"), "changed\n");
});

test("R5: writeFile replacing a file previews a diff summary, keeps its mode and refuses a file changed since review", async () => {
  const w = tools().get("writeFile") as ConfirmTool;
  const path = join(root, "d", "mode.txt");
  await writeFile(path, "a\nb\nc\n", { mode: 0o600 });
  const p = await w.prepare({ path: "d/mode.txt", content: "a\nB\nc\nd\n" }, { identity: me });
  assert.match(p.preview ?? "", /^modify .*: \+2 -1 lines, 3 -> 4 lines, 8 bytes$/);
  assert.match(p.stateVersion ?? "", /^sha256:[0-9a-f]{64}$/);
  const ok = await w.execute(approve(p), { identity: me });
  assert.equal(ok.status, "succeeded", text(ok));
  assert.equal(await readFile(path, "utf8"), "a\nB\nc\nd\n");
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual((await readdir(join(root, "d"))).filter((n) => n.endsWith(".tmp")), []);
  const stale = await w.prepare({ path: "d/mode.txt", content: "x\n" }, { identity: me });
  await writeFile(path, "edited meanwhile\n");
  const refused = await w.execute(approve(stale), { identity: me });
  assert.equal(refused.status, "failed");
  assert.match(text(refused), /changed since the action was reviewed/);
  assert.equal(await readFile(path, "utf8"), "edited meanwhile\n");
});

test("R5: editFile replaces exact text once; an ambiguous or missing oldText is refused at prepare", async () => {
  const e = tools().get("editFile") as ConfirmTool;
  const path = join(root, "d", "code.ts");
  await writeFile(path, "const a = 1;\nconst b = 2;\nconst b2 = 2;\n");
  const p = await e.prepare({ path: "d/code.ts", edits: [{ oldText: "a = 1", newText: "a = 10" }] }, { identity: me });
  assert.match(p.preview ?? "", /^modify .*code\.ts: \+1 -1 lines/);
  assert.equal(await readFile(path, "utf8"), "const a = 1;\nconst b = 2;\nconst b2 = 2;\n");
  const done = await e.execute(approve(p), { identity: me });
  assert.equal(done.status, "succeeded", text(done));
  assert.equal(await readFile(path, "utf8"), "const a = 10;\nconst b = 2;\nconst b2 = 2;\n");
  await assert.rejects(e.prepare({ path: "d/code.ts", edits: [{ oldText: "= 2;", newText: "= 3;" }] }, { identity: me }), (x: unknown) => x instanceof ValidationError && /more than once/.test(x.message));
  await assert.rejects(e.prepare({ path: "d/code.ts", edits: [{ oldText: "nope", newText: "" }] }, { identity: me }), (x: unknown) => x instanceof ValidationError && /does not occur/.test(x.message));
  await assert.rejects(e.prepare({ path: "d/missing.ts", edits: [{ oldText: "a", newText: "b" }] }, { identity: me }), ValidationError);
});

test("R5: writes outside the roots are refused: '..', absolute paths, a linked directory, a linked file", async () => {
  const w = tools().get("writeFile") as ConfirmTool;
  for (const path of ["../outside/x.txt", join(outside, "x.txt"), "out-link/x.txt", "out-link/f.txt", "file-link.txt", "d"]) {
    await assert.rejects(w.prepare({ path, content: "pwned\n" }, { identity: me }), (x: unknown) => x instanceof ValidationError, path);
  }
  // An approved action whose arguments were altered afterwards is checked again at execute.
  const p = await w.prepare({ path: "d/ok.txt", content: "ok\n" }, { identity: me });
  const tampered = await w.execute({ ...approve(p), arguments: { path: "out-link/x.txt", content: "pwned\n" } }, { identity: me });
  assert.equal(tampered.status, "failed");
  await outsideUntouched();
});

test("R5: an approval for another version or tool executes nothing; the version covers roots and commands", async () => {
  const w = tools().get("writeFile") as ConfirmTool;
  const p = await w.prepare({ path: "d/v.txt", content: "v\n" }, { identity: me });
  const o = await w.execute({ ...approve(p), version: "confirm:other" }, { identity: me });
  assert.equal(o.status, "failed");
  await assert.rejects(stat(join(root, "d", "v.txt")), { code: "ENOENT" });
  const other = nodeWriteTools({ roots: [root, outside] }).find((t) => t.name === "writeFile") as ConfirmTool;
  assert.notEqual(other.version, w.version);
  assert.notEqual((tools({ commands: ["git"] }).get("runCommand") as ConfirmTool).version, (tools().get("runCommand") as ConfirmTool).version);
});

test("R5: runCommand runs only allowed programs, as an argument vector, never through a shell", async () => {
  const r = tools().get("runCommand") as ConfirmTool;
  await assert.rejects(r.prepare({ argv: ["sh", "-c", "echo hi"] }, { identity: me }), (x: unknown) => x instanceof ValidationError && /not an allowed command/.test(x.message));
  await assert.rejects(r.prepare({ argv: "node -e 1" }, { identity: me }), ValidationError);
  await assert.rejects(r.prepare({ argv: [process.execPath], cwd: "../outside" }, { identity: me }), ValidationError);
  const marker = join(root, "d", "marker");
  const argv = [process.execPath, "-e", "console.log(JSON.stringify(process.argv.slice(1)), process.cwd())", `x; touch ${marker}`, "$(touch m2)", "*"];
  const p = await r.prepare({ argv, cwd: "d" }, { identity: me });
  assert.match(p.preview ?? "", /^run in .*\/d: /);
  const o = await r.execute(approve(p), { identity: me });
  assert.equal(o.status, "succeeded", text(o));
  assert.ok(text(o).includes(JSON.stringify([`x; touch ${marker}`, "$(touch m2)", "*"])), text(o));
  assert.ok(text(o).includes(join(root, "d")));
  await assert.rejects(stat(marker), { code: "ENOENT" });
  const fail = await r.execute(approve(await r.prepare({ argv: [process.execPath, "-e", "process.exit(3)"] }, { identity: me })), { identity: me });
  assert.equal(fail.status, "failed");
  assert.match(text(fail), /exit status 3/);
});

test("R5: runCommand output is bounded and a command past its timeout is killed with its process group", { timeout: 30_000 }, async () => {
  const r = nodeWriteTools({ roots: [root], commands: [process.execPath], commandTimeoutMs: 1_000 }).find((t) => t.name === "runCommand") as ConfirmTool;
  const loud = await r.execute(approve(await r.prepare({ argv: [process.execPath, "-e", "process.stdout.write('x'.repeat(5_000_000))"] }, { identity: me })), { identity: me });
  assert.equal(loud.status, "succeeded");
  assert.ok(text(loud).length < 40_000 && /output cut/.test(text(loud)));
  // The child starts a grandchild that would write a file after 3 s: the group kill stops both.
  const late = join(root, "d", "late");
  const grandchild = `setTimeout(() => require("fs").writeFileSync(${JSON.stringify(late)}, "x"), 3000)`;
  const script = `require("child_process").spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "ignore" }); setInterval(() => {}, 1000);`;
  const t0 = Date.now();
  const slow = await r.execute(approve(await r.prepare({ argv: [process.execPath, "-e", script] }, { identity: me })), { identity: me });
  assert.equal(slow.status, "failed");
  assert.match(text(slow), /timed out after 1000 ms and was killed/);
  assert.ok(Date.now() - t0 < 10_000);
  await new Promise((res) => setTimeout(res, 3_500));
  await assert.rejects(stat(late), { code: "ENOENT" });
});

test("R5: nodeWriteTools needs roots; no runCommand without an allow-list", () => {
  assert.throws(() => nodeWriteTools({ roots: [] }), ConfigError);
  assert.throws(() => nodeWriteTools({ roots: [root], commands: "git" as unknown as string[] }), ConfigError);
  assert.deepEqual(nodeWriteTools({ roots: [root] }).map((t) => t.name), ["writeFile", "editFile"]);
});

// Swaps root/s between a real directory and a link to ../outside until killed.
const SWAPPER = `
const fs = require("node:fs");
const [d, real, out] = process.argv.slice(1);
for (;;) {
  try { fs.renameSync(d, real); fs.symlinkSync(out, d); } catch {}
  try { fs.unlinkSync(d); fs.renameSync(real, d); } catch {}
}`;

test("Y4: writes through a directory swapped for a link to outside, concurrently, never land outside the root", { timeout: 30_000 }, async () => {
  await mkdir(join(root, "s"));
  await writeFile(join(root, "s", "f.txt"), "inside\n");
  const t = tools();
  const w = t.get("writeFile") as ConfirmTool;
  const e = t.get("editFile") as ConfirmTool;
  swapper = spawn(process.execPath, ["-e", SWAPPER, join(root, "s"), join(root, "s-real"), outside], { stdio: "ignore" });
  let written = 0;
  const until = Date.now() + 2_500;
  while (Date.now() < until) {
    const outcomes = await Promise.all(
      [
        w.prepare({ path: "s/f.txt", content: "inside\n" }, { identity: me }),
        w.prepare({ path: "s/g.txt", content: "new\n" }, { identity: me }),
        e.prepare({ path: "s/f.txt", edits: [{ oldText: "inside", newText: "inside" }] }, { identity: me }),
      ].map(async (prepared, i) => {
        const p = await prepared.catch(() => undefined);
        if (p === undefined) return undefined;
        return (i === 2 ? e : w).execute(approve(p), { identity: me });
      }),
    );
    written += outcomes.filter((o) => o?.status === "succeeded").length;
  }
  swapper.kill("SIGKILL");
  swapper = undefined;
  await outsideUntouched();
  assert.ok(written > 0, "no write went through between swaps");
});
