import assert from "node:assert/strict";
import { sql, type Transaction } from "kysely";
import { type Database, PART_STATUSES } from "@/db/schema.ts";
import { DomainError } from "@/lib/errors.ts";
import {
  changeStatusByDispatcher,
  DISPATCHER_TRANSITIONS,
  StatusRaced,
  transitionsFrom,
} from "@/lib/part_status.ts";
import { appTest, serverAppTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import {
  assertConsistent,
  confirmed,
  dropOffPayload,
  flowSetup,
  pickUpPayload,
  statusOf,
} from "@/testkit/movements.ts";
import {
  JITTER_MS,
  jittered,
  RACE_ROUNDS,
  raceUntilBothWin,
  whileHolding,
  within,
} from "@/tests/helpers/races.ts";

async function dispatcherAnd(a: TestApp, status: (typeof PART_STATUSES)[number]) {
  const user = await makeUser(a.db, { role: "dispatcher" });
  const { parts } = await makeClaim(a.db, { parts: [{ status, part_no: "PN-RACE-1" }] });
  return { user, part: parts[0] };
}

const historyOf = (a: TestApp, partId: number) =>
  a.db.selectFrom("part_status_history").selectAll().where("part_id", "=", partId).orderBy("id").execute();

Deno.test("part_status: the table names only known statuses, has no duplicates, and corrections need a reason", () => {
  const seen = new Set<string>();
  for (const t of DISPATCHER_TRANSITIONS) {
    assert.ok(PART_STATUSES.includes(t.from) && PART_STATUSES.includes(t.to), `${t.from} → ${t.to}`);
    assert.notEqual(t.from, t.to);
    assert.ok(!seen.has(`${t.from}→${t.to}`), "listed twice");
    seen.add(`${t.from}→${t.to}`);
  }
  // The list: Ordered → Arrived, Arrived ⇄ Pending Repair Shop Pick-Up, corrections back.
  assert.deepEqual(transitionsFrom("Ordered").map((t) => [t.to, t.correction]), [["Arrived", false]]);
  assert.deepEqual(
    transitionsFrom("Arrived").map((t) => [t.to, t.correction]),
    [["Pending Repair Shop Pick-Up", false], ["Ordered", true]],
  );
  assert.deepEqual(transitionsFrom("Pending Repair Shop Pick-Up").map((t) => t.to), [
    "Arrived",
    "Delivered to Repair Shop directly",
  ]);
  assert.deepEqual(transitionsFrom("Returned to HQ"), [], "a part back at HQ by a movement stays there");
});

appTest("part_status: Ordered → Arrived changes the part and writes a dashboard history row", async (a) => {
  const { user, part } = await dispatcherAnd(a, "Ordered");
  const result = await changeStatusByDispatcher(a.db, a.clock, {
    partId: part.id,
    from: "Ordered",
    to: "Arrived",
    reason: "  ",
    userId: user.id,
  });
  assert.equal(result.to, "Arrived");
  assert.equal(await statusOf(a.db, part.id), "Arrived");
  const [h] = await historyOf(a, part.id);
  assert.deepEqual(
    [h.from_status, h.to_status, h.via, h.changed_by, h.reason, h.changed_at.toISOString()],
    ["Ordered", "Arrived", "dashboard", user.id, null, a.clock.now().toISOString()],
  );
  const row = await a.db.selectFrom("parts_orders").select("updated_at").where("id", "=", part.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.updated_at.toISOString(), a.clock.now().toISOString());
});

appTest("part_status: a correction needs a reason; with one, it is kept in the history", async (a) => {
  const { user, part } = await dispatcherAnd(a, "Arrived");
  const input = { partId: part.id, from: "Arrived", to: "Ordered", userId: user.id };
  await assert.rejects(
    changeStatusByDispatcher(a.db, a.clock, { ...input, reason: "   " }),
    (e: Error) => e instanceof DomainError && e.message === "Give a reason for this correction.",
  );
  assert.equal(await statusOf(a.db, part.id), "Arrived");
  assert.equal((await historyOf(a, part.id)).length, 0);
  await changeStatusByDispatcher(a.db, a.clock, { ...input, reason: " Scanned the wrong box " });
  assert.equal(await statusOf(a.db, part.id), "Ordered");
  assert.equal((await historyOf(a, part.id))[0].reason, "Scanned the wrong box");
});

appTest("part_status: a change outside the table is refused and nothing is written", async (a) => {
  const { user, part } = await dispatcherAnd(a, "Ordered");
  for (const to of ["Returned to HQ", "Picked Up from Repair Shop", "Ordered", "Nonsense"]) {
    await assert.rejects(
      changeStatusByDispatcher(a.db, a.clock, {
        partId: part.id,
        from: "Ordered",
        to,
        reason: "x",
        userId: user.id,
      }),
      (e: Error) =>
        e instanceof DomainError && e.message.startsWith("A part cannot be changed from Ordered to"),
    );
  }
  assert.equal(await statusOf(a.db, part.id), "Ordered");
  await assert.rejects(
    changeStatusByDispatcher(a.db, a.clock, {
      partId: 999_999,
      from: "Ordered",
      to: "Arrived",
      userId: user.id,
    }),
    (e: Error) => e.message === "Part not found.",
  );
});

appTest("part_status: a part changed since the page was drawn is not overwritten", async (a) => {
  const { user, part } = await dispatcherAnd(a, "Arrived");
  // The page showed Arrived; a driver delivered it meanwhile.
  await a.db.updateTable("parts_orders").set({ status: "Delivered to Repair Shop directly" })
    .where("id", "=", part.id).execute();
  await assert.rejects(
    changeStatusByDispatcher(a.db, a.clock, {
      partId: part.id,
      from: "Arrived",
      to: "Pending Repair Shop Pick-Up",
      userId: user.id,
    }),
    (e: Error) =>
      e instanceof StatusRaced && e.actual === "Delivered to Repair Shop directly" &&
      e.message ===
        "PN-RACE-1 changed to Delivered to Repair Shop directly while you were looking; nothing was changed.",
  );
  assert.equal(await statusOf(a.db, part.id), "Delivered to Repair Shop directly");
  assert.equal((await historyOf(a, part.id)).length, 0);
});

appTest(
  "part_status: a part on an open return trip is not moved back; one picked up without a trip may be",
  async (a) => {
    const s = await flowSetup(a, {
      count: 2,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
    });
    const leg1 = await a.call(
      pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs.slice(0, 1))),
    );
    assert.equal(leg1.result.status, "success", JSON.stringify(leg1));
    const tripId = leg1.result.data!.parts_movement_id as number;
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    await assert.rejects(
      changeStatusByDispatcher(a.db, a.clock, {
        partId: s.parts[0].id,
        from: "Picked Up from Repair Shop",
        to: "Pending Repair Shop Pick-Up",
        reason: "Driver says it is still at the shop",
        userId: dispatcher.id,
      }),
      (e: Error) =>
        e instanceof DomainError &&
        e.message ===
          `${s.parts[0].part_no} is on open return trip #${tripId}; it changes when the driver drops it ` +
            "off at HQ. Nothing was changed.",
    );
    assert.equal(await statusOf(a.db, s.parts[0].id), "Picked Up from Repair Shop");
    await assertConsistent(a.db);

    // Imported as picked up, on no trip: a correction is allowed.
    const { part } = await dispatcherAnd(a, "Picked Up from Repair Shop");
    await changeStatusByDispatcher(a.db, a.clock, {
      partId: part.id,
      from: "Picked Up from Repair Shop",
      to: "Pending Repair Shop Pick-Up",
      reason: "Import was wrong",
      userId: dispatcher.id,
    });
    assert.equal(await statusOf(a.db, part.id), "Pending Repair Shop Pick-Up");
  },
);

