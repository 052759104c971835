/**
 * Dashboard-scale bench data (docs/dashboard-scale.md "The generated depot"): claims, three parts each, and
 * a depot's work on them before the run's clock, CLAIMS_PER_DAY claims opened a day (at least twelve weeks
 * of them): each part ordered, marked arrived at HQ, delivered to the claim's repair shop on a direct movement of its own, and most flagged for return and
 * brought back on a return trip of their own, about five movements a claim (5 000 000 at 1 000 000 claims,
 * the scale the dashboard is held to), with the history rows, Deliver_Parts and announcements those steps
 * write. Written set-based by the database itself (one statement per table for each slice of claims,
 * explicit ids, no per-row lookups, indexes built after), so 1 000 000 claims load in minutes on the server.
 *
 * Every figure is a function of the claim's number `g`, the part's id and the anchor `now` (the run's clock
 * when the fill starts, or the `now` given): a part's steps are at fixed offsets from its claim's opening, and
 * its status is the last step at or before `now`, so two runs hold the same data relative to their clocks.
 * Claim numbers and registrations follow bench/generate.ts (`BCH-<g>`, parts `BP-<g>-<k>`, six md5
 * characters), so its `sampleRegos` works on this data too; BENCH_DRIVER is the first of the drivers. Expects
 * the bench's scratch database (tables empty).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { recountOverviewCounts } from "@/db/queries/overview.ts";
import { countTrendDaysIn, recountReturnCycles } from "@/db/queries/trends.ts";
import { BENCH_DRIVER } from "@/bench/generate.ts";

export const BENCH_DISPATCHER = "bench-dispatcher@depot.example";

/** Photos the movements share (a Deliver_Parts must name one; the bench never reads their bytes). */
const PHOTOS = 1000;
const REPAIRERS = 20;
/** The drivers: BENCH_DRIVER ("Bench Driver") and `bench-driver-<n>@depot.example` ("Bench Driver <n>"). */
export const SCALE_DRIVERS = 12;
/**
 * A large multi-shop network opens this many claims a day: `--claims` claims span claims / CLAIMS_PER_DAY
 * days (1 000 000: about 2.7 years), so a range of weeks (the trends page's 8) holds a few weeks' work
 * however deep the history, as at a real depot.
 */
export const CLAIMS_PER_DAY = 1000;
/** The fewest days the claims span: a small fill still holds every status and age (held over 30 days…). */
export const MIN_SCALE_DAYS = 84;
/** The claims are opened evenly over these days before `now`, claim 1 the newest. */
export function scaleDays(claims: number): number {
  return Math.max(MIN_SCALE_DAYS, claims / CLAIMS_PER_DAY);
}
/** One claim in this many has no repair shop: its parts wait at HQ (`Arrived`), never delivered. */
const SHOPLESS_EVERY = 500;
/** Parts of claims older than this all went back; of newer ones, RETURN_SHARE are flagged for return. */
const ALL_RETURNED_DAYS = 60;
const RETURN_SHARE = 0.8;
/**
 * Of the parts whose return trip would be under way at `now`, the share left on the truck (the rest are still
 * waiting to be picked up): a few trips on the road at 1 000 claims a day, some of them for more than a day
 * (below).
 */
const ON_ROAD_SHARE = 0.008;

/** The tables the fill writes in bulk. */
const FILLED = [
  "claims",
  "claim_management",
  "parts_orders",
  "parts_movements",
  "deliver_parts",
  "part_status_history",
  "announcements",
];

export interface FillOptions {
  log?: (line: string) => void;
  /** The anchor; the run's clock at the start of the fill by default. */
  now?: Date;
  /** ON_ROAD_SHARE by default; a test at a few hundred claims keeps every trip under way (1). */
  onRoadShare?: number;
  /** The depot's zone the trends' days are counted in (a service started in another counts them again). */
  zone?: string;
}

