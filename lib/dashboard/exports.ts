/**
 * The dashboard's CSV exports of parts and movements (same filters as their lists). Streamed: rows are
 * fetched 500 at a time by keyset as the client reads (io/csv.ts), never the whole export in memory.
 */
import type { Db } from "@/db/client.ts";
import { partExportBatch, type PartExportRow, type PartFilters } from "@/db/queries/parts.ts";
import {
  movementExportBatch,
  type MovementExportRow,
  type MovementFilters,
} from "@/db/queries/movement_reads.ts";
import { csvStream } from "@/io/csv.ts";

const EXPORT_BATCH = 500;

/** The parts CSV's columns, in order. */
export const PART_HEADER = [
  "Part ID",
  "Part No.",
  "Description",
  "Qty",
  "Status",
  "Status since",
  "Claim number",
  "Rego",
  "Repair shop",
  "Arrived at",
  "Delivered to repair shop at",
  "Flagged for pick-up at",
  "Picked up from repair shop at",
  "Returned to HQ at",
];

/** The movements CSV's columns, in order. */
export const MOVEMENT_HEADER = [
  "Movement ID",
  "Type",
  "Status",
  "Claim number",
  "Rego",
  "Repair shop",
  "HQ location",
  "Picked up by",
  "Picked up at",
  "Dropped off by",
  "Dropped off at",
  "Parts",
  "Part numbers",
];

/** Pulls batches after the last id seen, until one comes back empty. */
function keyset<T extends { id: number }>(fetch: (afterId: number) => Promise<T[]>): () => Promise<T[]> {
  let afterId = 0;
  return async () => {
    const rows = await fetch(afterId);
    if (rows.length) afterId = rows[rows.length - 1].id;
    return rows;
  };
}

/** The parts CSV as a byte stream, times in the depot's zone. */
export function partsCsv(db: Db, filters: PartFilters, timeZone: string): ReadableStream<Uint8Array> {
  const next = keyset((afterId) => partExportBatch(db, filters, afterId, EXPORT_BATCH));
  return csvStream(PART_HEADER, next, (p: PartExportRow) => [
    p.id,
    p.part_no,
    p.description,
    p.qty_ordered,
    p.status,
    p.updated_at,
    p.claim_number,
    p.registration,
    p.repairer_name,
    p.arrived_at,
    p.delivered_at,
    p.flagged_at,
    p.picked_up_at,
    p.returned_at,
  ], timeZone);
}

/** The movements CSV as a byte stream, times in the depot's zone. */
export function movementsCsv(db: Db, filters: MovementFilters, timeZone: string): ReadableStream<Uint8Array> {
  const next = keyset((afterId) => movementExportBatch(db, filters, afterId, EXPORT_BATCH));
  return csvStream(MOVEMENT_HEADER, next, (m: MovementExportRow) => [
    m.id,
    m.movement_type,
    m.movement_status,
    m.claim_number,
    m.registration,
    m.repairer_name,
    m.hq_name,
    m.picked_up_by_name,
    m.pick_up_at,
    m.dropped_off_by_name,
    m.dropped_off_at,
    m.part_count,
    m.part_numbers,
  ], timeZone);
}
