/**
 * The overview's figures (docs/overview.md): counts of parts by status and by the claim's repair shop now,
 * by the time each part entered its status (`updated_at`, the ageing's "since"), and the parts returned to
 * HQ in a window. The counts are read from the counters of migration 20261225T1000_overview
 * (`overview_counts`, kept by triggers), the returns from `part_status_history_returned`; the rules (which
 * status is which figure, the day's bounds, the bands) are lib/dashboard/overview.ts's.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import type { PartStatus } from "@/db/schema.ts";

/** A shop's count; `repairer_id` null: the claim has no shop (no management record, or none named). */
export interface ShopCount {
  repairer_id: number | null;
  parts: number;
}

/** The statuses the counters keep (the migration's list). */
const COUNTED_STATUSES: PartStatus[] = [
  "Arrived",
  "Delivered to Repair Shop directly",
  "Pending Repair Shop Pick-Up",
  "Picked Up from Repair Shop",
];

const DAY_MS = 86_400_000;

/** The start of the UTC day of `t`: the counters' day (`date_trunc('day', …, 'UTC')`). */
const utcDay = (t: Date) => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);

/** The counters' shop (0: none) as the figures name it. */
const shopOf = (id: number) => id === 0 ? null : id;

/** The parts in `status` by the claim's repair shop now (the counters of `overview_counts`). */
export async function partsInStatusByShop(db: QueryRunner, status: PartStatus): Promise<ShopCount[]> {
  const rows = await db.selectFrom("overview_counts")
    .select(["repairer_id", sql<number>`sum(parts)::int`.as("parts")])
    .where("status", "=", status)
    .groupBy("repairer_id")
    .having(sql`sum(parts)`, "<>", 0)
    .execute();
  return rows.map((r) => ({ repairer_id: shopOf(r.repairer_id), parts: Number(r.parts) }));
}

/** A shop's parts in a status, counted by how long ago they entered it. */
export interface ShopAges {
  repairer_id: number | null;
  /** Newest first: `counts[i]` entered the status after `cutoffs[i]` and at or before `cutoffs[i - 1]`. */
  counts: number[];
}

/**
 * The parts in `status` by the claim's repair shop now, each shop's split at `cutoffs` (newest first):
 * `counts[0]` entered it after `cutoffs[0]`, `counts[i]` after `cutoffs[i]` and at or before
 * `cutoffs[i - 1]`, the last at or before the last cutoff. So a part's age (now − since) is under the first
 * threshold, then at least each threshold and under the next, then at least the last. The counters give
 * every day but the cutoffs' own (whole days fall on one side of every cutoff); the parts of those days are
 * counted one by one (`parts_orders_status_updated`).
 */
export async function partsInStatusByShopAndAge(
  db: QueryRunner,
  status: PartStatus,
  cutoffs: Date[],
): Promise<ShopAges[]> {
  const edgeDays = cutoffs.map(utcDay);
  const days = sql`array[${sql.join(edgeDays.map((d) => sql`${d}::timestamptz`))}]`;
  const [whole, edges] = await Promise.all([
    db.selectFrom("overview_counts as oc")
      .select([
        "oc.repairer_id",
        sql<number>`(select count(*) from unnest(${days}) d where oc.since_day < d)::int`.as("band"),
        sql<number>`sum(oc.parts)::int`.as("parts"),
      ])
      .where("oc.status", "=", status)
      .where(sql<boolean>`oc.since_day <> all(${days})`)
      .groupBy(["oc.repairer_id", "band"])
      .execute(),
    partsOfDaysByShopAndAge(db, status, cutoffs, edgeDays),
  ]);
  const byShop = new Map<number | null, number[]>();
  const countsOf = (id: number | null) => {
    let counts = byShop.get(id);
    if (!counts) byShop.set(id, counts = cutoffs.map(() => 0).concat(0));
    return counts;
  };
  for (const r of whole) countsOf(shopOf(r.repairer_id))[Number(r.band)] += Number(r.parts);
  for (const r of edges) r.counts.forEach((n, i) => countsOf(r.repairer_id)[i] += n);
  return [...byShop].filter(([, counts]) => counts.some((n) => n !== 0))
    .map(([repairer_id, counts]) => ({ repairer_id, counts }));
}

