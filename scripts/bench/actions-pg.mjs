// Approved actions per second end to end on PostgreSQL (W9, W12), with 1, 2 and 4
// worker processes, beside pg-boss 10 moving the same number of no-op jobs through
// the same database in the same run. Each yada action is claimed (FOR UPDATE SKIP
// LOCKED, its own fence bump and lease), marked executing (committed before its
// send), executed by an in-process no-op write tool and committed succeeded, each
// a compare-and-swap on (state, fence), at most once. A worker keeps CONCURRENCY
// actions in flight: it claims them in one statement and writes their moves in one
// statement per batch (claimMany / transitionMany). Each pg-boss job is fetched and
// completed (at least once). Workers connect first and start together; the clock
// runs from the start signal until the database shows every item done. The table
// also shows how many statements yada sent per action.
//
// On a machine of few cores the wall clock of several workers measures the CPU the
// workers, the bench and PostgreSQL share, not the store. So the same runs also
// report what PostgreSQL itself spent per action (yada) and per job (pg-boss): the
// workers log in as their own role, and from the start signal to the last item
// done the bench takes (1) the CPU time of those workers' server backends
// (utime + stime in /proc, Linux), (2) from pg_stat_statements (loaded by the
// server settings below) the statements run and their execution + planning time.
// PostgreSQL's background processes (WAL writer, checkpointer) are not counted on
// either side. Both include the empty polls each side makes while working. Each worker
// opens both connections of its pool before the start, so both backends are counted.
//   node scripts/build.mjs --no-types && node scripts/bench/actions-pg.mjs
//   ACTIONS=1000 WORKERS=1,2,4 PGBOSS_BATCH=100 CONCURRENCY=8 REPEAT=1 (environment; CONCURRENCY unset: the
//   worker's default; REPEAT=3 runs three interleaved rounds and prints medians)
// Targets: yada >= 0.5x pg-boss at each worker count; yada with 4 workers >= 2.5x one (wall clock);
// PostgreSQL backend CPU per action <= 1.0x pg-boss's per job, at each worker count.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { readFileSync } from "node:fs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const self = fileURLToPath(import.meta.url);
const N = Number(process.env.ACTIONS ?? 1000);
// pg-boss 10 waits out its polling interval (at least 0.5 s) after every fetch, even
// a fruitful one, so one job per fetch caps a worker at 2 jobs/s: it is measured at
// its throughput setting, a batch per fetch.
const BATCH = Number(process.env.PGBOSS_BATCH ?? 100);
// Also measured: pg-boss one job per fetch (the per-item shape yada has), on fewer jobs.
const SINGLE_N = Number(process.env.PGBOSS_SINGLE_JOBS ?? 20);
const COUNTS = (process.env.WORKERS ?? "1,2,4").split(",").map(Number);
const CONCURRENCY = process.env.CONCURRENCY ? Number(process.env.CONCURRENCY) : undefined;
// Rounds: every worker count runs once per round, rounds one after another, so a change
// of load on a shared machine hits every row alike; each cell is the median of its rounds.
const REPEAT = Math.max(1, Number(process.env.REPEAT ?? 1));
// The role the workers (both sides) log in as: its backends and statements are the ones counted.
const WORKER_ROLE = "bench_worker";
const WORKER_PASSWORD = "bench-worker";
// Linux clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every common build).
const TICK_MS = 10;

if (process.argv[2] === "--child") await child(process.argv[3], JSON.parse(process.argv[4]));
else await main();

