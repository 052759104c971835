/**
 * The trends' summaries (docs/trends.md "At scale", migration 20261226T0900_trend_summaries): what the
 * triggers keep equals a count from scratch after inserts, a leg-2 update, a correction and a delete, on
 * both databases; the days follow the depot's zone and a zone change counts them again; a return cycle keeps
 * the shop the part came back from. On the server: concurrent writers on one summary row, and writers racing
 * a zone change, leave exactly the count from scratch.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { countTrendDaysIn, recountReturnCycles } from "@/db/queries/trends.ts";
import type { PartStatus } from "@/db/schema.ts";
import { dbTest, serverTest } from "@/testkit/db.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/testkit/factories.ts";

const SYDNEY = "Australia/Sydney";

/** The day summary as it stands, zero rows left out (a movement taken back leaves its row at 0). */
async function daysNow(db: Db) {
  return (await sql<
    { row: string }
  >`select concat_ws(' ', day, stage, driver_id, shop_id, movements, parts) as row
    from trend_days where movements <> 0 or parts <> 0 order by 1`.execute(db)).rows.map((r) => r.row);
}

/** Asserts the summary the triggers kept is what counting every movement again in `zone` gives. */
async function assertDaysAsCounted(db: Db, zone: string) {
  const kept = await daysNow(db);
  await countTrendDaysIn(db, zone, true);
  assert.deepEqual(kept, await daysNow(db));
}

async function cyclesNow(db: Db) {
  return (await sql<{ row: string }>`select concat_ws(' ', history_id, shop_id, returned_at, at_shop_days,
    back_days, total_days) as row from return_cycles order by history_id`.execute(db)).rows.map((r) => r.row);
}

async function setting(db: Db) {
  const driver = await makeUser(db, { role: "driver" });
  const other = await makeUser(db, { role: "driver" });
  const hq = (await makeHq(db)).id;
  const shop = await makeRepairer(db, "Alpha Panels");
  const { claim, parts } = await makeClaim(db, {
    management: shop.id,
    parts: [{ status: "Returned to HQ" }],
  });
  return { driver: driver.id, other: other.id, hq, shop: shop.id, claim: claim.id, part: parts[0].id };
}

type Setting = Awaited<ReturnType<typeof setting>>;

const direct = (s: Setting, driver: number, at: string, parts = 1) => ({
  claim_id: s.claim,
  movement_type: "direct" as const,
  movement_status: "Parts Dropped off" as const,
  repairer_id: s.shop,
  picked_up_by: driver,
  dropped_off_by: driver,
  pick_up_at: at,
  dropped_off_at: at,
  part_count: parts,
});

const collection = (s: Setting, driver: number, at: string, parts = 1) => ({
  claim_id: s.claim,
  movement_type: "reverse" as const,
  movement_status: "Parts Picked Up" as const,
  location_type: "HQ" as const,
  hq_location_id: s.hq,
  picked_up_by: driver,
  pick_up_at: at,
  part_count: parts,
});

dbTest("trend days: kept by the writers equal to a count from scratch, in the depot's days", async (t) => {
  const s = await setting(t.db);
  // Before the service first counted them there is no zone: the triggers count nothing yet.
  await t.db.insertInto("parts_movements").values(direct(s, s.driver, "2026-10-03T13:30:00Z")).execute();
  assert.deepEqual(await daysNow(t.db), []);
  await countTrendDaysIn(t.db, SYDNEY);
  // 13:30Z on 3 October is 23:30 in Sydney (AEST), 14:30Z is 00:30 on the 4th, the day summer time starts.
  assert.deepEqual(await daysNow(t.db), [`2026-10-03 direct_dropoff ${s.driver} ${s.shop} 1 1`]);

  await t.db.insertInto("parts_movements").values(direct(s, s.driver, "2026-10-03T14:30:00Z", 3)).execute();
  const trip = await t.db.insertInto("parts_movements").values(
    collection(s, s.other, "2026-10-04T05:00:00Z", 2),
  )
    .returning("id").executeTakeFirstOrThrow();
  // Leg 2: the trip reaches HQ after midnight, a day later at the depot.
  await t.db.updateTable("parts_movements").where("id", "=", trip.id).set({
    movement_status: "Parts Dropped off",
    dropped_off_by: s.other,
    dropped_off_at: "2026-10-04T13:30:00Z",
  }).execute();
  assert.deepEqual(await daysNow(t.db), [
    `2026-10-03 direct_dropoff ${s.driver} ${s.shop} 1 1`,
    `2026-10-04 direct_dropoff ${s.driver} ${s.shop} 1 3`,
    `2026-10-04 reverse_pickup ${s.other} ${s.shop} 1 2`,
    `2026-10-05 reverse_dropoff ${s.other} 0 1 2`,
  ]);
  // An update that changes nothing counted, a correction of the driver, and a delete.
  await t.db.updateTable("parts_movements").where("id", "=", trip.id).set({
    movement_status: "Parts Dropped off",
  })
    .execute();
  await t.db.updateTable("parts_movements").where("id", "=", trip.id).set({ dropped_off_by: s.driver })
    .execute();
  await t.db.deleteFrom("parts_movements").where("dropped_off_at", "=", new Date("2026-10-03T13:30:00Z"))
    .execute();
  assert.deepEqual(await daysNow(t.db), [
    `2026-10-04 direct_dropoff ${s.driver} ${s.shop} 1 3`,
    `2026-10-04 reverse_pickup ${s.other} ${s.shop} 1 2`,
    `2026-10-05 reverse_dropoff ${s.driver} 0 1 2`,
  ]);
  await assertDaysAsCounted(t.db, SYDNEY);

  // The depot in another zone: every movement counted again on that zone's days; the same zone again is a no-op.
  await countTrendDaysIn(t.db, "UTC");
  assert.deepEqual(await daysNow(t.db), [
    `2026-10-03 direct_dropoff ${s.driver} ${s.shop} 1 3`,
    `2026-10-04 reverse_dropoff ${s.driver} 0 1 2`,
    `2026-10-04 reverse_pickup ${s.other} ${s.shop} 1 2`,
  ]);
  await t.db.updateTable("trend_days").set({ movements: 99 }).where("stage", "=", "reverse_pickup").execute();
  await countTrendDaysIn(t.db, "UTC");
  assert.ok((await daysNow(t.db)).some((r) => r.endsWith(" 99 2")), "the same zone is not counted again");
});

