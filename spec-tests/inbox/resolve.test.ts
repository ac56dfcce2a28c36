// W14, U1: the attention queue's operator resolution in the inbox: an operator the
// host's mayResolve allows settles an outcome_unknown action from its page, bound to
// what the page showed, through createActions' resolve; nobody may without mayResolve.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryActionStore } from "../../src/actions/memory-store.js";
import type { ActionRecord } from "../../src/actions/types.js";
import { MAX_RESOLUTION_NOTE_CHARS } from "../../src/limits.js";
import { bob, formsOf, mainText, setup, type Setup } from "./support.js";

const carol = { actorId: "carol", tenantId: "acme" };

async function unknownOutcome(s: Setup): Promise<ActionRecord> {
  const a = await s.propose({ tool: "items__delete_item", arguments: { id: "B" } });
  let r = await s.actions.approve(a, bob);
  r = await s.store.transition(r.id, { state: r.state, fence: r.fence }, { state: "executing" }, s.clock.now);
  return s.store.transition(r.id, { state: r.state, fence: r.fence }, { state: "outcome_unknown", outcome: { reason: "the connection dropped after the send" } }, s.clock.now);
}

const settleForm = async (s: Setup, id: string, who = carol) => formsOf(await (await s.get(`/actions/${id}`, who)).text()).get(`/actions/${id}/resolve`);

test("W14, U1: an operator settles an unknown outcome from its page: bound to what was shown, recorded with who, when and the note, then out of the attention queue", async () => {
  const s = setup({ mayResolve: (who) => who.actorId === "carol" });
  const a = await unknownOutcome(s);
  assert.match(mainText(await (await s.get("/attention", carol)).text()), /Outcome unknown \(1\)/);
  const page = await (await s.get(`/actions/${a.id}`, carol)).text();
  assert.match(page, /<input type="radio" name="outcome" value="succeeded" required>/);
  const form = await settleForm(s, a.id);
  assert.ok(form, "carol gets the settle form");
  const res = await s.post(`/actions/${a.id}/resolve`, { ...form, outcome: "failed", note: "Item B is still in the server's log: never deleted" }, carol);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), `/actions/${a.id}?done=resolved`);
  const r = await s.store.get(a.id);
  assert.equal(r?.state, "failed");
  assert.deepEqual(r?.resolution, { actorId: "carol", tenantId: "acme", at: s.clock.now, outcome: "failed", note: "Item B is still in the server's log: never deleted" });
  const after = mainText(await (await s.get(`/actions/${a.id}?done=resolved`, carol)).text());
  assert.match(after, /carol checked the server and settled it as failed/);
  assert.match(after, /never deleted/);
  assert.match(mainText(await (await s.get("/attention", carol)).text()), /Outcome unknown \(0\)/);
  assert.match(mainText(await (await s.get("/history", carol)).text()), /failed carol settled it/);
  // Settled is final: the same form again is a conflict.
  assert.equal((await s.post(`/actions/${a.id}/resolve`, { ...form, outcome: "succeeded", note: "changed my mind" }, carol)).status, 409);
});

test("W14: nobody settles without mayResolve or when it refuses; a settle form whose action changed is a conflict; the note is required and bounded", async () => {
  const data = new Map<string, string>();
  const s = setup({ store: new MemoryActionStore({ data }), mayResolve: (who) => who.actorId === "carol" });
  const a = await unknownOutcome(s);
  assert.equal(await settleForm(s, a.id, bob), undefined, "bob is no operator");
  assert.match(mainText(await (await s.get(`/actions/${a.id}`, bob)).text()), /You may not settle this action/);
  const form = (await settleForm(s, a.id))!;
  const none = setup({ store: s.store });
  none.clock.now = s.clock.now;
  assert.equal(await settleForm(none, a.id), undefined, "no mayResolve: no form for anyone");
  for (const [fields, status] of [
    [{ ...form, outcome: "succeeded", note: "" }, 400],
    [{ ...form, outcome: "succeeded", note: "   " }, 400],
    [{ ...form, outcome: "maybe", note: "n" }, 400],
    [{ ...form, note: "n" }, 400],
    [{ ...form, outcome: "succeeded", note: "n".repeat(MAX_RESOLUTION_NOTE_CHARS + 1) }, 400],
  ] as const) {
    assert.equal((await s.post(`/actions/${a.id}/resolve`, fields, carol)).status, status, JSON.stringify(fields).slice(0, 80));
  }
  assert.equal((await s.store.get(a.id))?.state, "outcome_unknown");
  // The stored action changed since the page: a conflict, nothing settled.
  const original = data.get(a.id)!;
  data.set(a.id, JSON.stringify({ ...JSON.parse(original), version: "v2" }));
  assert.equal((await s.post(`/actions/${a.id}/resolve`, { ...form, outcome: "succeeded", note: "ok" }, carol)).status, 409);
  data.set(a.id, original);
  assert.equal((await s.post(`/actions/${a.id}/resolve`, { ...form, outcome: "succeeded", note: "n".repeat(MAX_RESOLUTION_NOTE_CHARS) }, carol)).status, 303);
  assert.equal((await s.store.get(a.id))?.state, "succeeded");
});

test("W14: the JSON of an unknown outcome's page carries the settle form for an operator; posting it as JSON settles", async () => {
  const s = setup({ mayResolve: () => true });
  const a = await unknownOutcome(s);
  const j = (await (await s.get(`/actions/${a.id}`, carol, true)).json()) as { mayDecide: boolean; mayResolve: boolean; form: Record<string, string> };
  assert.equal(j.mayDecide, false);
  assert.equal(j.mayResolve, true);
  const res = await s.inbox(new Request(`https://inbox.test/actions/${a.id}/resolve`, {
    method: "POST",
    headers: { "x-user": "carol@acme", accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify({ ...j.form, outcome: "succeeded", note: "the server's log shows operation done" }),
  }));
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { action: { state: string; resolution: { outcome: string } } }).action.resolution.outcome, "succeeded");
});
