/**
 * The overview's figures (docs/overview.md): counts of parts by status and by the claim's repair shop now,
 * with the time each part entered its status (`updated_at`, the ageing's "since"), and the parts returned to
 * HQ in a window. Each statement reads one range of a partial index of migration 20261225T1000_overview
 * (`parts_orders_overview`, `part_status_history_returned`); the rules (which status is which figure, the
 * day's bounds, the bands) are lib/dashboard/overview.ts's.
 */
import { sql } from "kysely";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import type { PartStatus } from "@/db/schema.ts";

/** A shop's count; `repairer_id` null: the claim has no shop (no management record, or none named). */
export interface ShopCount {
  repairer_id: number | null;
  parts: number;
}

/** The parts in `status` by the claim's repair shop now. */
export async function partsInStatusByShop(db: QueryRunner, status: PartStatus): Promise<ShopCount[]> {
  const rows = await db.selectFrom("parts_orders as p")
    .leftJoin("claim_management as cm", "cm.claim_id", "p.claim_id")
    .select(["cm.repairer_id", sql<number>`count(*)::int`.as("parts")])
    .where("p.status", "=", status)
    .groupBy("cm.repairer_id")
    .execute();
  return rows.map((r) => ({ repairer_id: r.repairer_id, parts: Number(r.parts) }));
}

/** A shop's parts in a status, counted by how long ago they entered it. */
export interface ShopAges {
  repairer_id: number | null;
  /** `counts[i]`: the parts that entered the status after `cutoffs[i - 1]` (none for 0) and at or before `cutoffs[i]`, then the rest. */
  counts: number[];
}

/**
 * The parts in `status` by the claim's repair shop now, each shop's split at `cutoffs` (newest first):
 * `counts[0]` entered it after `cutoffs[0]`, `counts[i]` after `cutoffs[i]` and at or before
 * `cutoffs[i - 1]`, the last at or before the last cutoff. So a part's age (now − since) is under the first
 * threshold, then at least each threshold and under the next, then at least the last.
 */
export async function partsInStatusByShopAndAge(
  db: QueryRunner,
  status: PartStatus,
  cutoffs: Date[],
): Promise<ShopAges[]> {
  const bounds = [undefined, ...cutoffs];
  const bands = bounds.map((newer, i) => {
    const older = cutoffs[i];
    const conditions = [
      ...(older ? [sql`p.updated_at > ${older}::timestamptz`] : []),
      ...(newer ? [sql`p.updated_at <= ${newer}::timestamptz`] : []),
    ];
    return sql<number>`count(*) filter (where ${sql.join(conditions, sql` and `)})::int`.as(`band_${i}`);
  });
  const rows = await db.selectFrom("parts_orders as p")
    .leftJoin("claim_management as cm", "cm.claim_id", "p.claim_id")
    .select(["cm.repairer_id", ...bands])
    .where("p.status", "=", status)
    .groupBy("cm.repairer_id")
    .execute();
  return rows.map((r) => {
    const row = r as unknown as Record<string, number | null>;
    return {
      repairer_id: row.repairer_id,
      counts: bounds.map((_, i) => Number(row[`band_${i}`])),
    };
  });
}

/** The parts in `status`, and those of them that entered it at or before `cutoff`. */
export async function partsInStatusSince(
  db: QueryRunner,
  status: PartStatus,
  cutoff: Date,
): Promise<{ parts: number; atOrBefore: number }> {
  const row = await db.selectFrom("parts_orders as p")
    .select([
      sql<number>`count(*)::int`.as("parts"),
      sql<number>`count(*) filter (where p.updated_at <= ${cutoff}::timestamptz)::int`.as("at_or_before"),
    ])
    .where("p.status", "=", status)
    .executeTakeFirstOrThrow();
  return { parts: Number(row.parts), atOrBefore: Number(row.at_or_before) };
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