async function child(kind, cfg) {
  const pg = (await import("pg")).default;
  let begin;
  if (kind === "yada") {
    const { PostgresActionStore } = await import(join(root, "build/src/actions/postgres-store.js"));
    const { createWorker } = await import(join(root, "build/src/actions/worker.js"));
    const pool = new pg.Pool({ ...cfg.db, max: 2 });
    let statements = 0;
    // Claims and transitions as prepared statements (the store's `prepared` option), as a pg host would run them.
    const store = new PostgresActionStore({
      query: (t, p) => (statements++, pool.query(t, p)),
      prepared: (name, text, values) => (statements++, pool.query({ name, text, values })),
      table: cfg.table,
    });
    const tool = {
      name: "bench__touch", description: "", inputSchema: { type: "object" }, effect: "write", version: "v1",
      prepare: async () => { throw new Error("not used"); },
      execute: async () => ({ status: "succeeded", result: { content: [], isError: false } }),
      reconcile: async () => ({ status: "unknown", reason: "not used" }),
    };
    // Both connections of the pool open now, so the bench counts both backends from the start.
    await Promise.all([pool.query("SELECT pg_sleep(0.05)"), pool.query("SELECT pg_sleep(0.05)")]);
    const worker = createWorker({ store, resolveTool: () => tool, leaseMs: 60_000, pollMs: 20, ...(cfg.concurrency ? { concurrency: cfg.concurrency } : {}) });
    begin = () => {
      worker.start();
      setInterval(() => process.stdout.write(`statements ${statements}\n`), 50);
    };
  } else {
    const PgBoss = (await import("pg-boss")).default;
    const boss = new PgBoss({ ...cfg.db, max: 2, supervise: false, schedule: false, migrate: false });
    boss.on("error", () => undefined);
    await boss.start();
    // Both connections of its pool open now, as on the yada side.
    const bossDb = boss.getDb();
    await Promise.all([bossDb.executeSql("SELECT pg_sleep(0.05)"), bossDb.executeSql("SELECT pg_sleep(0.05)")]);
    begin = () => boss.work(cfg.queue, { batchSize: cfg.batch, pollingIntervalSeconds: 0.5 }, async () => undefined);
  }
  process.stdout.write("ready\n");
  process.stdin.once("data", () => void begin());
}

function startChild(kind, cfg) {
  const c = spawn(process.execPath, [self, "--child", kind, JSON.stringify(cfg)], { stdio: ["pipe", "pipe", "inherit"] });
  const kid = { c, ready: undefined, statements: 0 };
  kid.ready = new Promise((resolve, reject) => {
    c.stdout.on("data", (d) => {
      const text = d.toString();
      if (text.includes("ready")) resolve();
      const counts = [...text.matchAll(/statements (\d+)/g)];
      if (counts.length > 0) kid.statements = Number(counts[counts.length - 1][1]);
    });
    c.once("exit", (code) => reject(new Error(`${kind} worker exited ${code}`)));
  });
  return kid;
}

/** CPU ms of the server backends whose pids are given: the scheduler's run time in /proc (ns), else utime + stime (ticks). */
function backendCpuMs(pids) {
  let ms = 0;
  for (const pid of pids) {
    try {
      ms += Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    } catch {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
        ms += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      } catch {
        // the backend has gone (its connection closed): its time is lost to both readings
      }
    }
  }
  return ms;
}

/** What PostgreSQL has spent on the workers' role so far: backends' CPU, statements, their time. */
async function serverCost(q, pids) {
  const { rows } = await q(
    `SELECT coalesce(sum(calls), 0)::float8 AS calls, coalesce(sum(total_exec_time + total_plan_time), 0)::float8 AS ms
     FROM pg_stat_statements WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = $1)`,
    [WORKER_ROLE],
  );
  return { cpuMs: backendCpuMs(pids), calls: rows[0].calls, statementMs: rows[0].ms };
}

async function timed(kind, workers, cfg, doneCount, q, n = N) {
  const kids = Array.from({ length: workers }, () => startChild(kind, cfg));
  try {
    await Promise.all(kids.map((k) => k.ready));
    // Counted from here: the workers' connections are open, their setup done.
    await q("SELECT pg_stat_statements_reset()");
    const pids = (await q("SELECT pid FROM pg_stat_activity WHERE usename = $1", [WORKER_ROLE])).rows.map((r) => r.pid);
    // Every worker's connections are open (two each): a backend opened later would go uncounted.
    if (pids.length < 2 * workers) throw new Error(`${kind}: ${pids.length} worker backends, expected ${2 * workers}`);
    const before = await serverCost(q, pids);
    const t0 = performance.now();
    for (const k of kids) k.c.stdin.write("go\n");
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      if ((await doneCount()) >= n) break;
      if (performance.now() - t0 > 600_000) throw new Error(`${kind} did not finish`);
    }
    const rate = n / ((performance.now() - t0) / 1000);
    const after = await serverCost(q, pids);
    if (process.env.STATEMENTS) {
      const top = await q(
        `SELECT calls, round((total_exec_time / calls)::numeric, 3) AS ms_each, round(total_exec_time::numeric, 1) AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
         FROM pg_stat_statements WHERE userid = (SELECT oid FROM pg_roles WHERE rolname = $1) ORDER BY total_exec_time DESC LIMIT 8`,
        [WORKER_ROLE],
      );
      console.error(`${kind}, ${workers} worker(s), top statements:`);
      for (const r of top.rows) console.error(`  ${r.calls} × ${r.ms_each} ms = ${r.ms} ms  ${r.query}`);
    }
    await new Promise((r) => setTimeout(r, 120)); // the last statement counts
    return {
      rate,
      statements: kids.reduce((sum, k) => sum + k.statements, 0) / n,
      cpuMs: (after.cpuMs - before.cpuMs) / n,
      calls: (after.calls - before.calls) / n,
      statementMs: (after.statementMs - before.statementMs) / n,
    };
  } finally {
    for (const k of kids) k.c.kill("SIGKILL");
  }
}

