/**
 * The parts CSV export's reads (lib/dashboard/exports.ts): batches in id order after a keyset, each part
 * with its claim number, rego and repair shop and the latest time it entered each status. Its times are
 * read as PostgreSQL's text into epoch milliseconds (db/timestamps.ts), not as Dates: an export of
 * 3 000 000 parts reads 6 000 000 of them (docs/dashboard.md "Exports").
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { PartStatus } from "@/db/schema.ts";
import { type PartFilters, partsFrom } from "@/db/queries/parts.ts";
import { partTextMatch } from "@/db/queries/search_box.ts";
import { timestamptzMs } from "@/db/timestamps.ts";

export interface PartExportRow {
  id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
  /** Epoch milliseconds, as every time below. */
  updated_at: number;
  claim_number: string;
  registration: string;
  repairer_name: string | null;
  /** When the part last entered each status; null when it never did. */
  arrived_at: number | null;
  delivered_at: number | null;
  flagged_at: number | null;
  picked_up_at: number | null;
  returned_at: number | null;
}

/**
 * A batch being read: the id of its last part as soon as its parts are in (the next batch's keyset, so
 * that read can start while this batch's claims are still being read), and its rows when whole.
 */
export interface ExportBatch<T> {
  lastId: Promise<number | undefined>;
  rows: Promise<T[]>;
}

/**
 * The next batch of the parts export, in id order after `afterId` (keyset pagination: every batch is an
 * index range scan, however deep into the export). Each row carries the latest time the part entered each
 * status, from its history: one pass over the part's history rows (part_status_history_part), not one
 * look-up per status.
 *
 * Unless a filter needs the claim (rego, claim number, repair shop), the parts are read alone and their
 * claims after them, once per claim for the whole batch (a claim has several parts: a third of the claim
 * and claim-management look-ups of a join per part, which were half the statement's time at 3 000 000
 * parts), and joined here by claim id. Each part's own columns and history come from one statement.
 */
export function partExportBatch(
  db: Db,
  filters: PartFilters,
  afterId: number,
  limit: number,
): ExportBatch<PartExportRow> {
  const history = enteredAt();
  // As text (db/timestamps.ts): this statement's times only.
  const times = [
    sql<string>`p.updated_at::text`.as("updated_at"),
    sql<string | null>`e.arrived_at::text`.as("arrived_at"),
    sql<string | null>`e.delivered_at::text`.as("delivered_at"),
    sql<string | null>`e.flagged_at::text`.as("flagged_at"),
    sql<string | null>`e.picked_up_at::text`.as("picked_up_at"),
    sql<string | null>`e.returned_at::text`.as("returned_at"),
  ];
  const own = ["p.id", "p.part_no", "p.description", "p.qty_ordered", "p.status"] as const;
  if (filters.rego || filters.claim?.trim() || filters.repairerId) {
    const rows = partsFrom(db, filters).leftJoinLateral(history, (join) => join.onTrue())
      .select(own).select(["c.claim_number", "c.registration", "r.name as repairer_name"]).select(times)
      .where("p.id", ">", afterId).orderBy("p.id").limit(limit).execute()
      .then((rows) => rows.map((p) => exportRow(p, p)));
    return { lastId: rows.then(lastIdOf), rows };
  }
  let parts = db.selectFrom("parts_orders as p")
    .leftJoinLateral(history, (join) => join.onTrue())
    .select(own).select("p.claim_id").select(times)
    .where("p.id", ">", afterId);
  if (filters.status) parts = parts.where("p.status", "=", filters.status);
  if (filters.text) parts = parts.where(partTextMatch(filters.text));
  const read = parts.orderBy("p.id").limit(limit).execute();
  const rows = read.then(async (parts) => {
    if (parts.length === 0) return [];
    const claims = new Map(
      (await claimsForExport(db, [...new Set(parts.map((p) => p.claim_id))])).map((c) => [c.id, c]),
    );
    // Every part has its claim (foreign key; a claim with parts is never deleted).
    return parts.map((p) => exportRow(p, claims.get(p.claim_id)!));
  });
  return { lastId: read.then(lastIdOf), rows };
}

const lastIdOf = (rows: { id: number }[]) => rows.length ? rows[rows.length - 1].id : undefined;

interface PartRead {
  id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
  updated_at: string;
  arrived_at: string | null;
  delivered_at: string | null;
  flagged_at: string | null;
  picked_up_at: string | null;
  returned_at: string | null;
}

interface ClaimRead {
  claim_number: string;
  registration: string;
  repairer_name: string | null;
}

const msOrNull = (text: string | null) => text === null ? null : timestamptzMs(text);

/** One row as the export writes it: one shape for every row, times as numbers. */
function exportRow(p: PartRead, c: ClaimRead): PartExportRow {
  return {
    id: p.id,
    part_no: p.part_no,
    description: p.description,
    qty_ordered: p.qty_ordered,
    status: p.status,
    updated_at: timestamptzMs(p.updated_at),
    claim_number: c.claim_number,
    registration: c.registration,
    repairer_name: c.repairer_name,
    arrived_at: msOrNull(p.arrived_at),
    delivered_at: msOrNull(p.delivered_at),
    flagged_at: msOrNull(p.flagged_at),
    picked_up_at: msOrNull(p.picked_up_at),
    returned_at: msOrNull(p.returned_at),
  };
}

/** The latest time part `p` entered each status, from its history rows (a lateral subquery). */
function enteredAt() {
  const entered = (status: PartStatus) => sql`max(h.changed_at) filter (where h.to_status = ${status})`;
  return sql<{
    arrived_at: Date | null;
    delivered_at: Date | null;
    flagged_at: Date | null;
    picked_up_at: Date | null;
    returned_at: Date | null;
  }>`(select ${entered("Arrived")} as arrived_at,
    ${entered("Delivered to Repair Shop directly")} as delivered_at,
    ${entered("Pending Repair Shop Pick-Up")} as flagged_at,
    ${entered("Picked Up from Repair Shop")} as picked_up_at,
    ${entered("Returned to HQ")} as returned_at
    from part_status_history h where h.part_id = p.id)`.as("e");
}

/** The claim number, rego and repair shop of each claim in `ids` (any order). */
async function claimsForExport(db: Db, ids: number[]) {
  return await db.selectFrom("claims as c")
    .leftJoin("claim_management as cm", "cm.claim_id", "c.id")
    .leftJoin("repairers as r", "r.id", "cm.repairer_id")
    .select(["c.id", "c.claim_number", "c.registration", "r.name as repairer_name"])
    .where("c.id", "=", sql<number>`any(${ids}::int[])`)
    .execute();
}
