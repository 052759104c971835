/**
 * Races between real connections (PostgreSQL server only): drivers submitting the same parts at once, and
 * submissions racing the dispatcher's status changes. Exactly one winner per part, every loser gets its
 * exact "no longer …" text, no orphan rows, and each part's history is a valid path.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { PartStatus } from "@/db/schema.ts";
import { buildTestApp, type HandlerAnswer, serverAppTest, type TestApp } from "@/testkit/app.ts";
import { serverTest } from "@/testkit/db.ts";
import { countingDb } from "@/testkit/round_trips.ts";
import { makeUser } from "@/testkit/factories.ts";
import {
  assertConsistent,
  confirmed,
  dropOffPayload,
  dropOffReversePayload,
  flowSetup,
  pickUpPayload,
  stageFor,
  statusOf,
} from "@/testkit/movements.ts";
import {
  JITTER_MS,
  jittered,
  lockWaiters,
  RACE_ROUNDS,
  raceUntilBothWin,
  whileHolding,
} from "@/tests/helpers/races.ts";

const DRIVERS = 10;
const POOL = { poolSize: 24 };

/** Each driver lists the parts in its own order (rotated), so lock order ≠ request order. */
const rotate = <T>(items: T[], by: number) => items.map((_, i) => items[(i + by) % items.length]);

function assertOneWinner(answers: HandlerAnswer[], loserText: (i: number) => string) {
  const winners = answers.flatMap((b, i) => b.result.status === "success" ? [i] : []);
  assert.equal(winners.length, 1, JSON.stringify(answers.map((b) => b.result.text ?? "ok")));
  for (const [i, b] of answers.entries()) {
    if (i !== winners[0]) assert.equal(b.result.text, loserText(i));
  }
  return winners[0];
}

async function movementCounts(a: TestApp) {
  const r = await sql<{ movements: number; deliver_parts: number }>`select
    (select count(*) from parts_movements)::int as movements,
    (select count(*) from deliver_parts)::int as deliver_parts`.execute(a.db);
  return r.rows[0];
}

serverAppTest("parts_drop_off: ten drivers submitting the same parts at once, one wins", async (a) => {
  const s = await flowSetup(a, { count: 4, status: "Arrived" });
  const drivers = await Promise.all(Array.from({ length: DRIVERS }, () => makeUser(a.db)));
  const staged: number[][] = [];
  for (const d of drivers) staged.push(await stageFor(a, s.parts, "direct_dropoff", d.id));
  const orders = drivers.map((_, i) =>
    rotate(s.parts.map((p, j) => ({ part: p.id, image: staged[i][j] })), i)
  );
  const answers = await Promise.all(
    drivers.map((d, i) =>
      a.call(dropOffPayload(d.email, s.claim.registration, s.shop, confirmed(orders[i])))
    ),
  );
  // A loser reads about the first part of its own request: every part went to the winner.
  const partNo = new Map(s.parts.map((p) => [p.id, p.part_no]));
  assertOneWinner(answers, (i) => `${partNo.get(orders[i][0].part)} is no longer available for delivery.`);
  assert.deepEqual(await movementCounts(a), { movements: 1, deliver_parts: 4 });
  for (const p of s.parts) assert.equal(await statusOf(a.db, p.id), "Delivered to Repair Shop directly");
  await assertConsistent(a.db);
}, POOL);

