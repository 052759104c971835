/**
 * A statement in flight when the server goes away is a database-unavailable case like the others
 * (docs/operations.md "Databases"): 503 with Retry-After, one `Database unavailable` warning line, no
 * fault with a stack. Told by kind, never by text: the server's SQLSTATE (57P01 admin_shutdown when a stop
 * or `pg_terminate_backend` ends the backend; 57P02, 57P03, class 08), or, when the connection dies
 * without a word from the server (pg's "Connection terminated unexpectedly" carries no code), the death
 * pg reported on the client's 'error' event before failing the statement (db/client.ts
 * DatabaseConnectionLost).
 *
 * Each in-flight statement is a handler search held by a lock another session holds on `claims`, so the
 * test knows it is running when it cuts it (no sleeps: it waits for the backend to show up waiting).
 */
import assert from "node:assert/strict";
import pg from "pg";
import { DatabaseConnectionLost, isDatabaseUnavailable, openDb } from "@/db/client.ts";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { serverTest, type TestDb } from "@/testkit/db.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { captureLogs } from "@/tests/helpers/observed.ts";

const APP_NAME = "pm-terminated-test";

async function seed(a: TestApp) {
  const driver = await makeUser(a.db, { role: "driver" });
  const { claim } = await makeClaim(a.db, { registration: "TRM 123", parts: [{ status: "Arrived" }] });
  return {
    event_type: "Parts_search_details",
    user_email: driver.email,
    details: { rego: claim.registration, movement_type: "direct" },
  };
}

/** The app over its own pool at `url` (the service's bounds, none of which runs out in these tests). */
async function appAt(t: TestDb, url: string) {
  const timeouts = { connectMs: 5_000, statementMs: 60_000, lockMs: 0, idleInTransactionMs: 0 };
  const db = openDb({ url, poolSize: 4, timeouts });
  const a = await buildTestApp({ ...t, db }, { db: { ...timeouts, healthMs: 2_000 } });
  return { a, close: () => db.destroy() };
}

/** Another session holding `claims` exclusively until `release()`; it also watches the test app's backends. */
async function lockClaims(url: string) {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query("begin");
  await admin.query("lock table claims in access exclusive mode");
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  return {
    /** Waits (bounded) for the app's backend blocked on the lock; its pid. */
    async waiter(): Promise<number> {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const r = await other.query(
          `select pid from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'`,
          [APP_NAME],
        );
        if (r.rows.length > 0) return r.rows[0].pid;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error("the request's statement never waited on the lock");
    },
    terminate: (pid: number) => other.query("select pg_terminate_backend($1)", [pid]),
    release: async () => {
      await admin.query("rollback").catch(() => {});
      await admin.end();
      await other.end();
    },
  };
}

async function expectUnavailable(res: Response, lines: string[]) {
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), "5");
  assert.equal((await res.json()).code, 5030);
  assert.equal(lines.filter((l) => /Database unavailable in POST/.test(l)).length, 1, lines.join("\n"));
  assert.ok(!lines.some((l) => /Fault in/.test(l)), `logged as a fault:\n${lines.join("\n")}`);
}

const withName = (url: string) => `${url}${url.includes("?") ? "&" : "?"}application_name=${APP_NAME}`;

serverTest(
  "db terminated: a statement whose backend is terminated in flight (57P01) answers 503 with Retry-After, logged as database unavailable",
  async (t) => {
    const { a, close } = await appAt(t, withName(t.url!));
    const search = await seed(a);
    const lock = await lockClaims(t.url!);
    try {
      using logs = captureLogs({ format: "text", level: "warning" });
      const answer = a.handler(search);
      await lock.terminate(await lock.waiter());
      await expectUnavailable(await answer, logs.lines);
    } finally {
      await lock.release();
    }
    // The pool replaced the connection: the same search answers.
    assert.equal((await a.call(search)).result.status, "success");
    await close();
  },
);

/**
 * A TCP relay between the app and the server whose connections the test can cut: the socket closes with
 * no message from the server, as when a server host dies or a network path drops.
 */
function relay(to: URL) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  (async () => {
    for await (const inbound of listener) {
      const outbound = await Deno.connect({ hostname: to.hostname, port: Number(to.port || 5432) });
      open.add(inbound).add(outbound);
      const pipe = (from: Deno.Conn, into: Deno.Conn) =>
        from.readable.pipeTo(into.writable).catch(() => {}).finally(() => {
          for (const c of [from, into]) {
            open.delete(c);
            try {
              c.close();
            } catch { /* already closed */ }
          }
        });
      pipe(inbound, outbound);
      pipe(outbound, inbound);
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    cut() {
      for (const c of open) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
      open.clear();
    },
    close() {
      this.cut();
      listener.close();
    },
  };
}

serverTest(
  "db terminated: a connection cut without a word from the server (no SQLSTATE) answers 503 with Retry-After, logged as database unavailable",
  async (t) => {
    const server = new URL(t.url!);
    const proxy = relay(server);
    const via = new URL(t.url!);
    via.host = `127.0.0.1:${proxy.port}`;
    const { a, close } = await appAt(t, withName(via.toString()));
    const search = await seed(a);
    const lock = await lockClaims(t.url!);
    try {
      using logs = captureLogs({ format: "text", level: "warning" });
      const answer = a.handler(search);
      await lock.waiter();
      proxy.cut();
      await expectUnavailable(await answer, logs.lines);
    } finally {
      await lock.release();
    }
    assert.equal((await a.call(search)).result.status, "success");
    await close();
    proxy.close();
  },
);

Deno.test("db terminated: the server going away is told by its SQLSTATE or the connection's death, never by text", () => {
  for (const code of ["57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08P01"]) {
    assert.ok(isDatabaseUnavailable({ code }), code);
  }
  assert.ok(isDatabaseUnavailable(new DatabaseConnectionLost(new Error("x"))));
  assert.ok(!isDatabaseUnavailable(new Error("Connection terminated unexpectedly")), "not by its text");
  assert.ok(!isDatabaseUnavailable({ code: "57P04" }), "database_dropped is not a passing outage");
  assert.ok(!isDatabaseUnavailable({ code: "ECONNRESET" }));
});