async function history(db: Db, part: number, steps: [PartStatus, string][]) {
  for (const [to, at] of steps) {
    await db.insertInto("part_status_history").values({
      part_id: part,
      from_status: null,
      to_status: to,
      changed_at: at,
      via: "dashboard",
    }).execute();
  }
}

dbTest(
  "return cycles: one per return, from its flag and the delivery before, at the shop it came from",
  async (t) => {
    const s = await setting(t.db);
    await history(t.db, s.part, [
      ["Delivered to Repair Shop directly", "2026-11-01T00:00:00Z"],
      ["Delivered to Repair Shop directly", "2026-11-02T00:00:00Z"],
      ["Pending Repair Shop Pick-Up", "2026-11-05T00:00:00Z"],
      ["Returned to HQ", "2026-11-06T12:00:00Z"],
    ]);
    const [returned] = await t.db.selectFrom("part_status_history").select("id")
      .where("to_status", "=", "Returned to HQ").execute();
    const cycles = await t.db.selectFrom("return_cycles").selectAll().execute();
    assert.deepEqual(
      cycles.map((c) => [c.history_id, c.shop_id, c.at_shop_days, c.back_days, c.total_days]),
      [[returned.id, s.shop, 3, 1.5, 4.5]],
    );
    // The claim moves to another shop: the cycle stays with the shop the part came back from.
    const beta = await makeRepairer(t.db, "Beta Smash");
    await t.db.updateTable("claim_management").set({ repairer_id: beta.id }).where("claim_id", "=", s.claim)
      .execute();
    // A return set by hand without a flag is no cycle.
    await history(t.db, s.part, [["Returned to HQ", "2026-11-07T00:00:00Z"]]);
    const kept = await cyclesNow(t.db);
    assert.equal(kept.length, 2, "the second return finds the same flag: a part returned twice counts twice");
    await recountReturnCycles(t.db);
    // Counted from scratch the shop is the claim's now (the history does not say where it was): only the
    // kept rows know; the durations and the returns are the same.
    assert.deepEqual(
      (await cyclesNow(t.db)).map((r) => r.split(" ").filter((_, i) => i !== 1).join(" ")),
      kept.map((r) => r.split(" ").filter((_, i) => i !== 1).join(" ")),
    );
  },
);

const WRITERS = 12;

serverTest("trend days: concurrent writers on one summary row and a zone change racing them", async (t) => {
  const s = await setting(t.db);
  await countTrendDaysIn(t.db, SYDNEY);
  // Every writer adds to the same (day, kind, driver, shop), half of them in transactions that also
  // complete a trip (two keys), while the zone changes twice.
  const write = async (i: number) => {
    await t.db.transaction().execute(async (tx) => {
      await tx.insertInto("parts_movements").values(direct(s, s.driver, "2026-10-04T01:00:00Z", 1 + (i % 3)))
        .execute();
      if (i % 2) {
        const trip = await tx.insertInto("parts_movements")
          .values(collection(s, s.driver, "2026-10-04T02:00:00Z")).returning("id").executeTakeFirstOrThrow();
        await tx.updateTable("parts_movements").where("id", "=", trip.id).set({
          movement_status: "Parts Dropped off",
          dropped_off_by: s.driver,
          dropped_off_at: "2026-10-04T03:00:00Z",
        }).execute();
      }
    });
  };
  await Promise.all([
    ...Array.from({ length: WRITERS }, (_, i) => write(i)),
    countTrendDaysIn(t.db, "UTC"),
    countTrendDaysIn(t.db, SYDNEY),
  ]);
  const zone = (await t.db.selectFrom("trend_zone").select("time_zone").executeTakeFirstOrThrow()).time_zone;
  const movements = (await daysNow(t.db)).reduce((n, r) => n + Number(r.split(" ")[4]), 0);
  assert.equal(
    movements,
    WRITERS + WRITERS,
    "every step counted once: 12 deliveries, 6 collections, 6 returns",
  );
  await assertDaysAsCounted(t.db, zone);
}, { poolSize: WRITERS + 4 });
