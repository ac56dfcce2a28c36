// U8: the approval inbox in a real browser, as a person uses it: headless Chromium
// from the dev dependency, driven over the DevTools protocol (./cdp.ts, on
// --remote-debugging-pipe: no WebSocket client, no new dependency). The inbox is
// served by toNodeListener on 127.0.0.1; actions are prepared against the reference
// contract server (a real MCP server over stdio) and, once approved in the page,
// executed by a worker against that server, whose own log says what it performed.
//
// Each page's screenshot is saved under build/screenshots/; with
// YADA_UPDATE_SCREENSHOTS=1 also under docs/images/, where docs/approvals.md shows them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { createActions, type Actions } from "../../src/actions/approvals.js";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import type { ActionRecord } from "../../src/actions/types.js";
import { createWorker } from "../../src/actions/worker.js";
import { createApprovalInbox } from "../../src/inbox/inbox.js";
import { toNodeListener } from "../../src/node/fetch-adapter.js";
import type { ConfirmTool, WriteTool } from "../../src/tools/types.js";
import { alice, deleteTool, logLines, performed, renameTool, startContract, type ContractServer } from "../actions/support.js";
import { repoPath } from "../helpers/paths.js";
import { Browser } from "./cdp.js";

const T = { timeout: 90_000 };
const shots = repoPath("build", "screenshots");
const docsShots = process.env.YADA_UPDATE_SCREENSHOTS === "1" ? repoPath("docs", "images") : undefined;

let browser: Browser;
let contract: ContractServer;
let store: MemoryActionStore;
let actions: Actions;
let rename: WriteTool & { executes: number };
let remove: ConfirmTool & { executes: number };
let server: Server;
let origin = "";

before(async () => {
  contract = await startContract();
  rename = renameTool(contract.client, alice);
  remove = deleteTool(contract.client);
  store = new MemoryActionStore();
  actions = createActions({ store, mayApprove: () => true });
  const inbox = createApprovalInbox({
    store,
    // The host's authentication: here a header the browser sends with every request
    // (Network.setExtraHTTPHeaders), as a session cookie would be.
    authenticate: (request) => {
      const [actorId, tenantId] = (request.headers.get("x-user") ?? "").split("@");
      return actorId && tenantId ? { actorId, tenantId } : undefined;
    },
    mayApprove: (approver, action) => approver.actorId !== action.actorId,
    mayResolve: (operator) => operator.actorId === "bob",
    title: "Acme approvals",
  });
  server = createServer((req, res) => listener(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const listener = toNodeListener(inbox, { origin });
  browser = await Browser.launch();
  await browser.send("Network.setExtraHTTPHeaders", { headers: { "x-user": "bob@acme" } });
  // At the start of every document, before the page's own markup: collect CSP
  // violations, and try to run an inline script. With the CSP in force it never runs.
  await browser.send("Page.addScriptToEvaluateOnNewDocument", {
    source: `window.__violations = [];
      document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline")));
      document.addEventListener("DOMContentLoaded", () => {
        const s = document.createElement("script");
        s.textContent = "window.__inlineRan = true";
        document.head.appendChild(s);
      });`,
  });
}, T);

after(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? (server.closeAllConnections(), server.close(() => r())) : r()));
  await contract?.close();
});

async function screenshot(name: string): Promise<void> {
  const png = await browser.screenshot();
  assert.ok(png.length > 1_000, "a screenshot");
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, `inbox-${name}.png`), png);
  if (docsShots) {
    mkdirSync(docsShots, { recursive: true });
    writeFileSync(join(docsShots, `inbox-${name}.png`), png);
  }
}

/** Proposes a rename prepared by the contract server (real state version and preview). */
async function proposeRename(id: string, name: string): Promise<ActionRecord> {
  return actions.propose(await rename.prepare({ id, name }, { identity: alice }), { identity: alice, effect: "write", runId: "run-42" });
}

