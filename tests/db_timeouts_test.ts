/**
 * Database time bounds: with a table locked by another session, or a server that never
 * answers, requests and the health probes answer 503 because the configured bound ran out instead of hanging.
 * No assertion is on a duration. Each test proves which bound ended the wait: the answer came while the lock
 * was still held (the other requests still stuck), no sooner than the bound, with the service's warning
 * naming the bound's error, and every other bound set far above. A request still unanswered after
 * FAIL_AFTER_MS fails the test instead of hanging it (the failure before the fix: no answer for as long as
 * the lock is held). The test waits for the state it needs (pg_stat_activity shows the stuck requests
 * waiting for the lock) instead of sleeping.
 */
import assert from "node:assert/strict";
import pg from "pg";
import { sql } from "kysely";
import { DatabaseUnreachable, isDatabaseUnavailable, openDb, type PoolTimeouts } from "@/db/client.ts";
import { LATEST_MIGRATION } from "@/db/health.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { parseConfig } from "@/io/config.ts";
import { appTest, buildTestApp, type TestApp } from "@/testkit/app.ts";
import { freshDb, serverTest, type TestDb } from "@/testkit/db.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { signedIn } from "@/tests/helpers/hq.ts";
import { captureLogs } from "@/tests/helpers/observed.ts";
import { lockWaiters, within } from "@/tests/helpers/races.ts";

/** A wait that must end: an answer not there by then fails the test (a regression must not hang CI). */
const FAIL_AFTER_MS = 20_000;

/** The answer to `request` and how long it took (for the "not before the bound" order); fails after FAIL_AFTER_MS. */
async function timed(request: Promise<Response>): Promise<{ res: Response; ms: number }> {
  const start = performance.now();
  const res = await within(request, FAIL_AFTER_MS, "the answer");
  return { res, ms: performance.now() - start };
}

/** `request`, with whether it has settled yet (to assert that another answer came while it was stuck). */
function tracked<T>(request: Promise<T>): { done: Promise<T>; settled: () => boolean } {
  let settled = false;
  const done = request.finally(() => settled = true);
  return { done, settled: () => settled };
}

/** The one "Database unavailable" warning the service logged (main.ts), with the error it names. */
function unavailableWarning(logs: { records(): Record<string, unknown>[] }): string {
  const found = logs.records().filter((r) => String(r.message).startsWith("Database unavailable"));
  assert.equal(found.length, 1, `one "Database unavailable" warning: ${JSON.stringify(found)}`);
  return String(found[0].error);
}

/** Another session holding `LOCK TABLE … IN ACCESS EXCLUSIVE MODE` until `release()`. */
async function lockTable(url: string, table: string) {
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  await locker.query("begin");
  await locker.query(`lock table ${table} in access exclusive mode`);
  return {
    release: async () => {
      await locker.query("rollback").catch(() => {});
      await locker.end();
    },
  };
}

/** The app over its own pool on `t`'s server database, with `timeouts` (the test helpers' pools have none). */
async function boundedApp(
  t: TestDb,
  timeouts: PoolTimeouts,
  opts: { healthMs?: number; poolSize?: number } = {},
) {
  const db = openDb({ url: t.url, poolSize: opts.poolSize ?? 10, timeouts });
  const a = await buildTestApp({ ...t, db }, { db: { ...timeouts, healthMs: opts.healthMs ?? 2_000 } });
  return { a, close: () => db.destroy() };
}

const search = (email: string, rego: string) => ({
  event_type: "Parts_search_details",
  user_email: email,
  details: { rego, movement_type: "direct" },
});

async function expectFault503(res: Response) {
  assert.equal(res.status, 503);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  assert.equal(res.headers.get("retry-after"), "5");
  const body = await res.json();
  assert.equal(body.code, 5030);
  assert.match(body.message, /^Service temporarily unavailable\. Try again \(ref [0-9a-f-]{36}\)\.$/);
}

async function seed(a: TestApp) {
  const driver = await makeUser(a.db, { role: "driver" });
  const { claim } = await makeClaim(a.db, { registration: "LCK 123", parts: [{ status: "Arrived" }] });
  return { email: driver.email, rego: claim.registration };
}

