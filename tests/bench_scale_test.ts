/**
 * bench/generate_scale.ts (docs/dashboard-scale.md "The generated depot"): at a few hundred claims on both
 * databases, the fill holds what it promises: about five movements a claim, every status, and histories,
 * movements, Deliver_Parts and announcements consistent with each other and with the schema's references
 * (bench/scale_checks.ts, which the fill must pass since it skips the triggers), its indexes built again.
 */
import assert from "node:assert/strict";
import { dbTest } from "@/testkit/db.ts";
import { fillScale, MIN_SCALE_DAYS, SCALE_DRIVERS, scaleDays } from "@/bench/generate_scale.ts";
import { checkScale, scaleFigures } from "@/bench/scale_checks.ts";
import { PART_STATUSES } from "@/db/schema.ts";
import { sql } from "kysely";

const CLAIMS = 500;
/** A fixed anchor: the data is a function of it, so the figures below do not depend on the day. */
const NOW = new Date("2026-11-27T15:30:00Z");

Deno.test("bench scale data: a thousand claims a day, at least twelve weeks", () => {
  assert.equal(scaleDays(500), MIN_SCALE_DAYS);
  assert.equal(scaleDays(100_000), 100);
  assert.equal(scaleDays(1_000_000), 1000, "1M claims: about 2.7 years of history");
});

dbTest(
  "bench scale data: about five movements a claim, every status, consistent histories",
  async ({ db }) => {
    const indexes = async () =>
      (await sql<{ def: string }>`select indexdef as def from pg_indexes where schemaname = current_schema()
        order by indexname`.execute(db)).rows.map((r) => r.def);
    const before = await indexes();
    // Every trip under way at NOW stays on the road, so a few hundred claims still have one.
    await fillScale(db, CLAIMS, { now: NOW, onRoadShare: 1 });
    assert.deepEqual(await indexes(), before, "the indexes dropped for the fill are all built again");

    const problems = Object.entries(await checkScale(db, NOW)).filter(([, n]) => n !== 0);
    assert.deepEqual(problems, [], "every consistency check holds");

    const f = await scaleFigures(db, NOW);
    assert.equal(f.rows.claims, CLAIMS);
    assert.equal(f.rows.parts_orders, 3 * CLAIMS);
    const perClaim = f.rows.parts_movements / CLAIMS;
    assert.ok(perClaim > 4.5 && perClaim < 5.5, `about five movements a claim, got ${perClaim}`);
    assert.equal(f.rows.deliver_parts, f.rows.parts_movements, "one part a movement");
    assert.equal(f.rows.announcements, f.rows.parts_movements, "one announcement a movement");
    assert.deepEqual(Object.keys(f.statuses).sort(), [...PART_STATUSES].sort(), "every status is held");
    assert.ok(f.openTrips > 0, "a trip is on the road");

    // Spread over the weeks before the anchor, the movements by twelve drivers, some parts held at shops for
    // over 30 days, and some returned on the anchor's day.
    const spread = await sql<
      { oldest: Date; newest: Date; drivers: string | number; held: string | number; today: string | number }
    >`select
      (select min(created_at) from claims) as oldest, (select max(changed_at) from part_status_history) as newest,
      (select count(distinct picked_up_by) from parts_movements) as drivers,
      (select count(*) from parts_orders where status = 'Delivered to Repair Shop directly'
        and updated_at < ${NOW.toISOString()}::timestamptz - interval '30 days') as held,
      (select count(*) from parts_orders where status = 'Returned to HQ'
        and updated_at >= date_trunc('day', ${NOW.toISOString()}::timestamptz at time zone 'UTC') at time zone 'UTC')
        as today`.execute(db);
    const s = spread.rows[0];
    const days = (NOW.getTime() - new Date(s.oldest).getTime()) / 86_400_000;
    const span = scaleDays(CLAIMS);
    assert.equal(span, MIN_SCALE_DAYS, "a small fill spans the fewest days");
    assert.ok(days > span - 1 && days <= span, `claims over ${span} days, got ${days}`);
    assert.ok(new Date(s.newest).getTime() <= NOW.getTime());
    assert.equal(Number(s.drivers), SCALE_DRIVERS);
    assert.ok(Number(s.held) > 0, "parts held at shops over 30 days");
    assert.ok(Number(s.today) > 0, "parts returned today");
  },
);