const text = () => browser.eval<string>("document.querySelector('main').innerText");
const state = async (id: string) => (await store.get(id))?.state;
const worker = () => createWorker({ store, resolveTool: (a) => (a.tool === rename.name ? rename : a.tool === remove.name ? remove : undefined), concurrency: 1 });

/** What no inbox page may ever hold, checked in the DOM the browser built, with the CSP in force. */
async function assertInert(what: string): Promise<void> {
  const dom = await browser.eval<{ pwned: unknown; inline: unknown; active: number; handlers: string[]; foreignLinks: string[]; violations: string[]; styled: string; csp: boolean }>(`({
    pwned: window.pwned,
    inline: window.__inlineRan,
    active: document.querySelectorAll("script:not([data-probe]), img, iframe, object, embed, link, base, svg, math, meta[http-equiv]").length,
    handlers: [...document.querySelectorAll("*")].flatMap((el) => [...el.attributes].filter((a) => /^on|^autofocus$|^style$|^src$/i.test(a.name)).map((a) => el.tagName + " " + a.name)),
    foreignLinks: [...document.querySelectorAll("a[href], form[action]")].map((el) => el.href || el.action).filter((u) => !u.startsWith(${JSON.stringify(origin)} + "/")),
    violations: window.__violations,
    styled: getComputedStyle(document.querySelector("header")).display,
    csp: true,
  })`);
  assert.equal(dom.pwned, undefined, `${what}: no hostile script ran`);
  assert.equal(dom.inline, undefined, `${what}: the CSP blocked an inline script`);
  assert.ok(dom.violations.some((v) => v.startsWith("script-src")), `${what}: the inline script was refused by the CSP (${dom.violations.join(", ")})`);
  assert.ok(dom.violations.every((v) => v.startsWith("script-src")), `${what}: nothing else was refused: the page itself loads nothing (${dom.violations.join(", ")})`);
  assert.equal(dom.styled, "flex", `${what}: the inline style sheet applies (its hash is in the CSP)`);
  assert.deepEqual(dom.handlers, [], `${what}: no event handler, autofocus, style or src attribute`);
  // The injected probe is the only script element.
  assert.equal(dom.active - (await browser.eval<number>("document.querySelectorAll('head > script').length")), 0, `${what}: no active element`);
  assert.deepEqual(dom.foreignLinks, [], `${what}: every link and form stays in the inbox`);
}

test("U8: approve end to end: the pending list, the action's page, Approve; the worker sends the call to the MCP server once", T, async () => {
  const a = await proposeRename("A", "Apricots");
  await proposeRename("B", "Blueberries");
  await browser.goto(`${origin}/`);
  assert.match(await text(), /2 actions wait for approval/);
  await assertInert("pending");
  await screenshot("pending");
  await browser.loads(() => browser.eval(`document.querySelector('a[href="/actions/${a.id}"]').click()`));
  const page = await text();
  assert.match(page, /Rename A from "[^"]+" to "Apricots"/, "the server's preview");
  assert.match(page, /Preview — text from the server/);
  assert.match(page, /"name": "Apricots"/);
  assert.ok(page.includes(a.argumentsHash) && page.includes(a.stateVersion!));
  await assertInert("action");
  await screenshot("action");
  await browser.loads(() => browser.eval("document.querySelector('button.approve').click()"));
  assert.equal(await browser.eval("location.pathname + location.search"), `/actions/${a.id}?done=approved`);
  assert.match(await text(), /Approved\. A worker sends it next\./);
  assert.equal(await state(a.id), "approved");
  assert.equal(performed(contract.log, a.operationId), 0, "nothing is sent by approving");
  await worker().runOnce();
  assert.equal(await state(a.id), "succeeded");
  assert.equal(performed(contract.log, a.operationId), 1, "the server performed the rename once");
  await browser.goto(`${origin}/history`);
  assert.match(await text(), /items__rename\s+id: "A", name: "Apricots"\s+succeeded\s+bob/);
  await assertInert("history");
  await screenshot("history");
});