/** One statement per table for each slice; claims in slices so no statement holds millions of rows. */
export async function fillScale(db: Db, claims: number, opts: FillOptions | ((line: string) => void) = {}) {
  const { log = () => {}, now = new Date(), onRoadShare = ON_ROAD_SHARE, zone = "UTC" } =
    typeof opts === "function" ? { log: opts } : opts;
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
  await sql`insert into users (email, name, role)
    select 'bench-driver-' || g || '@depot.example', 'Bench Driver ' || g, 'driver'
    from generate_series(2, ${SCALE_DRIVERS}) g on conflict do nothing`.execute(db);
  await sql`insert into photos (storage_key, content_type, byte_size, width, height)
    select md5('p' || g) || md5('q' || g), 'image/jpeg', 1000, 10, 10 from generate_series(1, ${PHOTOS}) g
    on conflict do nothing`.execute(db);

  // Every row is written consistent (the place, has_shop, the references: checkScale proves it), so a
  // superuser's fill skips the triggers (session_replication_role = replica, as a restore does): the
  // foreign keys' per-row lookups were a third of the fill's time.
  const superuser = (await sql<{ on: string }>`select current_setting('is_superuser') as on`.execute(db))
    .rows[0].on === "on";
  // The tables' own indexes (not those of a key or unique constraint) are dropped for the fill and built
  // again after it, as a restore does: one sorted build each instead of millions of single inserts, the
  // search box's trigram indexes and the outbox's random message ids the dearest.
  const indexes = await sql<{ name: string; ddl: string }>`select i.indexname as name, i.indexdef as ddl
    from pg_indexes i where i.schemaname = current_schema() and i.tablename in (${sql.join(FILLED)})
      and not exists (select from pg_constraint c where c.conname = i.indexname)
    order by i.indexname`.execute(db);
  for (const i of indexes.rows) await sql`drop index ${sql.id(i.name)}`.execute(db);
  const slice = 100_000;
  for (let from = 1; from <= claims; from += slice) {
    const to = Math.min(claims, from + slice - 1);
    await step(
      `claims ${from}–${to}`,
      () => fillSlice(db, { from, to, claims, now, onRoadShare, superuser }),
    );
  }
  await step(`${indexes.rows.length} indexes`, async () => {
    for (const i of indexes.rows) await sql.raw(i.ddl).execute(db);
  });
  // The overview's counters and the trends' summaries are kept by triggers the superuser's fill skipped:
  // counted once, as after a restore.
  if (superuser) {
    await step("overview counters", () => recountOverviewCounts(db));
    await step("return cycles", () => recountReturnCycles(db));
    await step("trend days", () => countTrendDaysIn(db, zone, true));
  }
  for (
    const table of [
      "claims",
      "parts_orders",
      "parts_movements",
      "deliver_parts",
      "announcements",
      "part_status_history",
    ]
  ) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${
      sql.table(table)
    }))`.execute(db);
  }
  // Vacuumed as well as analysed: the visibility map a running depot's autovacuum keeps, without which every
  // index-only scan (the trends page's, docs/trends.md "At scale") would visit the heap for each row.
  await step("vacuum analyze", async () => {
    for (const table of FILLED) await sql`vacuum analyze ${sql.table(table)}`.execute(db);
  });
  log(`  generated ${claims} claims in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** A uniform number in [0, 1) of the part `id` (an integer expression) and a salt: repeatable, no state. */
const frac = (id: RawBuilder<unknown>, salt: number) =>
  sql`((hashint8extended(${id}::bigint, ${salt}::bigint) & 1048575) / 1048576.0)::float8`;
/** `days` (a float expression) as an interval. */
const days = (n: RawBuilder<unknown>) => sql`make_interval(secs => 86400 * (${n}))`;

interface Slice {
  from: number;
  to: number;
  claims: number;
  now: Date;
  onRoadShare: number;
  superuser: boolean;
}

/**
 * Claims `from`..`to` with everything hanging off them. Ids are derived from `g` and the part: claim g, its
 * parts p = 3g-2..3g, the part's direct movement 2p-1 and return trip 2p (each with its one Deliver_Parts and
 * announcement of the same id), its history rows 6p-5..6p (one per step, in step order).
 */