serverTest(
  "db timeouts: a handler search on a locked claims table answers 503 (5030) within the statement bound, then 200 once released",
  async (t) => {
    const BOUND = 1_000;
    const { a, close } = await boundedApp(t, {
      connectMs: 5_000,
      statementMs: BOUND,
      lockMs: 0, // off: the statement bound alone must end the wait (57014)
      idleInTransactionMs: 0,
    });
    const { email, rego } = await seed(a);
    const lock = await lockTable(t.url!, "claims");
    try {
      using logs = captureLogs({ level: "warning" });
      // Answered while the lock is still held: only a bound could end the wait, and only this one is on.
      const { res, ms } = await timed(a.handler(search(email, rego)));
      await expectFault503(res);
      assert.ok(ms >= BOUND, `answered after ${Math.round(ms)} ms, before the ${BOUND} ms bound`);
      assert.match(unavailableWarning(logs), /statement timeout/, "ended by the statement bound (57014)");
    } finally {
      await lock.release();
    }
    const after = await a.call(search(email, rego));
    assert.equal(after.result.status, "success");
    await close();
  },
);

serverTest(
  "db timeouts: a lock wait ends at the lock bound (55P03): the parts CSV export answers 503 before sending any byte",
  async (t) => {
    const BOUND = 500;
    const { a, close } = await boundedApp(t, {
      connectMs: 5_000,
      statementMs: 60_000, // far above: the lock bound must be what ends the wait
      lockMs: BOUND,
      idleInTransactionMs: 0,
    });
    await seed(a);
    const hq = await signedIn(a, "dispatcher");
    const lock = await lockTable(t.url!, "parts_orders");
    try {
      using logs = captureLogs({ level: "warning" });
      const { res, ms } = await timed(hq.get("/hq/exports/parts.csv"));
      // Not a 200 that breaks off: the first rows are read before the answer starts.
      assert.equal(res.status, 503);
      assert.match(res.headers.get("content-type")!, /^text\/html/);
      assert.equal(res.headers.get("retry-after"), "5");
      assert.match(await res.text(), /Service temporarily unavailable/);
      assert.ok(ms >= BOUND, `answered after ${Math.round(ms)} ms, before the ${BOUND} ms bound`);
      assert.match(unavailableWarning(logs), /lock timeout/, "ended by the lock bound (55P03)");
    } finally {
      await lock.release();
    }
    const after = await hq.get("/hq/exports/parts.csv");
    assert.equal(after.status, 200);
    assert.match(await after.text(), /LCK 123/);
    await close();
  },
);

serverTest(
  "db timeouts: a search waiting for a free pooled connection answers 503 (5030) within the connect bound; the pool serves after",
  async (t) => {
    const CONNECT = 500;
    const { a, close } = await boundedApp(t, {
      connectMs: CONNECT,
      statementMs: 10_000, // far above: the wait for the pool's one connection must end at the connect bound
      lockMs: 0,
      idleInTransactionMs: 0,
    }, { poolSize: 1 });
    const { email, rego } = await seed(a);
    const lock = await lockTable(t.url!, "claims");
    let stuck: ReturnType<typeof tracked<Response>> | undefined;
    try {
      stuck = tracked(a.handler(search(email, rego)));
      await lockWaiters(t.db, 1); // the first search holds the pool's one connection, waiting for the lock
      using logs = captureLogs({ level: "warning" });
      const { res, ms } = await timed(a.handler(search(email, rego)));
      await expectFault503(res);
      assert.ok(!stuck.settled(), "answered while the first search still held the one connection");
      assert.ok(ms >= CONNECT, `answered after ${Math.round(ms)} ms, before the ${CONNECT} ms bound`);
      assert.match(unavailableWarning(logs), /^database unreachable/, "ended by the pool's checkout bound");
    } finally {
      await lock.release();
    }
    assert.equal((await within(stuck.done, FAIL_AFTER_MS, "the first search")).status, 200);
    // The checkout given up above is handed back when it comes: the pool's one connection still serves.
    assert.equal((await a.call(search(email, rego))).result.status, "success");
    await close();
  },
);

