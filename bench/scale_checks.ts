/**
 * What bench/generate_scale.ts promises of its data, as SQL: each check counts the rows that break it (0 is
 * a pass). The generator's fill skips the triggers (foreign keys included) for speed, so the references are
 * checked here too. tests/bench_scale_test.ts runs them on both databases; `scaleFigures` gives a fill's
 * shape (the bench's log, docs/dashboard-scale.md "The generated depot").
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";

/** A rule and the SQL counting its offenders. */
const CHECKS: Record<string, string> = {
  // References (the declared keys and the trigger-checked ones of 20261220T0900_set_based_references).
  "claim_management: claim, shop, trip exist": `select count(*) from claim_management cm
    where not exists (select from claims c where c.id = cm.claim_id)
      or (cm.repairer_id is not null and not exists (select from repairers r where r.id = cm.repairer_id))
      or (cm.parts_movement_id is not null
        and not exists (select from parts_movements m where m.id = cm.parts_movement_id))`,
  "parts_orders: claim exists": `select count(*) from parts_orders p
    where not exists (select from claims c where c.id = p.claim_id)`,
  "parts_movements: claim, drivers, shop, HQ, place exist": `select count(*) from parts_movements m
    where not exists (select from claims c where c.id = m.claim_id)
      or not exists (select from users u where u.id = m.picked_up_by)
      or (m.dropped_off_by is not null and not exists (select from users u where u.id = m.dropped_off_by))
      or (m.repairer_id is not null and not exists (select from repairers r where r.id = m.repairer_id))
      or (m.hq_location_id is not null and not exists (select from hq_locations h where h.id = m.hq_location_id))
      or (m.place_repairer_id is not null
        and not exists (select from repairers r where r.id = m.place_repairer_id))`,
  "deliver_parts: movement, part, photos exist": `select count(*) from deliver_parts d
    where not exists (select from parts_movements m where m.id = d.movement_id)
      or not exists (select from parts_orders p where p.id = d.part_id)
      or not exists (select from photos f where f.id = d.pickup_photo_id)
      or (d.delivery_photo_id is not null and not exists (select from photos f where f.id = d.delivery_photo_id))`,
  "history: part, movement, user, shop exist": `select count(*) from part_status_history h
    where not exists (select from parts_orders p where p.id = h.part_id)
      or (h.movement_id is not null and not exists (select from parts_movements m where m.id = h.movement_id))
      or (h.changed_by is not null and not exists (select from users u where u.id = h.changed_by))
      or (h.changed_by_repairer_id is not null
        and not exists (select from repairers r where r.id = h.changed_by_repairer_id))`,
  // The triggers' counters (20261225T1000_overview), recounted after a fill that skipped them.
  "overview_counts: equal to a recount": `select count(*) from (
    (select status, repairer_id, since_day, parts from overview_counts where parts <> 0
      except select p.status, coalesce(cm.repairer_id, 0), date_trunc('day', p.updated_at, 'UTC'), count(*)::int
      from parts_orders p left join claim_management cm on cm.claim_id = p.claim_id
      where p.status in ('Arrived', 'Delivered to Repair Shop directly', 'Pending Repair Shop Pick-Up',
        'Picked Up from Repair Shop')
      group by 1, 2, 3)
    union all
    (select p.status, coalesce(cm.repairer_id, 0), date_trunc('day', p.updated_at, 'UTC'), count(*)::int
      from parts_orders p left join claim_management cm on cm.claim_id = p.claim_id
      where p.status in ('Arrived', 'Delivered to Repair Shop directly', 'Pending Repair Shop Pick-Up',
        'Picked Up from Repair Shop')
      group by 1, 2, 3
      except select status, repairer_id, since_day, parts from overview_counts where parts <> 0)) d`,
  "announcements: movement exists": `select count(*) from announcements a
    where a.movement_id is not null and not exists (select from parts_movements m where m.id = a.movement_id)`,
  // What the triggers would have kept.
  "claims: has_shop as the management record says": `select count(*) from claims c
    where c.has_shop <> exists (select from claim_management cm where cm.claim_id = c.id and cm.repairer_id is not null)`,
  "movements: part_count and place": `select count(*) from parts_movements m
    where m.part_count <> (select count(*) from deliver_parts d where d.movement_id = m.id)
      or m.place_repairer_id is distinct from coalesce(m.repairer_id,
        (select cm.repairer_id from claim_management cm where cm.claim_id = m.claim_id))`,
  // Histories.
  "every part's latest history row is its status, at its updated_at": `select count(*) from parts_orders p
    left join lateral (select h.to_status, h.changed_at from part_status_history h where h.part_id = p.id
      order by h.id desc limit 1) l on true
    where l.to_status is distinct from p.status or l.changed_at <> p.updated_at`,
  "history chains: from = the previous to, changed_at increasing": `select count(*) from (
      select from_status, changed_at, lag(to_status) over w as prev, lag(changed_at) over w as prev_at,
        row_number() over w as n
      from part_status_history window w as (partition by part_id order by id)) h
    where h.from_status is distinct from h.prev or (h.n > 1 and h.changed_at <= h.prev_at)`,
  "a movement's history rows are its stages, at its times": `select count(*) from part_status_history h
    join parts_movements m on m.id = h.movement_id
    where h.via <> 'movement' or not (
      (m.movement_type = 'direct' and h.from_status = 'Arrived'
        and h.to_status = 'Delivered to Repair Shop directly' and h.changed_at = m.dropped_off_at)
      or (m.movement_type = 'reverse' and h.from_status = 'Pending Repair Shop Pick-Up'
        and h.to_status = 'Picked Up from Repair Shop' and h.changed_at = m.pick_up_at)
      or (m.movement_type = 'reverse' and h.from_status = 'Picked Up from Repair Shop'
        and h.to_status = 'Returned to HQ' and h.changed_at = m.dropped_off_at))`,
  "movement-made history rows name a movement carrying the part": `select count(*) from part_status_history h
    where (h.via = 'movement') <> (h.movement_id is not null)
      or (h.movement_id is not null
        and not exists (select from deliver_parts d where d.movement_id = h.movement_id and d.part_id = h.part_id))`,
  "each movement's parts have its history rows (one a leg done)": `select count(*) from deliver_parts d
    join parts_movements m on m.id = d.movement_id
    where (select count(*) from part_status_history h where h.movement_id = d.movement_id
      and h.part_id = d.part_id) <> case when m.movement_type = 'direct' then 1
        when d.delivery then 2 else 1 end`,
  "open trips carry exactly the parts on a truck": `select count(*) from parts_orders p
    where (p.status = 'Picked Up from Repair Shop') <> exists (select from deliver_parts d
      join parts_movements m on m.id = d.movement_id
      where d.part_id = p.id and not d.delivery and m.movement_status = 'Parts Picked Up')`,
  "trips done iff every part delivered": `select count(*) from parts_movements m
    where m.movement_type = 'reverse' and (m.movement_status = 'Parts Dropped off')
      <> not exists (select from deliver_parts d where d.movement_id = m.id and not d.delivery)`,
  "the claim's management links its latest return trip": `select count(*) from claim_management cm
    where cm.parts_movement_id is distinct from (select max(m.id) from parts_movements m
      where m.claim_id = cm.claim_id and m.movement_type = 'reverse')`,
  "announcements: one per movement, about its latest leg": `select count(*) from parts_movements m
    where (select count(*) from announcements a where a.movement_id = m.id) <> 1
      or (select a.title from announcements a where a.movement_id = m.id) <> case
        when m.movement_type = 'direct' then 'Parts Delivered'
        when m.movement_status = 'Parts Picked Up' then 'Parts Picked Up From Repair Shop'
        else 'Parts Returned to HQ' end`,
};