test("U8: reject end to end: a reason typed in the page reaches the record; the worker never sends the call", T, async () => {
  const d = await actions.propose(await remove.prepare({ id: "C" }, { identity: alice }), { identity: alice, effect: "confirm" });
  await browser.goto(`${origin}/actions/${d.id}`);
  await browser.eval("document.querySelector('#reason').focus()");
  await browser.type("Item C is still in use");
  await browser.loads(() => browser.eval("document.querySelector('button.reject').click()"));
  assert.match(await text(), /Rejected\. The agent reads your reason\./);
  assert.equal((await store.get(d.id))?.rejection?.reason, "Item C is still in use");
  const before = remove.executes;
  await worker().runOnce();
  assert.equal(remove.executes, before, "a rejected call is never sent");
  assert.ok(!logLines(contract.log).some((l) => l.tool === "delete_item"), "the server never saw it");
});

test("U8: hostile strings in tool names, arguments, previews and reasons stay inert text in the DOM, with the CSP in force; nothing covers the buttons", T, async () => {
  const hostile = [
    "<script>window.pwned=1</script>",
    '"><img src=x onerror="window.pwned=2">',
    "javascript:window.pwned=3",
    "<style>*{display:none!important}</style><a href=javascript:alert(1)>x</a>",
    "\u202Eexe.txt\u2066\u200B",
  ];
  const ids: string[] = [];
  for (const h of hostile) {
    const a = await actions.propose({ tool: h.slice(0, 64), version: "v1", arguments: { [h]: h, huge: "z".repeat(1_000_000) }, stateVersion: h, preview: `${h}${"\u0301".repeat(300)}\n${"w".repeat(5_000)}` }, { identity: { actorId: h.slice(0, 200), tenantId: "acme" }, effect: "write" });
    ids.push(a.id);
  }
  await browser.goto(`${origin}/`);
  await assertInert("pending, hostile");
  const body = await browser.eval<string>("document.body.innerText");
  assert.ok(body.includes("<script>window.pwned=1</script>"), "markup shows as text");
  assert.doesNotMatch(body, /[\u202A-\u202E\u2066-\u2069\u200B]/, "no bidi control or zero-width character reaches the text");
  assert.match(body, /U\+202E/);
  for (const id of ids) {
    await browser.goto(`${origin}/actions/${id}`);
    await assertInert(`action ${id}`);
    // The 1 MB argument is all there, in a box of bounded height; the buttons sit where
    // they are, and at each one's centre the topmost element is that button.
    const layout = await browser.eval<{ full: boolean; boxHeight: number; hits: boolean[] }>(`(() => {
      const pre = document.querySelector("pre[aria-label]");
      const hits = [...document.querySelectorAll("button")].map((b) => {
        b.scrollIntoView({ block: "center" });
        const r = b.getBoundingClientRect();
        return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === b;
      });
      return { full: pre.textContent.includes("z".repeat(1000000)), boxHeight: pre.getBoundingClientRect().height, hits };
    })()`);
    assert.equal(layout.full, true);
    assert.ok(layout.boxHeight <= 420, `the arguments box is ${layout.boxHeight}px high`);
    assert.deepEqual(layout.hits, [true, true], "nothing of the page's text covers a button");
  }
  await browser.eval("window.scrollTo(0, 0)");
  await screenshot("hostile");
  // A hostile rejection reason, typed as a person would paste it.
  await browser.goto(`${origin}/actions/${ids[0]}`);
  await browser.eval("document.querySelector('#reason').focus()");
  await browser.type(hostile.join(" "));
  await browser.loads(() => browser.eval("document.querySelector('button.reject').click()"));
  assert.equal(await state(ids[0]!), "rejected");
  await assertInert("a hostile reason");
  assert.ok((await text()).includes("<script>window.pwned=1</script>"));
  await browser.goto(`${origin}/history`);
  await assertInert("history, hostile");
  for (const id of ids.slice(1)) await actions.reject((await store.get(id))!, { actorId: "carol", tenantId: "acme" }, "cleanup");
});