/** Waits until some session of this database waits on a row lock (the dispatcher's UPDATE). */
async function waitForLockWait(a: TestApp) {
  for (let i = 0; i < 200; i++) {
    const r = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(a.db);
    if (r.rows[0].n > 0) return;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error("the dispatcher's update never waited on the driver's lock");
}

serverAppTest(
  "part_status race: a dispatcher's change waiting on a driver's conditional update changes nothing",
  async (a) => {
    const { user, part } = await dispatcherAnd(a, "Arrived");
    // The driver's submission: the same conditional UPDATE a movement makes, held open. whileHolding ends
    // it whatever happens, so a failed assertion fails the test at once instead of hanging it.
    const error = await whileHolding(a.db, async (tx) => {
      const flipped = await tx.updateTable("parts_orders").set({
        status: "Delivered to Repair Shop directly",
      })
        .where("id", "=", part.id).where("status", "=", "Arrived").returning("id").execute();
      assert.equal(flipped.length, 1);
    }, async (release) => {
      const dispatcher = changeStatusByDispatcher(a.db, a.clock, {
        partId: part.id,
        from: "Arrived",
        to: "Pending Repair Shop Pick-Up",
        userId: user.id,
      }).then(() => null, (e: Error) => e);
      await waitForLockWait(a);
      release();
      return await within(dispatcher, 10_000, "the dispatcher's change after the driver committed");
    });
    assert.ok(error instanceof StatusRaced, String(error));
    assert.equal(
      error.message,
      "PN-RACE-1 changed to Delivered to Repair Shop directly while you were looking; nothing was changed.",
    );
    assert.equal(await statusOf(a.db, part.id), "Delivered to Repair Shop directly");
    assert.equal((await historyOf(a, part.id)).filter((h) => h.via === "dashboard").length, 0);
  },
);

serverAppTest(
  "part_status race harness: a failed assertion while a lock is held fails at once and releases it",
  async (a) => {
    const { part } = await dispatcherAnd(a, "Arrived");
    const holdOnPart = (tx: Transaction<Database>) =>
      tx.selectFrom("parts_orders").select("id").where("id", "=", part.id).forUpdate().execute().then(
        () => {},
      );
    // Failing inside the transaction, before holding: the error comes out (no wait for a lock signal).
    await assert.rejects(
      within(
        whileHolding(a.db, () => Promise.reject(new Error("assertion in the transaction")), () => {
          throw new Error("never reached");
        }),
        10_000,
        "a failing hold",
      ),
      /assertion in the transaction/,
    );
    // Failing while holding, without releasing: the lock is released anyway.
    await assert.rejects(
      within(
        whileHolding(a.db, holdOnPart, () => Promise.reject(new Error("assertion while holding"))),
        10_000,
        "a failing during",
      ),
      /assertion while holding/,
    );
    const free = await within(
      a.db.transaction().execute((tx) =>
        tx.selectFrom("parts_orders").select("id").where("id", "=", part.id).forUpdate().noWait().execute()
      ),
      10_000,
      "the lock after a failure",
    );
    assert.equal(free.length, 1, "the row is not locked any more");
  },
);

serverAppTest(
  "part_status race: real drop-offs against dispatcher flags: both sides win some rounds, history stays a chain",
  async (a) => {
    const s = await flowSetup(a, { count: RACE_ROUNDS.max, status: "Arrived", stage: "direct_dropoff" });
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    // Each side starts after its own random delay, so either can reach the part first.
    const wins = await raceUntilBothWin(["driver", "dispatcher"], async (i) => {
      const part = s.parts[i];
      const [driver, flagged] = await Promise.all([
        jittered(() =>
          a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed([s.pairs[i]])))
        ),
        jittered(
          () =>
            changeStatusByDispatcher(a.db, a.clock, {
              partId: part.id,
              from: "Arrived",
              to: "Pending Repair Shop Pick-Up",
              userId: dispatcher.id,
            }).then(() => null, (e: Error) => e),
          2 * JITTER_MS,
        ),
      ]);
      const driverWon = driver.result.status === "success";
      assert.equal(driverWon, flagged !== null, `part ${i}: exactly one side wins`);
      if (driverWon) {
        assert.ok(flagged instanceof StatusRaced, String(flagged));
        assert.equal(await statusOf(a.db, part.id), "Delivered to Repair Shop directly");
        return "driver";
      }
      assert.equal(driver.result.text, `${part.part_no} is no longer available for delivery.`);
      assert.equal(await statusOf(a.db, part.id), "Pending Repair Shop Pick-Up");
      return "dispatcher";
    });
    console.log(`wins: ${JSON.stringify(wins)}`);
    await assertConsistent(a.db);
  },
  { poolSize: 14 },
);