serverAppTest("parts_drop_off: drivers with overlapping part sets: each part has one winner", async (a) => {
  const s = await flowSetup(a, { count: 6, status: "Arrived" });
  const drivers = await Promise.all(Array.from({ length: DRIVERS }, () => makeUser(a.db)));
  // Driver i takes parts i, i+1, i+2 (mod 6), in reverse order for odd drivers.
  const sets = drivers.map((_, i) => {
    const parts = [0, 1, 2].map((k) => s.parts[(i + k) % 6]);
    return i % 2 ? parts.reverse() : parts;
  });
  const images: number[][] = [];
  for (const [i, d] of drivers.entries()) images.push(await stageFor(a, sets[i], "direct_dropoff", d.id));
  const answers = await Promise.all(
    drivers.map((d, i) =>
      a.call(
        dropOffPayload(
          d.email,
          s.claim.registration,
          s.shop,
          confirmed(sets[i].map((p, j) => ({ part: p.id, image: images[i][j] }))),
        ),
      )
    ),
  );
  const won = new Map<number, number>();
  for (const [i, b] of answers.entries()) {
    if (b.result.status !== "success") {
      assert.match(b.result.text!, / is no longer available for delivery\.$/);
      continue;
    }
    for (const p of sets[i]) {
      assert.equal(won.has(p.id), false, `part ${p.id} won twice`);
      won.set(p.id, i);
    }
  }
  assert.ok(won.size >= 3);
  const rows = await a.db.selectFrom("deliver_parts").select("part_id").execute();
  assert.equal(rows.length, won.size);
  for (const p of s.parts) {
    assert.equal(await statusOf(a.db, p.id), won.has(p.id) ? "Delivered to Repair Shop directly" : "Arrived");
  }
  await assertConsistent(a.db);
}, POOL);

serverAppTest("parts_pick_up_reverse: ten drivers collecting the same parts at once, one wins", async (a) => {
  const s = await flowSetup(a, { count: 3, status: "Pending Repair Shop Pick-Up" });
  const drivers = await Promise.all(Array.from({ length: DRIVERS }, () => makeUser(a.db)));
  const staged: number[][] = [];
  for (const d of drivers) staged.push(await stageFor(a, s.parts, "reverse_pickup", d.id));
  const orders = drivers.map((_, i) =>
    rotate(s.parts.map((p, j) => ({ part: p.id, image: staged[i][j] })), i)
  );
  const answers = await Promise.all(
    drivers.map((d, i) => a.call(pickUpPayload(d.email, s.claim.registration, confirmed(orders[i])))),
  );
  const partNo = new Map(s.parts.map((p) => [p.id, p.part_no]));
  const w = assertOneWinner(
    answers,
    (i) => `${partNo.get(orders[i][0].part)} is no longer flagged for return.`,
  );
  assert.deepEqual(await movementCounts(a), { movements: 1, deliver_parts: 3 });
  const cm = await a.db.selectFrom("claim_management").select("parts_movement_id").where(
    "claim_id",
    "=",
    s.claim.id,
  )
    .executeTakeFirstOrThrow();
  assert.equal(cm.parts_movement_id, answers[w].result.data!.parts_movement_id);
  await assertConsistent(a.db);
}, POOL);

serverAppTest("parts_drop_off_reverse: ten drivers returning the same trip at once, one wins", async (a) => {
  const s = await flowSetup(a, { count: 3, status: "Pending Repair Shop Pick-Up", stage: "reverse_pickup" });
  const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
  const tripId = leg1.result.data!.parts_movement_id as number;
  const drivers = await Promise.all(Array.from({ length: DRIVERS }, () => makeUser(a.db)));
  const staged: number[][] = [];
  for (const d of drivers) staged.push(await stageFor(a, s.parts, "reverse_dropoff", d.id));
  const orders = drivers.map((_, i) =>
    rotate(s.parts.map((p, j) => ({ part: p.id, image: staged[i][j] })), i)
  );
  const answers = await Promise.all(
    drivers.map((d, i) =>
      a.call(dropOffReversePayload(d.email, s.claim.registration, tripId, confirmed(orders[i])))
    ),
  );
  const w = assertOneWinner(answers, () => "This return trip is already complete.");
  assert.equal(answers[w].result.data!.movement_status, "Parts Dropped off");
  const m = await a.db.selectFrom("parts_movements").selectAll().where("id", "=", tripId)
    .executeTakeFirstOrThrow();
  assert.equal(m.dropped_off_by, drivers[w].id);
  assert.equal(
    (await a.db.selectFrom("deliver_parts").select("id").where("delivery", "=", true).execute()).length,
    3,
  );
  await assertConsistent(a.db);
}, POOL);