/**
 * In the element `selector` (the `which`-th of them), whether `tokens` (in the order the
 * text holds them) are shown left to right, each after the one before it: the pieces
 * that are not where they read, as "before | after".
 */
function outOfOrder(selector: string, tokens: string[], which = 0): Promise<string[]> {
  return browser.eval<string[]>(`(() => {
    const root = document.querySelectorAll(${JSON.stringify(selector)})[${which}];
    const nodes = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(), at = 0; n; at += n.length, n = walker.nextNode()) nodes.push({ n, at });
    const text = nodes.map((x) => x.n.data).join("");
    const rect = (from, to) => {
      const r = document.createRange();
      const start = nodes.findLast((x) => x.at <= from), end = nodes.findLast((x) => x.at < to);
      r.setStart(start.n, from - start.at);
      r.setEnd(end.n, to - end.at);
      return r.getBoundingClientRect();
    };
    const wrong = [];
    let at = 0, last;
    for (const t of ${JSON.stringify(tokens)}) {
      const i = text.indexOf(t, at);
      if (i < 0) return ["missing " + t];
      const r = rect(i, i + t.length);
      if (last && Math.abs(r.top - last.r.top) < 2 && r.left < last.r.right - 0.5) wrong.push(last.t + " | " + t);
      last = { t, r };
      at = i + t.length;
    }
    return wrong;
  })()`);
}

test("U2, U8: right-to-left text in a key cannot carry its value or the JSON's punctuation to the other side of it, on the action's page or in its list row", T, async () => {
  const a = await actions.propose({ tool: "pay__send", version: "v1", arguments: { "שם": 1000, to: "bob אבג", n: 7 } }, { identity: alice, effect: "confirm" });
  try {
    await browser.goto(`${origin}/actions/${a.id}`);
    assert.deepEqual(await outOfOrder('pre[aria-label="Arguments as JSON"]', ['"', "שם", '"', ":", "1000", ",", '"', "to", '"', ":", '"', "bob", "אבג", '"', ",", '"', "n", '"', ":", "7"]), []);
    await browser.goto(`${origin}/`);
    const row = await browser.eval<number>(`[...document.querySelectorAll("tbody tr")].findIndex((tr) => tr.querySelector("a").href.endsWith(${JSON.stringify(a.id)}))`);
    assert.ok(row >= 0, "the action is listed");
    assert.deepEqual(await outOfOrder("tbody tr td .mono", ["שם", ":", "1000", ",", "to", ":", '"bob', "אבג", '"', ",", "n", ":", "7"], row), []);
  } finally {
    await actions.reject((await store.get(a.id))!, { actorId: "carol", tenantId: "acme" }, "cleanup");
  }
});

test("U8: a form posted from another origin is refused, even with a valid token and the approver's credentials; nothing is approved", T, async () => {
  const a = await proposeRename("A", "Avocados");
  await browser.goto(`${origin}/actions/${a.id}`);
  const fields = await browser.eval<Record<string, string>>(`Object.fromEntries(new FormData(document.querySelector('form[action$="/approve"]')))`);
  assert.ok(fields.csrf && fields.binding);
  // Another site's page: it holds the very fields of the page (as if stolen) and posts them at load.
  const inputs = Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`).join("");
  const attacker = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>Win a prize</title><form method="post" action="${origin}/actions/${a.id}/approve">${inputs}</form><script>document.forms[0].submit()</script>`);
  });
  await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
  try {
    // localhost is another origin than 127.0.0.1 (and another site).
    await browser.send("Page.navigate", { url: `http://localhost:${(attacker.address() as { port: number }).port}/` });
    // The attacker's page posts at once; wait (bounded) for the inbox's answer to be the page.
    for (let i = 0; i < 100 && !(await browser.eval<boolean>(`location.origin === ${JSON.stringify(origin)} && document.readyState === "complete"`).catch(() => false)); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await browser.eval("location.origin"), origin, "the form's answer is the inbox's");
    assert.match(await text(), /came from another (site|origin); nothing was changed/);
    await screenshot("refused");
  } finally {
    attacker.closeAllConnections();
    attacker.close();
  }
  assert.equal(await state(a.id), "awaiting_approval");
  await actions.reject((await store.get(a.id))!, { actorId: "carol", tenantId: "acme" }, "cleanup");
});