/** The parts in `status` that entered it during these UTC days, by shop, split at `cutoffs` as above. */
async function partsOfDaysByShopAndAge(
  db: QueryRunner,
  status: PartStatus,
  cutoffs: Date[],
  days: Date[],
): Promise<ShopAges[]> {
  const bounds = [undefined, ...cutoffs];
  const bands = bounds.map((newer, i) => {
    const older = cutoffs[i];
    const conditions = [
      ...(older ? [sql`p.updated_at > ${older}::timestamptz`] : []),
      ...(newer ? [sql`p.updated_at <= ${newer}::timestamptz`] : []),
    ];
    return sql<number>`count(*) filter (where ${sql.join(conditions, sql` and `)})`.as(`band_${i}`);
  });
  // The parts by claim first (a day holds a few thousand), then each claim's shop by one index probe:
  // whatever the number of claims, where a join could read every management record.
  const perClaim = db.selectFrom("parts_orders as p")
    .select(["p.claim_id", ...bands])
    .where("p.status", "=", status)
    .where((eb) =>
      eb.or(days.map((d) =>
        eb.and([
          eb("p.updated_at", ">=", d),
          eb("p.updated_at", "<", new Date(d.getTime() + DAY_MS)),
        ])
      ))
    )
    .groupBy("p.claim_id");
  const shop = sql<
    number | null
  >`(select cm.repairer_id from claim_management cm where cm.claim_id = x.claim_id)`;
  const rows = await db.selectFrom(perClaim.as("x"))
    .select([
      shop.as("repairer_id"),
      ...bounds.map((_, i) => sql<number>`sum(${sql.ref(`x.band_${i}`)})::int`.as(`band_${i}`)),
    ])
    .groupBy(sql`1`)
    .execute();
  return rows.map((r) => {
    const row = r as unknown as Record<string, number | null>;
    return {
      repairer_id: row.repairer_id,
      counts: bounds.map((_, i) => Number(row[`band_${i}`])),
    };
  });
}

/**
 * The parts returned to HQ (a history row to `Returned to HQ`) from `from` (included) to `before`
 * (excluded), each part once.
 */
export async function partsReturnedBetween(db: QueryRunner, from: Date, before: Date): Promise<number> {
  const row = await db.selectFrom("part_status_history as h")
    .select(sql<number>`count(distinct h.part_id)::int`.as("parts"))
    .where("h.to_status", "=", "Returned to HQ")
    .where("h.changed_at", ">=", from)
    .where("h.changed_at", "<", before)
    .executeTakeFirstOrThrow();
  return Number(row.parts);
}

/** The names of these repair shops (inactive ones too: their claims still count). */
export async function shopNames(db: QueryRunner, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom("repairers").select(["id", "name"]).where("id", "in", ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * Counts every part again into `overview_counts`, replacing what is there: for a fill that wrote parts with
 * the triggers off (the bench's generated depot, as a restore does). The same recount as the migration's.
 */
export async function recountOverviewCounts(db: Db): Promise<void> {
  await db.deleteFrom("overview_counts").execute();
  await db.insertInto("overview_counts")
    .columns(["status", "repairer_id", "since_day", "parts"])
    .expression(
      db.selectFrom("parts_orders as p")
        .leftJoin("claim_management as cm", "cm.claim_id", "p.claim_id")
        .select([
          "p.status",
          sql<number>`coalesce(cm.repairer_id, 0)`.as("repairer_id"),
          sql<Date>`date_trunc('day', p.updated_at, 'UTC')`.as("since_day"),
          sql<number>`count(*)::int`.as("parts"),
        ])
        .where("p.status", "in", COUNTED_STATUSES)
        .groupBy(["p.status", sql`2`, sql`3`]),
    )
    .execute();
}
