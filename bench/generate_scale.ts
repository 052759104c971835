/**
 * Dashboard-scale bench data (docs/performance.md "Dashboard at 1M claims"): claims, three parts each, a movement per claim with its
 * Deliver_Parts, an announcement per movement and a history row per part, written set-based by the
 * database itself (one `generate_series` statement per table, explicit ids), so 1 000 000 claims and
 * 3 000 000 parts load in a few minutes on the server. Every figure is a function of the claim's number
 * `g`, so a run is repeatable: 80 % of claims had a direct delivery, the rest a return trip (one in 10 000
 * still on the road, the open trips page), announcements mostly sent, some failed, waiting or feed only.
 * Claim numbers and registrations follow bench/generate.ts (`BCH-<g>`, six md5 characters), so its
 * `sampleRegos` works on this data too. Expects the bench's scratch database (tables empty).
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { BENCH_DRIVER } from "@/bench/generate.ts";

export const BENCH_DISPATCHER = "bench-dispatcher@depot.example";

/** Photos the movements share (a Deliver_Parts must name one; the bench never reads their bytes). */
const PHOTOS = 1000;
const REPAIRERS = 20;

/** One statement per table; claims in slices so no single statement holds millions of rows in memory. */
export async function fillScale(db: Db, claims: number, log: (line: string) => void = () => {}) {
  const t0 = performance.now();
  const step = async (label: string, run: () => Promise<unknown>) => {
    const t = performance.now();
    await run();
    log(`  ${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  await sql`insert into hq_locations (name) values ('Bench HQ') on conflict do nothing`.execute(db);
  await sql`insert into repairers (name) select 'Bench Repairer ' || g from generate_series(1, ${REPAIRERS}) g
    on conflict do nothing`.execute(db);
  await sql`insert into users (email, name, role) values (${BENCH_DRIVER}, 'Bench Driver', 'driver'),
    (${BENCH_DISPATCHER}, 'Bench Dispatcher', 'dispatcher') on conflict do nothing`.execute(db);
  await sql`insert into photos (storage_key, content_type, byte_size, width, height)
    select md5('p' || g) || md5('q' || g), 'image/jpeg', 1000, 10, 10 from generate_series(1, ${PHOTOS}) g
    on conflict do nothing`.execute(db);

  const slice = 250_000;
  for (let from = 1; from <= claims; from += slice) {
    const to = Math.min(claims, from + slice - 1);
    await step(`claims ${from}–${to}`, () => fillSlice(db, from, to));
  }
  for (const table of ["claims", "parts_orders", "parts_movements", "deliver_parts", "announcements"]) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${
      sql.table(table)
    }))`
      .execute(db);
  }
  await step("analyze", () => sql`analyze`.execute(db));
  log(`  generated ${claims} claims in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/**
 * Claims `from`..`to` with everything hanging off them. Ids are derived from `g` (claim g, its parts
 * 3g-2..3g, movement g, Deliver_Parts 3g-2..3g, announcement g): no lookups, one pass per table.
 */
async function fillSlice(db: Db, from: number, to: number) {
  await db.transaction().execute(async (tx) => {
    await sql`set local synchronous_commit = off`.execute(tx);
    const ids = sql`(select min(id) from repairers where name like 'Bench Repairer %') as r0,
      (select id from users where email = ${BENCH_DRIVER}) as driver,
      (select id from hq_locations where name = 'Bench HQ') as hq,
      (select min(id) from photos) as ph0`;
    const g = sql`generate_series(${from}::int, ${to}::int) g`;
    // Claim g was opened g minutes before now: newer claims have lower numbers, as in a live depot.
    // Every claim gets a shop just below, so it is written with has_shop set: the trigger on
    // claim_management then finds nothing to change, where 1M updates of claims would double the table.
    await sql`insert into claims (id, claim_number, registration, created_at, has_shop) overriding system value
      select g, 'BCH-' || g, upper(substr(md5(g::text), 1, 6)), now() - make_interval(mins => g), true
      from ${g}`.execute(tx);
    await sql`insert into claim_management (claim_id, repairer_id)
      select g, k.r0 + g % ${REPAIRERS} from ${g}, (select ${ids}) k`.execute(tx);
    // Statuses: half delivered, the rest spread over the other five. updated_at: a few minutes after the
    // claim opened, so parts of one claim share their minute (ties for the list's keyset order).
    await sql`insert into parts_orders (id, claim_id, part_no, description, qty_ordered, status, updated_at)
      overriding system value
      select 3 * g - 3 + k, g, 'BP-' || g || '-' || k, 'Bench part ' || k, 1 + k % 2,
        (array['Delivered to Repair Shop directly', 'Delivered to Repair Shop directly',
          'Delivered to Repair Shop directly', 'Delivered to Repair Shop directly',
          'Delivered to Repair Shop directly', 'Arrived', 'Ordered', 'Pending Repair Shop Pick-Up',
          'Picked Up from Repair Shop', 'Returned to HQ'])[1 + (g * 7 + k) % 10],
        date_trunc('minute', now() - make_interval(mins => g) + make_interval(mins => k % 2))
      from ${g}, generate_series(1, 3) k`.execute(tx);
    await sql`insert into part_status_history (part_id, from_status, to_status, changed_at, via)
      select p.id, null, p.status, p.updated_at, 'import' from parts_orders p
      where p.claim_id between ${from} and ${to}`.execute(tx);
    // Movement g: direct for 8 claims in 10; otherwise a return trip, still on the road for 1 in 10 000.
    // Three parts each (its Deliver_Parts below), stored as the movement's part_count.
    await sql`insert into parts_movements (id, claim_id, movement_type, movement_status, picked_up_by,
        dropped_off_by, pick_up_at, dropped_off_at, repairer_id, location_type, hq_location_id, part_count)
      overriding system value
      select g, g, case when g % 10 < 8 then 'direct' else 'reverse' end,
        case when g % 10 >= 8 and g % 10000 = 9 then 'Parts Picked Up' else 'Parts Dropped off' end,
        k.driver, case when g % 10 >= 8 and g % 10000 = 9 then null else k.driver end,
        now() - make_interval(mins => g) + interval '1 hour',
        case when g % 10 < 8 then now() - make_interval(mins => g) + interval '1 hour'
          when g % 10000 = 9 then null else now() - make_interval(mins => g) + interval '3 hours' end,
        case when g % 10 < 8 then k.r0 + g % ${REPAIRERS} end,
        case when g % 10 >= 8 then 'HQ' end, case when g % 10 >= 8 then k.hq end, 3
      from ${g}, (select ${ids}) k`.execute(tx);
    await sql`insert into deliver_parts (id, movement_id, part_id, pickup, delivery, qty_ordered,
        pickup_photo_id, delivery_photo_id) overriding system value
      select 3 * g - 3 + j, g, 3 * g - 3 + j, true, not (g % 10000 = 9 and g % 10 >= 8), 1,
        k.ph0 + (3 * g + j) % ${PHOTOS},
        case when not (g % 10000 = 9 and g % 10 >= 8) then k.ph0 + (3 * g + j + 1) % ${PHOTOS} end
      from ${g}, generate_series(1, 3) j, (select ${ids}) k`.execute(tx);
    // One announcement (one channel) per movement: 1 in 1000 failed, 1 in 500 waiting, 1 in 10 feed only.
    await sql`insert into announcements (id, message_id, movement_id, title, channel, body, state,
        next_attempt_at, created_at, delivered_at, last_error) overriding system value
      select g, gen_random_uuid(), g,
        case when g % 10 < 8 then 'Parts Delivered' else 'Parts Returned to HQ' end,
        'parts_movement',
        jsonb_build_object('title', case when g % 10 < 8 then 'Parts Delivered' else 'Parts Returned to HQ' end,
          'rego', upper(substr(md5(g::text), 1, 6)), 'place', 'Bench Repairer ' || (1 + g % ${REPAIRERS}),
          'parts', jsonb_build_array(jsonb_build_object('part_no', 'BP-' || g || '-1',
            'description', 'Bench part 1')),
          'driver', 'Bench Driver', 'at', to_char(now() - make_interval(mins => g), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
          'link', 'http://localhost/hq/movements/' || g, 'movement_id', g),
        case when g % 1000 = 0 then 'failed' when g % 500 = 1 then 'pending' when g % 10 = 5 then 'feed_only'
          else 'delivered' end,
        now() - make_interval(mins => g) + interval '1 hour', now() - make_interval(mins => g) + interval '1 hour',
        case when g % 1000 <> 0 and g % 500 <> 1 and g % 10 <> 5
          then now() - make_interval(mins => g) + interval '1 hour' end,
        case when g % 1000 = 0 then 'bench: chat answered 500' end
      from ${g}`.execute(tx);
  });
}
