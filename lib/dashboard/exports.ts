/**
 * The dashboard's CSV exports of parts and movements (same filters as their lists). Streamed: rows are
 * fetched EXPORT_BATCH at a time by keyset as the client reads (io/csv.ts), never the whole export in memory.
 * Text cells lose any bidirectional control (lib/validation.ts), so a cell reads as what it holds.
 */
import type { Db } from "@/db/client.ts";
import { partExportBatch, type PartExportRow, type PartFilters } from "@/db/queries/parts.ts";
import {
  movementExportBatch,
  type MovementExportRow,
  type MovementFilters,
} from "@/db/queries/movement_reads.ts";
import { csvStream, type CsvValue } from "@/io/csv.ts";
import { stripBidi } from "@/lib/validation.ts";

/**
 * Rows per batch: one batch (a few MB of rows and their CSV text) is all an export holds at once. 500 spent
 * a round trip and a plan per 500 rows, a tenth of the time of a 3-million-part export (issue 14).
 */
export const EXPORT_BATCH = 2000;

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

/**
 * Pulls batches after the last id seen, until one comes back empty. The first batch is read before the
 * stream exists, so a database fault or timeout there is answered 503 before any byte of the file is sent
 * instead of a 200 that breaks off. Each batch handed out starts the read of the next one, so the database
 * works on batch k+1 (in its own process, on the server) while batch k is turned into CSV: two batches at
 * most are held, and one read may outlive a download the client gave up.
 */
async function keyset<T extends { id: number }>(
  fetch: (afterId: number) => Promise<T[]>,
): Promise<() => Promise<T[]>> {
  const after = (rows: T[]) => rows.length ? fetch(rows[rows.length - 1].id) : Promise.resolve([]);
  const first = await fetch(0);
  let ahead: Promise<T[]> = after(first);
  // A read ahead that fails after the client went away has no reader: it must not be an unhandled rejection.
  ahead.catch(() => {});
  let pending: T[] | undefined = first;
  return () => {
    if (pending) {
      const rows = pending;
      pending = undefined;
      return Promise.resolve(rows);
    }
    const current = ahead;
    ahead = current.then(after);
    ahead.catch(() => {});
    return current;
  };
}

/**
 * A row's cells without bidirectional controls (lib/validation.ts), also for rows older than that rule;
 * cleaned in place, the row array is the export's own.
 */
const cleanCells = <T>(toRow: (item: T) => CsvValue[]) => (item: T) => {
  const row = toRow(item);
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (typeof v === "string") row[i] = stripBidi(v);
  }
  return row;
};

/** The parts CSV as a byte stream, times in the depot's zone. */
export async function partsCsv(
  db: Db,
  filters: PartFilters,
  timeZone: string,
): Promise<ReadableStream<Uint8Array>> {
  const next = await keyset((afterId) => partExportBatch(db, filters, afterId, EXPORT_BATCH));
  return csvStream(
    PART_HEADER,
    next,
    cleanCells((p: PartExportRow) => [
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
    ]),
    timeZone,
  );
}

/** The movements CSV as a byte stream, times in the depot's zone. */
export async function movementsCsv(
  db: Db,
  filters: MovementFilters,
  timeZone: string,
): Promise<ReadableStream<Uint8Array>> {
  const next = await keyset((afterId) => movementExportBatch(db, filters, afterId, EXPORT_BATCH));
  return csvStream(
    MOVEMENT_HEADER,
    next,
    cleanCells((m: MovementExportRow) => [
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
    ]),
    timeZone,
  );
}
