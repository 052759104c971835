/**
 * Queries of the parts family (parts_orders): the look-ups of the search and the checks, the locks and
 * guarded status changes of the submissions and the dashboard, and the import's upsert. A status change is
 * always a conditional UPDATE (`WHERE status = <expected>`), so a part moved meanwhile is left alone.
 * Also the dashboard's reads: the filtered, paginated parts search, one part in full (the export's batches:
 * db/queries/part_export.ts).
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { PartOrder, PartStatus } from "@/db/schema.ts";
import { compiledQuery, type QueryRunner, type Tx } from "@/db/queries/compiled.ts";
import { historyOfPart } from "@/db/queries/history.ts";
import { containsPattern, regoContains } from "@/db/queries/like.ts";
import { movementsOfPart } from "@/db/queries/movement_reads.ts";
import { fetchKeysetPage, type KeysetPage, type KeysetWindow } from "@/db/queries/paging.ts";
import { col, type ListSort, type SortColumns } from "@/db/queries/sorting.ts";
import { SHOP_SORT, shopWalkUnder } from "@/db/queries/part_shop_sort.ts";
import { type PartText, partTextMatch } from "@/db/queries/search_box.ts";

const arrivedParts = compiledQuery((db, claimId: number) =>
  db.selectFrom("parts_orders")
    .select(["id", "description", "part_no"])
    .where("claim_id", "=", claimId)
    .where("status", "=", "Arrived")
    .orderBy("id")
);

/** The claim's parts waiting at HQ for a direct delivery (Arrived), in id order (compiled: every search). */
export async function arrivedPartsOf(db: QueryRunner, claimId: number) {
  return await arrivedParts.execute(db, claimId);
}

/** The claim's parts flagged for return at its repair shop, in id order (a reverse pickup's list). */
export async function partsAwaitingPickUp(db: QueryRunner, claimId: number) {
  return await db.selectFrom("parts_orders")
    .select(["id as parts_order_id", "description", "part_no"])
    .where("claim_id", "=", claimId)
    .where("status", "=", "Pending Repair Shop Pick-Up")
    .orderBy("id")
    .execute();
}

/** Every part of the claim with this number, with its quantity and status, in id order (the tablet's list). */
export async function partsOfClaimNumber(db: QueryRunner, claimNumber: string) {
  return await db.selectFrom("parts_orders")
    .innerJoin("claims", "claims.id", "parts_orders.claim_id")
    .select([
      "parts_orders.id",
      "parts_orders.part_no",
      "parts_orders.description",
      "parts_orders.qty_ordered",
      "parts_orders.status",
    ])
    .where("claims.claim_number", "=", claimNumber)
    .orderBy("parts_orders.id")
    .execute();
}

/** The part with this id if it belongs to the claim. */
export async function partOfClaim(db: QueryRunner, partId: number, claimId: number) {
  return await db.selectFrom("parts_orders").select(["id", "part_no", "status"])
    .where("id", "=", partId).where("claim_id", "=", claimId).executeTakeFirst();
}

/** A part row as the checks need it, locked in id order by the submission's read (submission_reads.ts). */
export type LockedPart = Pick<
  PartOrder,
  "id" | "claim_id" | "part_no" | "description" | "qty_ordered" | "status"
>;

/**
 * One part `from` → `to` if it still is `from` (the UPDATE locks the row); its part number, or undefined
 * when it is not `from` (or does not exist).
 */
export async function changePartStatusIf(
  trx: Tx,
  partId: number,
  from: PartStatus,
  to: PartStatus,
  at: Date,
): Promise<{ part_no: string; claim_id: number } | undefined> {
  return await trx.updateTable("parts_orders")
    .set({ status: to, updated_at: at })
    .where("id", "=", partId)
    .where("status", "=", from)
    .returning(["part_no", "claim_id"])
    .executeTakeFirst();
}

/** A part's number and status now, if it exists. */
export async function partStatusNow(db: QueryRunner, partId: number) {
  return await db.selectFrom("parts_orders").select(["part_no", "status"])
    .where("id", "=", partId).executeTakeFirst();
}

// --- the import (D5) ---

/** Locks the parts of these claims (so the import records the status each part really left); their statuses. */
export async function lockPartStatusesOfClaims(
  trx: Tx,
  claimIds: number[],
): Promise<{ claim_id: number; part_no: string; status: PartStatus }[]> {
  return await trx.selectFrom("parts_orders").select(["claim_id", "part_no", "status"])
    .where("claim_id", "in", claimIds)
    .forUpdate()
    .execute();
}

export interface ImportedPart {
  claim_id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
}

/**
 * Inserts or updates parts by (claim, part number). `updated_at` moves to `at` only for a part whose
 * status changes. Returns every row written with its status now.
 */
export async function upsertParts(trx: Tx, parts: ImportedPart[], at: Date) {
  return await trx.insertInto("parts_orders")
    .values(parts.map((p) => ({ ...p, updated_at: at })))
    .onConflict((oc) =>
      oc.columns(["claim_id", "part_no"]).doUpdateSet({
        description: (eb) => eb.ref("excluded.description"),
        qty_ordered: (eb) => eb.ref("excluded.qty_ordered"),
        status: (eb) => eb.ref("excluded.status"),
        updated_at: sql<Date>`case when parts_orders.status = excluded.status then parts_orders.updated_at
          else excluded.updated_at end`,
      })
    )
    .returning(["id", "claim_id", "part_no", "status"])
    .execute();
}