serverTest(
  "db timeouts: /healthz and /readyz answer 503 within their bound while locked requests hold every pooled connection, 200 after",
  async (t) => {
    const HEALTH = 500;
    // Every other bound far above the test's own failure bound: only the health bound can answer the probes
    // while the searches are stuck.
    const { a, close } = await boundedApp(t, {
      connectMs: 120_000,
      statementMs: 120_000,
      lockMs: 0,
      idleInTransactionMs: 0,
    }, { healthMs: HEALTH, poolSize: 2 });
    const { email, rego } = await seed(a);
    const lock = await lockTable(t.url!, "claims");
    let stuck: ReturnType<typeof tracked<Response>>[] = [];
    try {
      stuck = [tracked(a.handler(search(email, rego))), tracked(a.handler(search(email, rego)))];
      await lockWaiters(t.db, 2); // both searches have their connection and wait for the lock
      for (const path of ["/healthz", "/readyz"]) {
        const { res, ms } = await timed(Promise.resolve(a.app.request(path)));
        assert.equal(res.status, 503, path);
        assert.equal((await res.json()).status, "unavailable");
        assert.ok(stuck.every((s) => !s.settled()), `${path} answered while both searches were stuck`);
        assert.ok(ms >= HEALTH, `${path} answered after ${Math.round(ms)} ms, before the ${HEALTH} ms bound`);
      }
    } finally {
      await lock.release();
    }
    for (const s of stuck) assert.equal((await within(s.done, FAIL_AFTER_MS, "a stuck search")).status, 200);
    assert.equal((await a.app.request("/healthz")).status, 200);
    const ready = await a.app.request("/readyz");
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: "ok", migration: LATEST_MIGRATION });
    await close();
  },
);

/** A TCP server that accepts connections and never answers: a database that hangs before its handshake. */
function silentServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  (async () => {
    for await (const conn of listener) conns.push(conn);
  })().catch(() => {});
  return {
    url: `postgres://nobody@127.0.0.1:${listener.addr.port}/none`,
    accepted: () => conns.length,
    close: () => {
      for (const c of conns) c.close();
      listener.close();
    },
  };
}

Deno.test({
  name:
    "db timeouts: a server that never answers the handshake: the handler answers 503 (5030) within the connect bound, the probes within theirs",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const CONNECT = 500;
    const HEALTH = 300;
    const server = silentServer();
    const db = openDb({
      url: server.url,
      timeouts: { connectMs: CONNECT, statementMs: 1_000, lockMs: 0, idleInTransactionMs: 0 },
    });
    try {
      const a = await buildTestApp({ kind: "postgres", db, close: () => Promise.resolve() }, {
        db: { connectMs: CONNECT, statementMs: 1_000, lockMs: 0, idleInTransactionMs: 0, healthMs: HEALTH },
      });
      // The server never answers: without the bounds these would wait for ever (the test fails instead).
      using logs = captureLogs({ level: "warning" });
      const { res, ms } = await timed(a.handler(search("d@depot.example", "ABC123")));
      await expectFault503(res);
      assert.ok(server.accepted() >= 1, "the pool did reach the silent server");
      assert.ok(ms >= CONNECT, `answered after ${Math.round(ms)} ms, before the ${CONNECT} ms bound`);
      assert.match(unavailableWarning(logs), /^database unreachable/, "ended by the connect bound");
      for (const path of ["/healthz", "/readyz"]) {
        const probe = await timed(Promise.resolve(a.app.request(path)));
        assert.equal(probe.res.status, 503, path);
        await probe.res.body?.cancel();
        assert.ok(probe.ms >= HEALTH, `${path} answered after ${Math.round(probe.ms)} ms, before its bound`);
      }
    } finally {
      server.close();
      await db.destroy().catch(() => {});
    }
  },
});