async function main() {
  const { startPostgres } = await import(join(root, "build/spec-tests/helpers/postgres.js"));
  const { PostgresActionStore } = await import(join(root, "build/src/actions/postgres-store.js"));
  const { argumentsHash } = await import(join(root, "build/src/actions/hash.js"));
  const PgBoss = (await import("pg-boss")).default;
  // PostgreSQL's own durability settings (fsync, synchronous commit) stay on: both sides pay them.
  const db = await startPostgres({ durable: true, maxConnections: 100, settings: ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=top", "pg_stat_statements.track_planning=on"] });
  const q = (text, params) => db.pool.query(text, params);
  await q("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await q(`CREATE ROLE ${WORKER_ROLE} LOGIN SUPERUSER PASSWORD '${WORKER_PASSWORD}'`);
  const workerDb = { ...db.config, user: WORKER_ROLE, password: WORKER_PASSWORD };
  const boss = new PgBoss({ ...db.config, max: 4 });
  boss.on("error", () => undefined);
  await boss.start();
  const runs = [];
  try {
    for (let round = 1; round <= REPEAT; round++) for (const w of COUNTS) {
      // yada: N approved actions in a fresh table (setup, not timed).
      const table = `bench_${w}_${round}`;
      const store = new PostgresActionStore({ query: q, table });
      await store.migrate();
      const now = Date.now();
      const hash = await argumentsHash({});
      for (let i = 0; i < N; i++) {
        const id = `b${w}-${round}-${i}`;
        await store.create({ id, operationId: `op-${id}`, actorId: "alice", tenantId: "acme", tool: "bench__touch", effect: "write", version: "v1",
          arguments: {}, argumentsHash: hash, state: "awaiting_approval", fence: 0, attempts: 0, createdAt: now + i, updatedAt: now + i, expiresAt: now + 3_600_000 });
        await store.transition(id, { state: "awaiting_approval", fence: 0 }, { state: "approved", approval: { actorId: "bob", tenantId: "acme", at: now } }, now);
      }
      // Statistics as autovacuum keeps them on a live table (both sides: pgboss.job below).
      await q(`ANALYZE ${table}`);
      const y = await timed("yada", w, { db: workerDb, table, concurrency: CONCURRENCY }, async () => Number((await q(`SELECT count(*) AS n FROM ${table} WHERE state = 'succeeded'`)).rows[0].n), q);
      // pg-boss: N jobs in a fresh queue (setup, not timed).
      const queue = `bench_${w}_${round}`;
      await boss.createQueue(queue);
      for (let i = 0; i < N; i += 500) await boss.insert(Array.from({ length: Math.min(500, N - i) }, (_, k) => ({ name: queue, data: { i: i + k } })));
      await q("ANALYZE pgboss.job");
      const b = await timed("pgboss", w, { db: workerDb, queue, batch: BATCH }, async () => Number((await q(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'`, [queue])).rows[0].n), q);
      const pgboss = b.rate;
      let single = NaN;
      if (SINGLE_N > 0) {
        const q1 = `bench_single_${w}_${round}`;
        await boss.createQueue(q1);
        await boss.insert(Array.from({ length: SINGLE_N }, (_, k) => ({ name: q1, data: { i: k } })));
        single = (await timed("pgboss", w, { db: workerDb, queue: q1, batch: 1 }, async () => Number((await q(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'`, [q1])).rows[0].n), q, SINGLE_N)).rate;
      }
      const yada = y.rate;
      runs.push({ w, yada, pgboss, single, statements: y.statements, yCpu: y.cpuMs, bCpu: b.cpuMs, yCalls: y.calls, bCalls: b.calls, yStmtMs: y.statementMs, bStmtMs: b.statementMs });
      console.error(`round ${round}, ${w} worker(s): yada ${yada.toFixed(0)}/s, pg-boss ${pgboss.toFixed(0)}/s`);
    }
  } finally {
    await boss.stop({ graceful: false, wait: false }).catch(() => undefined);
    await db.stop();
  }
  const median = (xs) => {
    const v = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    return v.length === 0 ? NaN : v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const rows = COUNTS.map((w) => {
    const mine = runs.filter((r) => r.w === w);
    return { w, ...Object.fromEntries(["yada", "pgboss", "single", "statements", "yCpu", "bCpu", "yCalls", "bCalls", "yStmtMs", "bStmtMs"].map((k) => [k, median(mine.map((r) => r[k]))])) };
  });
  const concurrency = CONCURRENCY ?? (await import(join(root, "build/src/limits.js"))).DEFAULT_WORKER_CONCURRENCY;
  console.log(`\n${N} items per run, PostgreSQL 18 (embedded, durable settings), yada concurrency ${concurrency} per worker, pg-boss batchSize ${BATCH}, ${REPEAT === 1 ? "one pass each" : `median of ${REPEAT} interleaved rounds`}\n`);
  console.log(`| workers | yada actions/s | yada statements/action | pg-boss jobs/s (batch ${BATCH}) | yada / pg-boss (target >= 0.5x) | pg-boss jobs/s (1 per fetch, ${SINGLE_N} jobs) | yada / that | yada scale vs 1 | pg-boss scale vs 1 |`);
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const one = rows.find((r) => r.w === 1) ?? rows[0];
  const mark = (ok) => (ok ? "ok" : "MISSED");
  for (const r of rows) {
    const ratio = r.yada / r.pgboss;
    console.log(`| ${r.w} | ${r.yada.toFixed(0)} | ${r.statements.toFixed(2)} | ${r.pgboss.toFixed(0)} | ${ratio.toFixed(2)}x ${mark(ratio >= 0.5)} | ${r.single.toFixed(1)} | ${(r.yada / r.single).toFixed(0)}x | ${(r.yada / one.yada).toFixed(2)}x | ${(r.pgboss / one.pgboss).toFixed(2)}x |`);
  }
  console.log(`\nWhat PostgreSQL spent per item (yada: per action, claimed, executing, succeeded, fenced; pg-boss: per job, batch ${BATCH}), same runs:\n`);
  console.log("| workers | yada backend CPU µs/action | pg-boss backend CPU µs/job | yada ÷ pg-boss (target <= 1.0x) | yada statements/action | pg-boss statements/job | yada statement time µs/action | pg-boss statement time µs/job | yada ÷ pg-boss |");
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) {
    const cpu = r.yCpu / r.bCpu;
    console.log(`| ${r.w} | ${(r.yCpu * 1000).toFixed(0)} | ${(r.bCpu * 1000).toFixed(0)} | ${cpu.toFixed(2)}x ${mark(cpu <= 1.0)} | ${r.yCalls.toFixed(2)} | ${r.bCalls.toFixed(2)} | ${(r.yStmtMs * 1000).toFixed(0)} | ${(r.bStmtMs * 1000).toFixed(0)} | ${(r.yStmtMs / r.bStmtMs).toFixed(2)}x |`);
  }
  console.log(`(backend CPU: the scheduler's run time of the workers' backends, /proc/<pid>/schedstat, over ${N} items; statements and their execution time from pg_stat_statements, top level; STATEMENTS=1 lists the costliest)`);
  const four = rows.find((r) => r.w === 4);
  if (four && one.w === 1) {
    const perRound = [];
    for (let i = 0; i < runs.length; i++) if (runs[i].w === 4) { const o = runs.slice(0, i).reverse().find((r) => r.w === 1); if (o) perRound.push(runs[i].yada / o.yada); }
    console.log(`\nTarget: yada with 4 workers >= 2.5x one: ${(four.yada / one.yada).toFixed(2)}x ${mark(four.yada / one.yada >= 2.5)}` + (REPEAT > 1 ? ` (per round: ${perRound.map((x) => x.toFixed(2) + "x").join(", ")})` : ""));
  }
  process.exit(0);
}
