// Time bounds whose defaults are too long to wait out, crossed on mocked timers
// (a file of its own: the mock is process-wide) against real servers: V8 task
// bounds (a 2025-11-25 stdio server), H14's endpoint wait (a loopback HTTP+SSE
// server), A2 / A3 OAuth bounds (the loopback fake authorization server).
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import type { McpClient } from "../../src/node/client.js";
import { LegacySseTransport } from "../../src/transport/legacy-sse.js";
import { startFixture } from "../transport/http-fixtures.js";
import { McpClient as WebMcpClient } from "../../src/mcp/client.js";
import { HttpTransport } from "../../src/transport/http.js";
import { OAuthClient } from "../../src/auth/client.js";
import { OAuthError } from "../../src/errors.js";
import { startFake } from "../auth/fake-as.js";
import { mockClock } from "../helpers/clock.js";
import { OAUTH_FLOW_TTL_MS, OAUTH_INTERACTION_TIMEOUT_MS, OAUTH_REQUEST_TIMEOUT_MS } from "../../src/limits.js";
import { DEADLINE_SWEEP_MS, DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS, DEFAULT_TASK_TIMEOUT_MS, TASK_CANCEL_TIMEOUT_MS, MAX_TASK_POLL_MS, MAX_TASK_POLLS } from "../../src/limits.js";
import { limitNamed } from "./support.js";
import { connect, text } from "./task-server.js";

const T = { timeout: 90_000 };