async function fillSlice(db: Db, s: Slice) {
  await db.transaction().execute(async (tx) => {
    await sql`set local synchronous_commit = off`.execute(tx);
    if (s.superuser) await sql`set local session_replication_role = replica`.execute(tx);
    const now = sql`${s.now.toISOString()}::timestamptz`;
    const g = sql`generate_series(${s.from}::int, ${s.to}::int) g`;
    const id = sql.ref("id");
    // Claim g was opened (g - 0.5) / claims of scaleDays(claims) before now: newer claims have lower numbers,
    // as in a live depot. Written with has_shop as its management record below will have it: the trigger on
    // claim_management then finds nothing to change, where 1M updates of claims would double the table.
    await sql`insert into claims (id, claim_number, registration, created_at, has_shop) overriding system value
      select g, 'BCH-' || g, upper(substr(md5(g::text), 1, 6)),
        date_trunc('second', ${now} - ${days(sql`${scaleDays(s.claims)}::float8 * (g - 0.5) / ${s.claims}`)}),
        g % ${SHOPLESS_EVERY} <> 7
      from ${g}`.execute(tx);
    // Each part's timeline (to the minute): ordered when the claim opened, at HQ 0.5–6 days later, delivered
    // 0.1–2.5 days after that, flagged for return 1–15 days after delivery (a quarter by the shop's "Ready for
    // collection"), picked up up to 10 days later, back at HQ 0.5–4.5 hours later (1 trip in 50: 1–2.5
    // days). A step after `now` has not happened (null), nor has a delivery without a shop; a return trip
    // under way at `now` stays on the road for ON_ROAD_SHARE of them, the others are still waiting.
    // A long trip (1–2.5 days) under way is kept on the road 12 times as often: a few trucks past 24 h.
    const onRoad = sql`${frac(id, 7)} < ${s.onRoadShare}::float8 * case when ${
      frac(id, 5)
    } < 0.02 then 12 else 1 end`;
    await sql`create temp table scale_parts on commit drop as
      select id, g, k, shop, opened, a as arrived,
        case when shop is not null and d <= ${now} then d end as delivered,
        case when back and f <= ${now} then f end as flagged, by_shop,
        case when back and p <= ${now} and (r <= ${now} or ${onRoad}) then p end as picked,
        case when back and r <= ${now} then r end as returned,
        1 + (hashint8extended(id, 8) & 1048575) % ${SCALE_DRIVERS} as dd,
        1 + (hashint8extended(id, 9) & 1048575) % ${SCALE_DRIVERS} as dr
      from (select id, g, k, shop, opened, by_shop,
          case when a <= ${now} then a end as a, d, f, p, r,
          shop is not null and (opened < ${now} - ${days(sql`${ALL_RETURNED_DAYS}`)}
            or ${frac(id, 6)} < ${RETURN_SHARE}) as back
        from (select id, g, k, shop, opened, by_shop, a, d, f, p,
            date_trunc('minute', p + make_interval(secs => case when ${frac(id, 5)} < 0.02
              then 86400 * (1 + 1.5 * ${frac(id, 15)}) else 3600 * (0.5 + 4 * ${frac(id, 15)}) end)) as r
          from (select id, g, k, shop, opened, by_shop, a, d, f,
              date_trunc('minute', f + ${days(sql`0.02 + 10 * ${frac(id, 4)}`)}) as p
            from (select id, g, k, shop, opened, a, d, ${frac(id, 10)} < 0.25 as by_shop,
                date_trunc('minute', d + ${days(sql`1 + 14 * ${frac(id, 3)}`)}) as f
              from (select id, g, k, shop, opened, a,
                  date_trunc('minute', a + ${days(sql`0.1 + 2.4 * ${frac(id, 2)}`)}) as d
                from (select id, g, k, shop, opened,
                    date_trunc('minute', opened + ${days(sql`0.5 + 5.5 * ${frac(id, 1)}`)}) as a
                  from (select 3 * g - 3 + k as id, g, k, c.created_at as opened,
                      case when g % ${SHOPLESS_EVERY} <> 7 then r0 + g % ${REPAIRERS} end as shop
                    from ${g} join claims c on c.id = g, generate_series(1, 3) k,
                      (select min(id) as r0 from repairers where name like 'Bench Repairer %') r
                  ) t0) t1) t2) t3) t4) t5) t6`.execute(tx);
    // Statuses: the last step that happened. updated_at: that step's time.
    await sql`insert into parts_orders (id, claim_id, part_no, description, qty_ordered, status, updated_at)
      overriding system value
      select id, g, 'BP-' || g || '-' || k, 'Bench part ' || k, 1 + k % 2,
        case when returned is not null then 'Returned to HQ' when picked is not null then 'Picked Up from Repair Shop'
          when flagged is not null then 'Pending Repair Shop Pick-Up'
          when delivered is not null then 'Delivered to Repair Shop directly' when arrived is not null then 'Arrived'
          else 'Ordered' end,
        coalesce(returned, picked, flagged, delivered, arrived, opened)
      from scale_parts`.execute(tx);
    const ids = sql`(select array(select id from users where email = ${BENCH_DRIVER}
        or email like 'bench-driver-%@depot.example' order by id) as drivers,
      (select id from hq_locations where name = 'Bench HQ') as hq,
      (select min(id) from photos) as ph0) x`;
    // The part's direct movement (2p-1) and return trip (2p), one part each; the place is written here, so
    // the place trigger reads nothing.
    await sql`insert into parts_movements (id, claim_id, movement_type, movement_status, picked_up_by,
        dropped_off_by, pick_up_at, dropped_off_at, repairer_id, location_type, hq_location_id, part_count,
        place_repairer_id, created_at) overriding system value
      select 2 * id - 1, g, 'direct', 'Parts Dropped off', x.drivers[dd], x.drivers[dd], delivered, delivered,
        shop, null, null, 1, shop, delivered
      from scale_parts, ${ids} where delivered is not null
      union all
      select 2 * id, g, 'reverse', case when returned is null then 'Parts Picked Up' else 'Parts Dropped off' end,
        x.drivers[dr], case when returned is not null then x.drivers[dr] end, picked, returned, null, 'HQ', x.hq, 1,
        shop, picked
      from scale_parts, ${ids} where picked is not null`.execute(tx);
    // The claim's shop, and its latest return trip (the pickup links it, as the submission does).
    await sql`insert into claim_management (claim_id, repairer_id, parts_movement_id)
      select g, min(shop), max(case when picked is not null then 2 * id end) from scale_parts group by g`
      .execute(tx);
    await sql`insert into deliver_parts (id, movement_id, part_id, pickup, delivery, qty_ordered,
        pickup_photo_id, delivery_photo_id) overriding system value
      select 2 * id - 1, 2 * id - 1, id, true, true, 1 + k % 2, x.ph0 + (2 * id) % ${PHOTOS},
        x.ph0 + (2 * id) % ${PHOTOS}
      from scale_parts, ${ids} where delivered is not null
      union all
      select 2 * id, 2 * id, id, true, returned is not null, 1 + k % 2, x.ph0 + (2 * id + 1) % ${PHOTOS},
        case when returned is not null then x.ph0 + (2 * id + 2) % ${PHOTOS} end
      from scale_parts, ${ids} where picked is not null`.execute(tx);
    // One row per step that happened: imported (Ordered), marked arrived on the dashboard, delivered (the
    // direct movement), flagged on the dashboard or by the shop, picked up and returned (the trip).
    await sql`insert into part_status_history (id, part_id, from_status, to_status, changed_at, changed_by, via,
        movement_id, changed_by_repairer_id) overriding system value
      select 6 * id - 6 + s.n, id, s.from_status, s.to_status, s.t, s.actor, s.via, s.movement, s.shop_actor
      from scale_parts, (select id as dispatcher from users where email = ${BENCH_DISPATCHER}) u, ${ids},
        lateral (values
          (1, null, 'Ordered', opened, null::int, 'import', null::int, null::int),
          (2, 'Ordered', 'Arrived', arrived, u.dispatcher, 'dashboard', null, null),
          (3, 'Arrived', 'Delivered to Repair Shop directly', delivered, x.drivers[dd], 'movement', 2 * id - 1, null),
          (4, 'Delivered to Repair Shop directly', 'Pending Repair Shop Pick-Up', flagged,
            case when not by_shop then u.dispatcher end, case when by_shop then 'shop' else 'dashboard' end, null,
            case when by_shop then shop end),
          (5, 'Pending Repair Shop Pick-Up', 'Picked Up from Repair Shop', picked, x.drivers[dr], 'movement',
            2 * id, null),
          (6, 'Picked Up from Repair Shop', 'Returned to HQ', returned, x.drivers[dr], 'movement', 2 * id, null)
        ) as s(n, from_status, to_status, t, actor, via, movement, shop_actor)
      where s.t is not null`.execute(tx);
    // One announcement (one channel) per movement, about its latest leg: 1 in 1000 failed, 1 in 500 waiting,
    // 1 in 10 feed only, the rest delivered.
    await sql`insert into announcements (id, message_id, movement_id, title, channel, body, state,
        next_attempt_at, created_at, delivered_at, last_error) overriding system value
      select m.id, gen_random_uuid(), m.id, m.title, 'parts_movement',
        jsonb_build_object('title', m.title, 'rego', upper(substr(md5(m.g::text), 1, 6)), 'place', m.place,
          'parts', jsonb_build_array(jsonb_build_object('part_no', 'BP-' || m.g || '-' || m.k,
            'description', 'Bench part ' || m.k)),
          'driver', case when m.driver = 1 then 'Bench Driver' else 'Bench Driver ' || m.driver end,
          'at', to_char(m.t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
          'link', 'http://localhost/hq/movements/' || m.id, 'movement_id', m.id),
        case when m.x < 1 then 'failed' when m.x < 3 then 'pending' when m.x < 103 then 'feed_only'
          else 'delivered' end,
        m.t + interval '1 minute', m.t, case when m.x >= 103 then m.t + interval '1 minute' end,
        case when m.x < 1 then 'bench: chat answered 500' end
      from (select 2 * id - 1 as id, g, k, 'Parts Delivered' as title,
          'Bench Repairer ' || (1 + g % ${REPAIRERS}) as place, dd as driver, delivered as t,
          (hashint8extended(2 * id - 1, 11) & 1048575) % 1000 as x
        from scale_parts where delivered is not null
        union all
        select 2 * id, g, k, case when returned is null then 'Parts Picked Up From Repair Shop'
            else 'Parts Returned to HQ' end,
          case when returned is null then 'Bench Repairer ' || (1 + g % ${REPAIRERS}) else 'Bench HQ' end,
          dr, coalesce(returned, picked) as t, (hashint8extended(2 * id, 11) & 1048575) % 1000
        from scale_parts where picked is not null) m`.execute(tx);
  });
}
