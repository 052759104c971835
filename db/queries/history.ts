/**
 * Queries of part_status_history: every status change of a part leaves one row, written in the
 * transaction that made the change (via `movement`, `dashboard`, `import` or `shop`).
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { NewHistoryRow } from "@/db/schema.ts";

/** Inserts one history row; returns its id. */
export async function insertHistoryRow(db: Db, row: NewHistoryRow): Promise<number> {
  const { id } = await db.insertInto("part_status_history").values(row).returning("id")
    .executeTakeFirstOrThrow();
  return id;
}

/** Inserts history rows in one statement. */
export async function insertHistoryRows(db: Db, rows: NewHistoryRow[]): Promise<void> {
  await db.insertInto("part_status_history").values(rows).execute();
}

/** Status changes with their part number and the name of who made each (callers filter and order). */
function changesWithNames(db: Db) {
  return db.selectFrom("part_status_history as h")
    .innerJoin("parts_orders as p", "p.id", "h.part_id")
    .leftJoin("users as u", "u.id", "h.changed_by")
    .leftJoin("repairers as s", "s.id", "h.changed_by_repairer_id")
    .select([
      "h.id",
      "h.part_id",
      "p.part_no",
      "h.from_status",
      "h.to_status",
      "h.changed_at",
      "h.via",
      "h.reason",
      "h.movement_id",
      // A shop acting on its page is named as the shop (docs/shop-page.md).
      sql<string | null>`coalesce(u.name, s.name || ' (shop page)')`.as("changed_by_name"),
    ]);
}

/** A part's history, newest first, with the name of who made each change. */
export async function historyOfPart(db: Db, partId: number) {
  return await changesWithNames(db).where("h.part_id", "=", partId)
    .orderBy("h.changed_at", "desc").orderBy("h.id", "desc")
    .execute();
}

/** Every status change of every part of a claim, oldest first, with the part number and who made it. */
export async function historyOfClaim(db: Db, claimId: number) {
  return await changesWithNames(db).where("p.claim_id", "=", claimId)
    .orderBy("h.changed_at").orderBy("h.id")
    .execute();
}