serverAppTest(
  "parts_drop_off_reverse: concurrent partial returns of one trip: exactly one completes it",
  async (a) => {
    const s = await flowSetup(a, {
      count: 4,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
    });
    const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
    const tripId = leg1.result.data!.parts_movement_id as number;
    const drivers = await Promise.all(s.parts.map(() => makeUser(a.db)));
    const images: number[][] = [];
    for (const [i, d] of drivers.entries()) {
      images.push(
        await stageFor(a, [s.parts[i]], "reverse_dropoff", d.id),
      );
    }
    const answers = await Promise.all(drivers.map((d, i) =>
      a.call(
        dropOffReversePayload(
          d.email,
          s.claim.registration,
          tripId,
          confirmed([{ part: s.parts[i].id, image: images[i][0] }]),
        ),
      )
    ));
    assert.ok(
      answers.every((b) => b.result.status === "success"),
      JSON.stringify(answers),
    );
    assert.deepEqual(
      answers.map((b) => b.result.data!.movement_status).sort(),
      ["Parts Dropped off", "Parts Picked Up", "Parts Picked Up", "Parts Picked Up"],
    );
    const m = await a.db.selectFrom("parts_movements").select("movement_status").where("id", "=", tripId)
      .executeTakeFirstOrThrow();
    assert.equal(m.movement_status, "Parts Dropped off");
    await assertConsistent(a.db);
  },
  POOL,
);

serverAppTest(
  "parts_drop_off: an identical submission sent twice at once is applied once, both answered",
  async (a) => {
    const s = await flowSetup(a, { count: 5, status: "Arrived", stage: "direct_dropoff" });
    const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs));
    const answers = await Promise.all([a.call(payload), a.call(payload), a.call(payload)]);
    assert.ok(answers.every((b) => b.result.status === "success"), JSON.stringify(answers));
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    assert.deepEqual(await movementCounts(a), { movements: 1, deliver_parts: 5 });
    await assertConsistent(a.db);
  },
  POOL,
);

/**
 * The dispatcher, as the dashboard will do it: its own transaction, a conditional UPDATE guarded by the
 * status it saw, and a history row only when the update won.
 */
async function dispatcherMove(a: TestApp, partId: number, seen: PartStatus, to: PartStatus, userId: number) {
  return await a.db.transaction().execute(async (trx) => {
    const row = await trx.updateTable("parts_orders").set({ status: to, updated_at: a.clock.now() })
      .where("id", "=", partId).where("status", "=", seen).returning("id").executeTakeFirst();
    if (!row) return false;
    await trx.insertInto("part_status_history").values({
      part_id: partId,
      from_status: seen,
      to_status: to,
      changed_at: a.clock.now(),
      changed_by: userId,
      via: "dashboard",
      reason: "race test",
    }).execute();
    return true;
  });
}

/**
 * Holds a lock on the row (a part by default; the claim row a reverse pickup locks first, or the trip row
 * leg 2 locks first) while `first` and then `second` queue up behind it, then lets go: the lock queue
 * decides who goes first, deterministically. The holding transaction ends whatever fails.
 */
async function queued<A, B>(
  a: TestApp,
  rowId: number,
  first: () => Promise<A>,
  second: () => Promise<B>,
  table: "parts_orders" | "claims" | "parts_movements" = "parts_orders",
) {
  return await whileHolding(a.db, async (trx) => {
    await trx.selectFrom(table).select("id").where("id", "=", rowId).forUpdate().execute();
  }, async (release) => {
    const one = first();
    await lockWaiters(a.db, 1);
    const two = second();
    await lockWaiters(a.db, 2);
    release();
    return [await one, await two] as const;
  });
}