serverTest(
  "db timeouts: migrations run without the request bounds, and the pool's connection gets them back",
  async (t) => {
    // A fresh, empty database on the server (freshDb's is migrated already).
    const name = `pm_m_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    await sql`create database ${sql.id(name)}`.execute(t.db);
    const url = new URL(t.url!);
    url.pathname = `/${name}`;
    // 1 ms: every migration statement would be cancelled under it.
    const db = openDb({
      url: url.toString(),
      poolSize: 1,
      timeouts: { connectMs: 5_000, statementMs: 1, lockMs: 1, idleInTransactionMs: 0 },
    });
    try {
      await migrateToLatest(db);
      const check = new pg.Client({ connectionString: url.toString() });
      await check.connect();
      const { rows } = await check.query("select name from kysely_migration order by name desc limit 1");
      await check.end();
      assert.equal(rows[0].name, LATEST_MIGRATION);
      // The same pooled connection is bounded again.
      await assert.rejects(sql`select pg_sleep(0.2)`.execute(db), (e) => isDatabaseUnavailable(e));
    } finally {
      await db.destroy();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(t.db);
    }
  },
);

appTest(
  "readyz: 200 with the latest migration; 503 naming migrations when the latest is not applied, while healthz stays 200 (D3)",
  async (a) => {
    const ok = await a.app.request("/readyz");
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get("content-type")!, /^application\/json/);
    assert.deepEqual(await ok.json(), { status: "ok", migration: LATEST_MIGRATION });
    await sql`delete from kysely_migration where name = ${LATEST_MIGRATION}`.execute(a.db);
    const pending = await a.app.request("/readyz");
    assert.equal(pending.status, 503);
    const body = await pending.json();
    assert.equal(body.status, "unavailable");
    assert.equal(body.reason, "migrations");
    assert.equal(body.expected, LATEST_MIGRATION);
    assert.equal((await a.app.request("/healthz")).status, 200);
  },
);

Deno.test("db timeouts: a timeout is told by its kind (SQLSTATE or the pool's error), never by its text", () => {
  for (const code of ["57014", "55P03", "25P03"]) assert.ok(isDatabaseUnavailable({ code }), code);
  assert.ok(isDatabaseUnavailable(new DatabaseUnreachable(new Error("x"))));
  assert.ok(!isDatabaseUnavailable({ code: "23505" }));
  assert.ok(!isDatabaseUnavailable(new Error("canceling statement due to statement timeout")));
  assert.ok(!isDatabaseUnavailable(null));
});

Deno.test("db timeouts: configuration defaults and refusals (DB_*_MS)", () => {
  assert.deepEqual(parseConfig({}).db, {
    connectMs: 5_000,
    statementMs: 15_000,
    lockMs: 5_000,
    idleInTransactionMs: 60_000,
    healthMs: 2_000,
  });
  const set = parseConfig({
    DB_CONNECT_TIMEOUT_MS: "1000",
    DB_STATEMENT_TIMEOUT_MS: "0",
    DB_LOCK_TIMEOUT_MS: "250",
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: "30000",
    DB_HEALTH_TIMEOUT_MS: "1500",
  }).db;
  assert.deepEqual(set, {
    connectMs: 1_000,
    statementMs: 0,
    lockMs: 250,
    idleInTransactionMs: 30_000,
    healthMs: 1_500,
  });
  assert.throws(() => parseConfig({ DB_STATEMENT_TIMEOUT_MS: "soon" }), /DB_STATEMENT_TIMEOUT_MS/);
  assert.throws(() => parseConfig({ DB_HEALTH_TIMEOUT_MS: "0" }), /DB_HEALTH_TIMEOUT_MS/);
  assert.throws(() => parseConfig({ DB_CONNECT_TIMEOUT_MS: "-1" }), /DB_CONNECT_TIMEOUT_MS/);
});

// The embedded database: the pool bounds do not apply (db/client.ts). If a PGlite release starts firing
// statement_timeout, this fails and the decision should be revisited.
Deno.test({
  name: "db timeouts: PGlite accepts a statement bound but never fires it (why db/client.ts sets none there)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const t = await freshDb("pglite");
    try {
      await sql`set statement_timeout = 50`.execute(t.db);
      // Fired, the bound would cancel the statement (57014): it completes with its row instead.
      const slept = await sql<{ slept: string }>`select pg_sleep(0.2)::text as slept`.execute(t.db)
        .catch((e) => assert.fail(`PGlite fired statement_timeout (${e?.code}): update db/client.ts`));
      assert.equal(slept.rows.length, 1);
    } finally {
      await t.close();
    }
  },
});