// The longest interval and the default bound are waited out on mocked timers (and
// clock): the server and its pipe are real, only the client's waits are sped up.
// (performance.now is mocked only where a test uses mockClock.)
// Real time, whatever a mocked clock says (captured before any test mocks it).
const realNow = performance.now.bind(performance);
const realWait = async (ms: number): Promise<void> => {
  const end = realNow() + ms;
  while (realNow() < end) await new Promise((r) => setImmediate(r));
};
async function realWaitFor(predicate: () => boolean, ms: number): Promise<void> {
  const end = realNow() + ms;
  while (!predicate()) {
    if (realNow() > end) throw new Error("condition not reached in time");
    await new Promise((r) => setImmediate(r));
  }
}
describe("V8: task time bounds on mocked timers (2025-11-25 server over stdio)", () => {
  test("V8: a huge suggested poll interval is clamped to MAX_TASK_POLL_MS", T, async (t: TestContext) => {
    const { client, seen } = await connect("slow:1");
    const clock = mockClock(t);
    try {
      const polls = (): number => clock.armed(MAX_TASK_POLL_MS);
      const call = client.callTool("t", {}, { task: true, timeoutMs: 10 * MAX_TASK_POLL_MS });
      await realWaitFor(() => polls() === 1, 10_000); // the task answer arrived and the poll is scheduled
      clock.tick(MAX_TASK_POLL_MS - 1);
      await realWait(300);
      assert.equal(seen().filter((s) => s.method === "tasks/get").length, 0, "polled before MAX_TASK_POLL_MS");
      clock.tick(1);
      await realWaitFor(() => seen().some((s) => s.method === "tasks/result"), 10_000);
      assert.equal(text(await call), "polled 1");
    } finally {
      clock.restore();
      await client.close();
    }
  });

  test("V8: a task call without a bound of its own ends after DEFAULT_TASK_TIMEOUT_MS", T, async (t: TestContext) => {
    const { client, seen } = await connect("slow:0");
    assert.ok(DEADLINE_SWEEP_MS < MAX_TASK_POLL_MS);
    const clock = mockClock(t, { date: true });
    try {
      const polls = (): number => clock.armed(MAX_TASK_POLL_MS);
      let settled: unknown;
      const call = client.callTool("t", {}, { task: true, timeoutMs: null }).then(
        (r) => (settled = r),
        (e: unknown) => (settled = e),
      );
      // Polled every MAX_TASK_POLL_MS of mocked time; each poll is a real round trip,
      // and mocked time moves on only once the next poll's wait is scheduled (request
      // bounds share one timer armed at most DEADLINE_SWEEP_MS ahead, so every timer
      // of MAX_TASK_POLL_MS is a poll's wait).
      await realWaitFor(() => polls() === 1, 10_000);
      for (let elapsed = MAX_TASK_POLL_MS; elapsed < DEFAULT_TASK_TIMEOUT_MS; elapsed += MAX_TASK_POLL_MS) {
        const scheduled = polls();
        const before = seen().length;
        clock.tick(MAX_TASK_POLL_MS);
        await realWaitFor(() => seen().length > before, 10_000);
        await realWaitFor(() => polls() > scheduled, 10_000);
      }
      assert.equal(settled, undefined, "ended before DEFAULT_TASK_TIMEOUT_MS");
      clock.tick(MAX_TASK_POLL_MS);
      await realWaitFor(() => settled !== undefined, 10_000);
      await call;
      const e = settled as unknown as Error & { code?: string };
      assert.equal(e.code, "timeout");
      assert.match(e.message, new RegExp(`did not finish within ${DEFAULT_TASK_TIMEOUT_MS} ms`));
    } finally {
      clock.restore();
      await client.close();
    }
  });

  test("V8: a task that ends on poll MAX_TASK_POLLS is followed; one still working then is a limit error naming the bound", T, async (t: TestContext) => {
    // No per-request bound: mocked time runs on while a poll's answer is on its way.
    const a = await connect(`polls:${MAX_TASK_POLLS}`, null);
    const b = await connect(`polls:${MAX_TASK_POLLS + 1}`, null);
    try {
      t.mock.timers.enable({ apis: ["setTimeout"] });
      const outcomes: PromiseSettledResult<string>[] = [];
      const follow = (client: McpClient): Promise<void> =>
        client.callTool("t", {}, { task: true, timeoutMs: null }).then(
          (r) => void outcomes.push({ status: "fulfilled", value: text(r) }),
          (e: unknown) => void outcomes.push({ status: "rejected", reason: e }),
        );
      const calls = Promise.all([follow(a.client), follow(b.client)]);
      // Every turn of the event loop lets the next 50 ms poll interval pass.
      const end = performance.now() + 60_000;
      while (outcomes.length < 2 && performance.now() < end) {
        t.mock.timers.tick(50);
        await new Promise((r) => setImmediate(r));
      }
      t.mock.timers.reset();
      await calls;
      const [ok, over] = [outcomes.find((o) => o.status === "fulfilled"), outcomes.find((o) => o.status === "rejected")];
      assert.deepEqual(ok, { status: "fulfilled", value: `polled ${MAX_TASK_POLLS}` });
      assert.ok(over && limitNamed("MAX_TASK_POLLS", MAX_TASK_POLLS)(over.reason), String(over?.reason));
      assert.equal(b.seen().filter((s) => s.method === "tasks/get").length, MAX_TASK_POLLS, "no poll past the bound");
    } finally {
      t.mock.timers.reset();
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });
});

describe("V8: the cancel of an abandoned task on mocked timers (2025-11-25 server over stdio)", () => {
  test("V8: a call's own timeout bounds its task, and the tasks/cancel of an abandoned task is given up after TASK_CANCEL_TIMEOUT_MS", T, async (t: TestContext) => {
    const { client, seen } = await connect("hang:0");
    const clock = mockClock(t);
    try {
      let settled: unknown;
      const call = client.callTool("t", {}, { task: true, timeoutMs: 300 }).catch((e: unknown) => (settled = e));
      // The bound and the poll's pause both run on the mocked clock.
      await realWait(400);
      clock.tick(DEFAULT_TASK_TIMEOUT_MS);
      await realWaitFor(() => settled !== undefined, 10_000);
      await call;
      const e = settled as Error & { code?: string };
      assert.equal(e.code, "timeout");
      assert.match(e.message, /the task did not finish within/);
      await realWaitFor(() => seen().some((s) => s.method === "tasks/cancel"), 10_000);
      const cancel = seen().find((s) => s.method === "tasks/cancel");
      const gaveUp = (): boolean => seen().some((s) => s.method === "notifications/cancelled" && s.id === cancel?.id);
      await realWait(200);
      clock.tick(TASK_CANCEL_TIMEOUT_MS - 1);
      await realWait(300);
      assert.equal(gaveUp(), false, "gave up on tasks/cancel before TASK_CANCEL_TIMEOUT_MS");
      // The unanswered tasks/cancel times out and is itself cancelled.
      clock.tick(1);
      await realWaitFor(gaveUp, 10_000);
    } finally {
      clock.restore();
      await client.close();
    }
  });
});

describe("H14: the endpoint wait on mocked timers (loopback HTTP+SSE server)", () => {
  test("H14: a stream that never sends its endpoint fails after DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS", T, async (t: TestContext) => {
    const server = await startFixture("legacy-sse", { mode: "no-endpoint" });
    const transport = new LegacySseTransport(server.url);
    const clock = mockClock(t);
    try {
      const waits = (): number => clock.armed(DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS);
      let settled: unknown;
      const started = transport.start({ message: () => {}, requestError: () => {}, closed: () => {} }).then(
        () => (settled = "started"),
        (e: unknown) => (settled = e),
      );
      await realWaitFor(() => server.requests.length > 0 && waits() === 1, 10_000);
      clock.tick(DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS - 1);
      await realWait(200);
      assert.equal(settled, undefined, "gave up before DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS");
      clock.tick(1);
      await realWaitFor(() => settled !== undefined, 10_000);
      await started;
      const e = settled as unknown as Error & { code?: string; timeoutMs?: number };
      assert.equal(e.code, "timeout");
      assert.equal(e.timeoutMs, DEFAULT_LEGACY_ENDPOINT_TIMEOUT_MS);
    } finally {
      clock.restore();
      await transport.close();
      await server.close();
    }
  });
});

describe("A2, A3: OAuth time bounds on mocked timers (loopback fake authorization server)", () => {
  const REDIRECT = "http://127.0.0.1:8976/callback";
  /** Starts a connect that settles into `out.value`. */
  // The handshake's own bound is set past the OAuth bound under test.
  const connecting = (url: string, auth: OAuthClient, out: { value?: unknown }, handshakeTimeoutMs = 60_000): Promise<unknown> =>
    WebMcpClient.connect(new HttpTransport(url, { auth }), { era: "legacy", handshakeTimeoutMs }).then(
      async (c) => {
        await c.close();
        return (out.value = "connected");
      },
      (e: unknown) => (out.value = e),
    );

  test("A2: an authorization server that never answers fails after OAUTH_REQUEST_TIMEOUT_MS by default", T, async (t: TestContext) => {
    const world = await startFake({ hang: ["/.well-known/oauth-authorization-server"] });
    try {
      t.mock.timers.enable({ apis: ["setTimeout"] });
      const out: { value?: unknown } = {};
      const done = connecting(world.mcpUrl, new OAuthClient({ redirectUri: REDIRECT, authorize: ({ url }) => world.browser(url) }), out);
      await realWaitFor(() => world.paths.includes("/.well-known/oauth-authorization-server"), 10_000);
      await realWait(200);
      t.mock.timers.tick(OAUTH_REQUEST_TIMEOUT_MS - 1);
      await realWait(200);
      assert.equal(out.value, undefined, "gave up before OAUTH_REQUEST_TIMEOUT_MS");
      t.mock.timers.tick(1);
      await realWaitFor(() => out.value !== undefined, 10_000);
      await done;
      const e: unknown = out.value;
      assert.ok(e instanceof OAuthError && e.kind === "timeout", String(e));
      assert.match(e.message, new RegExp(`within ${OAUTH_REQUEST_TIMEOUT_MS} ms`));
    } finally {
      t.mock.timers.reset();
      await world.close();
    }
  });

  test("A3: an interactive step that never returns fails after OAUTH_INTERACTION_TIMEOUT_MS by default", T, async (t: TestContext) => {
    const world = await startFake();
    const clock = mockClock(t);
    try {
      const waits = (): number => clock.armed(OAUTH_INTERACTION_TIMEOUT_MS);
      let asked = false;
      const out: { value?: unknown } = {};
      const auth = new OAuthClient({ redirectUri: REDIRECT, authorize: () => ((asked = true), new Promise<string>(() => {})) });
      const done = connecting(world.mcpUrl, auth, out, 2 * OAUTH_INTERACTION_TIMEOUT_MS);
      await realWaitFor(() => asked && waits() === 1, 10_000);
      clock.tick(OAUTH_INTERACTION_TIMEOUT_MS - 1);
      await realWait(200);
      assert.equal(out.value, undefined, "gave up before OAUTH_INTERACTION_TIMEOUT_MS");
      clock.tick(1);
      await realWaitFor(() => out.value !== undefined, 10_000);
      await done;
      const e: unknown = out.value;
      assert.ok(e instanceof OAuthError && e.kind === "timeout", String(e));
      assert.match(e.message, new RegExp(`within ${OAUTH_INTERACTION_TIMEOUT_MS} ms`));
    } finally {
      clock.restore();
      await world.close();
    }
  });

  test("A3: an authorization flow is finished up to OAUTH_FLOW_TTL_MS after it started; a later callback is refused", T, async (t: TestContext) => {
    const world = await startFake();
    try {
      t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.now() });
      // Without an interactive step each connect starts a flow and hands back its URL.
      const auth = new OAuthClient({ redirectUri: REDIRECT });
      const urls: string[] = [];
      for (let i = 0; i < 2; i++) {
        const out: { value?: unknown } = {};
        await connecting(world.mcpUrl, auth, out);
        assert.ok(out.value instanceof OAuthError && out.value.kind === "interaction_required", String(out.value));
        urls.push(out.value.authorizationUrl ?? "");
      }
      const callbacks = await Promise.all(urls.map((u) => world.browser(u)));
      t.mock.timers.tick(OAUTH_FLOW_TTL_MS);
      await auth.finishAuthorization(callbacks[0] ?? "");
      t.mock.timers.tick(1);
      await assert.rejects(auth.finishAuthorization(callbacks[1] ?? ""), (e: unknown) => e instanceof OAuthError && e.kind === "timeout" && /expired/.test(e.message));
      assert.equal(world.tokenBodies.length, 1, "the expired flow's code is never exchanged");
    } finally {
      t.mock.timers.reset();
      await world.close();
    }
  });
});