serverAppTest(
  "parts_drop_off: submissions racing the dispatcher: both sides win some rounds, one winner each, exact texts",
  async (a) => {
    const s = await flowSetup(a, { count: RACE_ROUNDS.max, status: "Arrived" });
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    const images = await stageFor(a, s.parts, "direct_dropoff", s.user.id);
    // Each side starts after its own random delay, so either can reach the part first.
    const wins = await raceUntilBothWin(["submission", "dispatcher"], async (i) => {
      const part = s.parts[i];
      const [answer, moved] = await Promise.all([
        jittered(() =>
          a.call(
            dropOffPayload(
              s.user.email,
              s.claim.registration,
              s.shop,
              confirmed([{ part: part.id, image: images[i] }]),
            ),
          )
        ),
        jittered(() => dispatcherMove(a, part.id, "Arrived", "Ordered", dispatcher.id), 2 * JITTER_MS),
      ]);
      if (answer.result.status === "success") {
        assert.equal(moved, false, "both won");
        assert.equal(await statusOf(a.db, part.id), "Delivered to Repair Shop directly");
        return "submission";
      }
      assert.equal(moved, true, "both lost");
      assert.equal(answer.result.text, `${part.part_no} is no longer available for delivery.`);
      assert.equal(await statusOf(a.db, part.id), "Ordered");
      return "dispatcher";
    });
    console.log(`wins: ${JSON.stringify(wins)}`);
    assert.equal(
      (await a.db.selectFrom("parts_movements").select("id").execute()).length,
      wins.submission,
    );
    await assertConsistent(a.db);
  },
  POOL,
);

serverAppTest(
  "parts_pick_up_reverse: submissions racing the dispatcher: both sides win some rounds, one winner each, exact texts",
  async (a) => {
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    // Two parts per submission: the dispatcher races one of them, the other is untouched. A claim per
    // round: a won pickup opens the claim's return trip, which refuses any further pickup on it.
    const wins = await raceUntilBothWin(["submission", "dispatcher"], async (round) => {
      const s = await flowSetup(a, {
        count: 2,
        status: "Pending Repair Shop Pick-Up",
        stage: "reverse_pickup",
      });
      const pair = s.parts;
      const raced = pair[round % 2];
      const [answer, moved] = await Promise.all([
        jittered(() =>
          a.call(
            pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)),
          )
        ),
        jittered(() =>
          dispatcherMove(
            a,
            raced.id,
            "Pending Repair Shop Pick-Up",
            "Delivered to Repair Shop directly",
            dispatcher.id,
          ), 2 * JITTER_MS),
      ]);
      if (answer.result.status === "success") {
        assert.equal(moved, false, "both won");
        for (const p of pair) assert.equal(await statusOf(a.db, p.id), "Picked Up from Repair Shop");
        return "submission";
      }
      assert.equal(moved, true, "both lost");
      assert.equal(answer.result.text, `${raced.part_no} is no longer flagged for return.`);
      const other = pair.find((p) => p !== raced)!;
      assert.equal(
        await statusOf(a.db, other.id),
        "Pending Repair Shop Pick-Up",
        "nothing written for the loser",
      );
      return "dispatcher";
    });
    console.log(`wins: ${JSON.stringify(wins)}`);
    await assertConsistent(a.db);
  },
  POOL,
);

serverAppTest(
  "parts_drop_off: a submission queued before the dispatcher wins; the dispatcher's guarded update finds nothing",
  async (a) => {
    const s = await flowSetup(a, { count: 1, status: "Arrived", stage: "direct_dropoff" });
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    const [answer, moved] = await queued(
      a,
      s.parts[0].id,
      () => a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs))),
      () => dispatcherMove(a, s.parts[0].id, "Arrived", "Ordered", dispatcher.id),
    );
    assert.equal(answer.result.status, "success", JSON.stringify(answer));
    assert.equal(moved, false);
    assert.equal(await statusOf(a.db, s.parts[0].id), "Delivered to Repair Shop directly");
    await assertConsistent(a.db);
  },
  POOL,
);