/** Steps between the claim's opening and the anchor: none in the future of the run's clock. */
const inWindow = (now: Date) =>
  sql<
    { count: string | number }
  >`select count(*) from part_status_history h join parts_orders p on p.id = h.part_id
    join claims c on c.id = p.claim_id
    where h.changed_at < c.created_at or h.changed_at > ${now.toISOString()}::timestamptz`;

/** Each check's offending rows; every one 0 when the data holds what the generator promises. */
export async function checkScale(db: Db, now: Date): Promise<Record<string, number>> {
  const window = await inWindow(now).execute(db);
  const out: Record<string, number> = {
    "history between the claim's opening and the anchor": Number(window.rows[0].count),
  };
  for (const [name, text] of Object.entries(CHECKS)) {
    const r = await sql<{ count: string | number }>`${sql.raw(text)}`.execute(db);
    out[name] = Number(r.rows[0].count);
  }
  return out;
}

/** A fill's shape: rows per table, parts per status, open trips (and those over 24 h before `now`). */
export async function scaleFigures(db: Db, now: Date) {
  const count = async (text: string) =>
    Number((await sql<{ n: string | number }>`${sql.raw(text)}`.execute(db)).rows[0].n);
  const rows: Record<string, number> = {};
  for (
    const t of [
      "claims",
      "parts_orders",
      "parts_movements",
      "deliver_parts",
      "part_status_history",
      "announcements",
    ]
  ) {
    rows[t] = await count(`select count(*) as n from ${t}`);
  }
  const statuses = await sql<{ status: string; n: string | number }>`select status, count(*) as n
    from parts_orders group by status order by status`.execute(db);
  const trips = await sql<{ open: string | number; long: string | number }>`select count(*) as open,
      count(*) filter (where pick_up_at < ${now.toISOString()}::timestamptz - interval '24 hours') as long
    from parts_movements where movement_status = 'Parts Picked Up'`.execute(db);
  return {
    rows,
    statuses: Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)])),
    openTrips: Number(trips.rows[0].open),
    openTripsOver24h: Number(trips.rows[0].long),
  };
}