test("U8: a stale page's Approve is a conflict page: someone else decided meanwhile, and nothing is approved", T, async () => {
  const a = await proposeRename("B", "Bananas");
  await browser.goto(`${origin}/actions/${a.id}`);
  await actions.reject(a, { actorId: "carol", tenantId: "acme" }, "done in another tab");
  await browser.loads(() => browser.eval("document.querySelector('button.approve').click()"));
  assert.match(await text(), /Nothing was decided/);
  assert.equal(await browser.eval("document.title"), "Nothing was decided · Acme approvals");
  await assertInert("conflict");
  await screenshot("conflict");
  assert.equal(await state(a.id), "rejected");
  await browser.loads(() => browser.eval("[...document.querySelectorAll('a')].find((x) => x.textContent.includes('as it is now')).click()"));
  assert.match(await text(), /Rejected by carol/);
});

test("U8: the whole flow works by keyboard: Tab to the action, Enter, Tab to Approve, Enter; focus is always visible", T, async () => {
  const a = await proposeRename("C", "Cherries");
  await browser.goto(`${origin}/`);
  const focusTo = async (match: (html: string) => boolean, what: string): Promise<string> => {
    for (let i = 0; i < 40; i++) {
      await browser.key("Tab");
      const focused = await browser.eval<{ html: string; outline: string }>("({ html: document.activeElement.outerHTML.slice(0, 300), outline: getComputedStyle(document.activeElement).outlineStyle })");
      if (focused.html.startsWith("<body")) continue;
      assert.notEqual(focused.outline, "none", `the focus on ${focused.html.slice(0, 80)} is visible`);
      if (match(focused.html)) return focused.html;
    }
    throw new Error(`Tab never reached ${what}`);
  };
  await focusTo((h) => h.includes(`href="/actions/${a.id}"`), "the action's link");
  await browser.loads(() => browser.key("Enter"));
  assert.equal(await browser.eval("location.pathname"), `/actions/${a.id}`);
  await focusTo((h) => h.startsWith('<button class="approve"'), "Approve");
  await browser.loads(() => browser.key("Enter"));
  assert.match(await text(), /Approved\. A worker sends it next\./);
  assert.equal(await state(a.id), "approved");
  await worker().runOnce();
  assert.equal(performed(contract.log, a.operationId), 1);
});

test("U8, W14: the attention queue by keyboard: an unknown outcome settled with a note on its page", T, async () => {
  const d = await actions.propose(await remove.prepare({ id: "B" }, { identity: alice }), { identity: alice, effect: "confirm" });
  let r = await actions.approve(d, { actorId: "carol", tenantId: "acme" });
  r = await store.transition(r.id, { state: r.state, fence: r.fence }, { state: "executing" }, Date.now());
  await store.transition(r.id, { state: r.state, fence: r.fence }, { state: "outcome_unknown", outcome: { reason: "the connection dropped after the request was sent" } }, Date.now());
  await browser.goto(`${origin}/attention`);
  assert.match(await text(), /Outcome unknown \(1\)/);
  await assertInert("attention");
  await screenshot("attention");
  await browser.loads(() => browser.eval(`document.querySelector('a[href="/actions/${d.id}"]').click()`));
  await browser.eval("document.querySelector('input[value=failed]').focus()");
  await browser.key("Space");
  await browser.key("Tab");
  await browser.type("Item B is still listed by get_item: the delete did not happen");
  await screenshot("settle");
  await browser.key("Tab");
  await browser.loads(() => browser.key("Enter"));
  assert.match(await text(), /Settled\. The agent reads your note/);
  const settled = await store.get(d.id);
  assert.equal(settled?.state, "failed");
  assert.equal(settled?.resolution?.actorId, "bob");
  assert.match(settled?.resolution?.note ?? "", /did not happen/);
});