// --- the dashboard's reads ---

export interface PartFilters {
  /** Normalised (lib/rego.ts): the caller normalises what was typed. */
  rego?: string;
  claim?: string;
  status?: PartStatus;
  repairerId?: number;
  /** Only parts of claims without a repair shop (no management record, or none named on it). */
  noShop?: boolean;
  /** Only parts returned to HQ (a history row to `Returned to HQ`) in this window (docs/overview.md). */
  returned?: { from: Date; before: Date };
  /** Only parts that entered their status at or before this instant (an age of at least …). */
  sinceAtOrBefore?: Date;
  /** Only parts that entered their status after this instant (an age under …). */
  sinceAfter?: Date;
  /** A part number's start or words of the description (db/queries/search_box.ts `partTextMatch`). */
  text?: PartText;
}

export interface PartRow {
  id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
  updated_at: Date;
  claim_id: number;
  claim_number: string;
  registration: string;
  repairer_name: string | null;
}

/** A row of the parts list: with the part's latest photo (delivery, else pick-up, of its last leg). */
export interface PartListRow extends PartRow {
  photo_id: number | null;
}

/**
 * The parts with their claim, management and repair shop joined, filtered; no columns yet (the list's are
 * partsQuery's, the export's db/queries/part_export.ts's).
 */
export function partsFrom(db: Db, f: PartFilters) {
  let q = db.selectFrom("parts_orders as p")
    .innerJoin("claims as c", "c.id", "p.claim_id")
    .leftJoin("claim_management as cm", "cm.claim_id", "c.id")
    .leftJoin("repairers as r", "r.id", "cm.repairer_id");
  // Same matching as the mobile search (D11): the trigram index on registration_norm serves it.
  if (f.rego) q = q.where(regoContains("p.claim_id", "c.registration_norm", f.rego));
  const claim = f.claim?.trim();
  if (claim) q = q.where("c.claim_number", "ilike", containsPattern(claim));
  if (f.status) q = q.where("p.status", "=", f.status);
  if (f.repairerId) q = q.where("cm.repairer_id", "=", f.repairerId);
  if (f.noShop) q = q.where("c.has_shop", "=", false);
  if (f.sinceAtOrBefore) q = q.where("p.updated_at", "<=", f.sinceAtOrBefore);
  if (f.sinceAfter) q = q.where("p.updated_at", ">", f.sinceAfter);
  const returned = f.returned;
  if (returned) {
    // The overview's "returned today" (docs/overview.md): one range of part_status_history_returned.
    q = q.where("p.id", "in", (eb) =>
      eb.selectFrom("part_status_history as h").select("h.part_id")
        .where("h.to_status", "=", "Returned to HQ")
        .where("h.changed_at", ">=", returned.from)
        .where("h.changed_at", "<", returned.before));
  }
  if (f.text) q = q.where(partTextMatch(f.text));
  return q;
}

function partsQuery(db: Db, f: PartFilters) {
  return partsFrom(db, f).select([
    "p.id",
    "p.part_no",
    "p.description",
    "p.qty_ordered",
    "p.status",
    "p.updated_at",
    "c.id as claim_id",
    "c.claim_number",
    "c.registration",
    "r.name as repairer_name",
  ]);
}

/** The columns the parts list sorts by (sorting.ts); "since" is the time of the part's last change. */
export const PART_SORT_COLUMNS = {
  part_no: col("p.part_no", "text"),
  description: col("p.description", "text"),
  qty: col("p.qty_ordered", "int"),
  status: col("p.status", "text"),
  since: col("p.updated_at", "time"),
  claim: col("c.claim_number", "text"),
  rego: col("c.registration", "text"),
  // The claim's repair shop: walked, the shops in name order (part_shop_sort.ts).
  repairer: SHOP_SORT,
} satisfies SortColumns<string>;
export type PartSortColumn = keyof typeof PART_SORT_COLUMNS;
export const PART_SORTS = Object.keys(PART_SORT_COLUMNS) as [PartSortColumn, ...PartSortColumn[]];
/** Most recently changed first, unless the list asks otherwise. */
export const PART_DEFAULT_SORT: ListSort<PartSortColumn> = { column: "since", dir: "desc" };

/** One page of parts in the sort's order (then by id), with the cursors of the pages beside it. */
export async function searchParts(
  db: Db,
  filters: PartFilters,
  page: KeysetWindow,
  sort: ListSort<PartSortColumn> = PART_DEFAULT_SORT,
): Promise<KeysetPage<PartListRow>> {
  const latestPhoto = sql<number | null>`(select coalesce(d.delivery_photo_id, d.pickup_photo_id)
    from deliver_parts d where d.part_id = p.id
    and coalesce(d.delivery_photo_id, d.pickup_photo_id) is not null order by d.id desc limit 1)`;
  const column = PART_SORT_COLUMNS[sort.column];
  return await fetchKeysetPage(
    partsQuery(db, filters).select(latestPhoto.as("photo_id")),
    {
      column: shopWalkUnder(column, filters),
      dir: sort.dir,
      id: sql.ref("p.id"),
    },
    page,
  );
}

/** One part with its claim, its history and the movements that carried it; null when there is none. */
export async function partDetail(db: Db, partId: number) {
  const part = await partsQuery(db, {}).where("p.id", "=", partId).executeTakeFirst();
  if (!part) return null;
  const [history, movements] = await Promise.all([historyOfPart(db, partId), movementsOfPart(db, partId)]);
  return { part, history, movements };
}