serverAppTest(
  "parts_drop_off: a dispatcher queued before the submission wins; the submission reads the new status",
  async (a) => {
    const s = await flowSetup(a, { count: 1, status: "Arrived", stage: "direct_dropoff" });
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    const [moved, answer] = await queued(
      a,
      s.parts[0].id,
      () => dispatcherMove(a, s.parts[0].id, "Arrived", "Ordered", dispatcher.id),
      () => a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs))),
    );
    assert.equal(moved, true);
    assert.equal(answer.result.text, `${s.parts[0].part_no} is no longer available for delivery.`);
    assert.equal((await a.db.selectFrom("parts_movements").select("id").execute()).length, 0);
    await assertConsistent(a.db);
  },
  POOL,
);

serverTest(
  "parts_drop_off: a part moved while the optimistic write waits for it: nothing written, the locked path answers",
  async (t) => {
    const { db, counter } = countingDb(t.db);
    const a = await buildTestApp({ ...t, db });
    try {
      const s = await flowSetup(a, { count: 3, status: "Arrived", stage: "direct_dropoff" });
      const dispatcher = await makeUser(t.db, { role: "dispatcher" });
      const last = s.parts[2];
      // The dispatcher's move of the last part is under way (its row locked, not committed) when the driver
      // submits: the read without locks still sees the part at HQ, so the write statement runs and waits
      // for that row; the move commits, the write's guard counts two parts of three and writes nothing.
      const answer = await whileHolding(t.db, async (trx) => {
        await trx.updateTable("parts_orders").set({ status: "Ordered" }).where("id", "=", last.id).execute();
        await trx.insertInto("part_status_history").values({
          part_id: last.id,
          from_status: "Arrived",
          to_status: "Ordered",
          changed_at: a.clock.now(),
          changed_by: dispatcher.id,
          via: "dashboard",
          reason: "race test",
        }).execute();
      }, async (release) => {
        counter.count = 0;
        const pending = a.call(
          dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)),
        );
        await lockWaiters(t.db, 1);
        release();
        return await pending;
      });
      assert.equal(answer.result.text, `${last.part_no} is no longer available for delivery.`);
      // read + write (stopped), then the locked path: BEGIN, read, the refusal's re-read, ROLLBACK.
      assert.equal(counter.count, 6);
      assert.equal((await t.db.selectFrom("parts_movements").select("id").execute()).length, 0);
      assert.deepEqual(await Promise.all(s.parts.map((p) => statusOf(t.db, p.id))), [
        "Arrived",
        "Arrived",
        "Ordered",
      ]);
      await assertConsistent(t.db);
    } finally {
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  },
);

serverAppTest(
  "race: two drivers collecting different parts of one claim at once open one return trip",
  async (a) => {
    for (let round = 0; round < 5; round++) {
      const s = await flowSetup(a, {
        count: 2,
        status: "Pending Repair Shop Pick-Up",
        stage: "reverse_pickup",
      });
      const other = await makeUser(a.db, { role: "driver" });
      const otherImage = await stageFor(a, [s.parts[1]], "reverse_pickup", other.id);
      const answers = await Promise.all([
        a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed([s.pairs[0]]))),
        a.call(
          pickUpPayload(
            other.email,
            s.claim.registration,
            confirmed([{ part: s.parts[1].id, image: otherImage[0] }]),
          ),
        ),
      ]);
      assert.deepEqual(answers.map((x) => x.result.status).sort(), ["failure", "success"]);
      assert.equal(
        answers.find((x) => x.result.status === "failure")!.result.text,
        "Parts of this claim are already on a return trip to HQ. Drop them off at HQ before collecting more.",
      );
      const trips = await a.db.selectFrom("parts_movements").select("id").where("claim_id", "=", s.claim.id)
        .execute();
      assert.equal(trips.length, 1);
    }
    await assertConsistent(a.db);
  },
  { poolSize: 10 },
);

