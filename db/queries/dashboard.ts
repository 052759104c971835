/**
 * Read queries of the HQ dashboard's parts pages: the filtered, paginated parts search, one part with its
 * claim, history and movements, and the batches of the parts export. Decisions live in lib/; these only read.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { PartStatus } from "@/db/schema.ts";
import { fetchPage, type PageWindow } from "@/db/queries/dashboard_paging.ts";
import { escapeLike, normaliseRego } from "@/lib/rego.ts";

export interface PartFilters {
  rego?: string;
  claim?: string;
  status?: PartStatus;
  repairerId?: number;
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

function partsQuery(db: Db, f: PartFilters) {
  let q = db.selectFrom("parts_orders as p")
    .innerJoin("claims as c", "c.id", "p.claim_id")
    .leftJoin("claim_management as cm", "cm.claim_id", "c.id")
    .leftJoin("repairers as r", "r.id", "cm.repairer_id")
    .select([
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
  const rego = f.rego ? normaliseRego(f.rego) : "";
  // Same matching as the mobile search (D11): the trigram index on registration_norm serves it.
  if (rego) q = q.where("c.registration_norm", "like", `%${escapeLike(rego)}%`);
  const claim = f.claim?.trim();
  if (claim) q = q.where("c.claim_number", "ilike", `%${escapeLike(claim)}%`);
  if (f.status) q = q.where("p.status", "=", f.status);
  if (f.repairerId) q = q.where("cm.repairer_id", "=", f.repairerId);
  return q;
}

/** One page of parts, most recently changed first; `more` says whether a next page exists. */
export async function searchParts(
  db: Db,
  filters: PartFilters,
  page: PageWindow,
): Promise<{ rows: PartRow[]; more: boolean }> {
  return await fetchPage(
    partsQuery(db, filters).orderBy("p.updated_at", "desc").orderBy("p.id", "desc"),
    page,
  );
}

export async function partDetail(db: Db, partId: number) {
  const part = await partsQuery(db, {}).where("p.id", "=", partId).executeTakeFirst();
  if (!part) return null;
  const [history, movements] = await Promise.all([
    db.selectFrom("part_status_history as h")
      .leftJoin("users as u", "u.id", "h.changed_by")
      .select([
        "h.id",
        "h.from_status",
        "h.to_status",
        "h.changed_at",
        "h.via",
        "h.reason",
        "h.movement_id",
        "u.name as changed_by_name",
      ])
      .where("h.part_id", "=", partId)
      .orderBy("h.changed_at", "desc").orderBy("h.id", "desc")
      .execute(),
    db.selectFrom("deliver_parts as d")
      .innerJoin("parts_movements as m", "m.id", "d.movement_id")
      .select([
        "m.id",
        "m.movement_type",
        "m.movement_status",
        "m.pick_up_at",
        "m.dropped_off_at",
        "d.pickup_photo_id",
        "d.delivery_photo_id",
      ])
      .where("d.part_id", "=", partId)
      .orderBy("m.id", "desc")
      .execute(),
  ]);
  return { part, history, movements };
}

export type PartDetail = NonNullable<Awaited<ReturnType<typeof partDetail>>>;

/** Repair shops for filter and form choices; inactive ones last. */
export async function listRepairers(db: Db) {
  return await db.selectFrom("repairers").select(["id", "name", "address", "active"])
    .orderBy("active", "desc").orderBy("name").execute();
}

export interface PartExportRow extends PartRow {
  arrived_at: Date | null;
  delivered_at: Date | null;
  flagged_at: Date | null;
  picked_up_at: Date | null;
  returned_at: Date | null;
}

/**
 * The next batch of the parts export, in id order after `afterId` (keyset pagination: every batch is an
 * index range scan, however deep into the export). Each row carries the latest time the part entered each
 * status, from its history.
 */
export async function partExportBatch(
  db: Db,
  filters: PartFilters,
  afterId: number,
  limit: number,
): Promise<PartExportRow[]> {
  const entered = (status: PartStatus) =>
    sql<Date | null>`(select max(h.changed_at) from part_status_history h
      where h.part_id = p.id and h.to_status = ${status})`;
  return await partsQuery(db, filters)
    .select([
      entered("Arrived").as("arrived_at"),
      entered("Delivered to Repair Shop directly").as("delivered_at"),
      entered("Pending Repair Shop Pick-Up").as("flagged_at"),
      entered("Picked Up from Repair Shop").as("picked_up_at"),
      entered("Returned to HQ").as("returned_at"),
    ])
    .where("p.id", ">", afterId)
    .orderBy("p.id")
    .limit(limit)
    .execute();
}