// The submission's one read statement takes its snapshot before it waits for its locks
// (lib/movements/submission.ts): a submission queued behind another must still answer from what that one
// committed. These queue the second behind the first deterministically.

serverAppTest(
  "parts_pick_up_reverse: a retry queued behind its original answers the original's success (D16)",
  async (a) => {
    const s = await flowSetup(a, {
      count: 3,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
    });
    const payload = pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs));
    const [one, two] = await queued(a, s.claim.id, () => a.call(payload), () => a.call(payload), "claims");
    assert.equal(one.result.status, "success", JSON.stringify(one));
    assert.deepEqual(two, one);
    assert.deepEqual(await movementCounts(a), { movements: 1, deliver_parts: 3 });
    await assertConsistent(a.db);
  },
  POOL,
);

serverAppTest(
  "parts_pick_up_reverse: a pickup of other parts queued behind one that opens a trip is refused",
  async (a) => {
    const s = await flowSetup(a, {
      count: 2,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
    });
    const other = await makeUser(a.db, { role: "driver" });
    const [otherImage] = await stageFor(a, [s.parts[1]], "reverse_pickup", other.id);
    const [one, two] = await queued(
      a,
      s.claim.id,
      () => a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed([s.pairs[0]]))),
      () =>
        a.call(
          pickUpPayload(
            other.email,
            s.claim.registration,
            confirmed([{ part: s.parts[1].id, image: otherImage }]),
          ),
        ),
      "claims",
    );
    assert.equal(one.result.status, "success", JSON.stringify(one));
    assert.equal(
      two.result.text,
      "Parts of this claim are already on a return trip to HQ. Drop them off at HQ before collecting more.",
    );
    assert.deepEqual(await movementCounts(a), { movements: 1, deliver_parts: 1 });
    assert.equal(await statusOf(a.db, s.parts[1].id), "Pending Repair Shop Pick-Up");
    await assertConsistent(a.db);
  },
  POOL,
);

serverAppTest(
  "parts_drop_off_reverse: a retry of the completing drop-off queued behind it answers its success (D16)",
  async (a) => {
    const s = await flowSetup(a, {
      count: 3,
      status: "Pending Repair Shop Pick-Up",
      stage: "reverse_pickup",
    });
    const leg1 = await a.call(pickUpPayload(s.user.email, s.claim.registration, confirmed(s.pairs)));
    const tripId = leg1.result.data!.parts_movement_id as number;
    const images = await stageFor(a, s.parts, "reverse_dropoff", s.user.id);
    const payload = dropOffReversePayload(
      s.user.email,
      s.claim.registration,
      tripId,
      confirmed(s.parts.map((p, i) => ({ part: p.id, image: images[i] }))),
    );
    const [one, two] = await queued(
      a,
      tripId,
      () => a.call(payload),
      () => a.call(payload),
      "parts_movements",
    );
    assert.equal(one.result.status, "success", JSON.stringify(one));
    assert.equal(one.result.data!.movement_status, "Parts Dropped off");
    assert.deepEqual(two, one);
    assert.equal(
      (await a.db.selectFrom("deliver_parts").select("id").where("delivery", "=", true).execute()).length,
      3,
    );
    await assertConsistent(a.db);
  },
  POOL,
);

serverAppTest(
  "parts_drop_off: a retry queued behind its original answers the original's success (D16)",
  async (a) => {
    const s = await flowSetup(a, { count: 4, status: "Arrived", stage: "direct_dropoff" });
    const payload = dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs));
    const [one, two] = await queued(a, s.parts[0].id, () => a.call(payload), () => a.call(payload));
    assert.equal(one.result.status, "success", JSON.stringify(one));
    assert.deepEqual(two, one);
    assert.deepEqual(await movementCounts(a), { movements: 1, deliver_parts: 4 });
    await assertConsistent(a.db);
  },
  POOL,
);
