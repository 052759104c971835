/**
 * The dashboard's CSV exports of parts and movements (same filters as their lists). Streamed: rows are
 * fetched EXPORT_BATCH at a time by keyset as the client reads (io/csv.ts), never the whole export in memory.
 * Text cells lose any bidirectional control (lib/validation.ts), so a cell reads as what it holds.
 */
import type { Db } from "@/db/client.ts";
import type { PartFilters } from "@/db/queries/parts.ts";
import { type ExportBatch, partExportBatch, type PartExportRow } from "@/db/queries/part_export.ts";
import {
  movementExportBatch,
  type MovementExportRow,
  type MovementFilters,
} from "@/db/queries/movement_reads.ts";
import { csvRow, csvStream, csvText, type CsvValue } from "@/io/csv.ts";
import { isoInZone } from "@/io/time_zone.ts";
import { stripBidi } from "@/lib/validation.ts";

/**
 * Rows per batch: one batch (a few MB of rows and their CSV text) is all an export holds at once. 500 spent
 * a round trip and a plan per 500 rows, a tenth of the time of a 3-million-part export (docs/performance.md
 * "Dashboard at 1M claims").
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
 * instead of a 200 that breaks off. Each batch handed out starts the read of the next one as soon as its
 * own last id is known (for the parts, when its parts are in, while its claims are still being read), so the
 * database works on batch k+1 (in its own processes, on the server) while batch k is turned into CSV: two
 * batches at most are held, and one read may outlive a download the client gave up.
 */
async function keyset<T>(fetch: (afterId: number) => ExportBatch<T>): Promise<() => Promise<T[]>> {
  // A read ahead that fails after the client went away has no reader: it must not be an unhandled rejection.
  const quiet = <P>(p: Promise<P>) => (p.catch(() => {}), p);
  const after = (batch: ExportBatch<T>): ExportBatch<T> => {
    const next = batch.lastId.then((id) => id === undefined ? undefined : fetch(id));
    return {
      lastId: quiet(next.then((b) => b?.lastId)),
      rows: quiet(next.then((b) => b ? b.rows : [])),
    };
  };
  const first = fetch(0);
  quiet(first.lastId);
  let pending: T[] | undefined = await first.rows;
  let ahead = after(first);
  return () => {
    if (pending) {
      const rows = pending;
      pending = undefined;
      return Promise.resolve(rows);
    }
    const current = ahead;
    ahead = after(current);
    return current.rows;
  };
}

/** A whole batch read at once: its last id when its rows are in. */
function whole<T extends { id: number }>(rows: Promise<T[]>): ExportBatch<T> {
  return { lastId: rows.then((r) => r.at(-1)?.id), rows };
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

/** A text cell as cleanCells and csvCell write it. */
const text = (s: string | null) => s === null ? "" : csvText(stripBidi(s));

/**
 * The parts CSV's line, the cells csvRow would write for [id, part no., …, returned at] cleaned by
 * cleanCells, built without a cell array or a Date (a 3 000 000-part export: docs/performance.md "Dashboard
 * at 1M claims"); tests/hq_exports_test.ts checks it against csvRow.
 */
function partLine(p: PartExportRow, zone: string): string {
  const time = (ms: number | null) =>
    ms === null ? "" : Number.isFinite(ms) ? csvText(isoInZone(ms, zone)) : String(ms);
  return p.id + "," + text(p.part_no) + "," + text(p.description) + "," + p.qty_ordered + "," +
    text(p.status) + "," + time(p.updated_at) + "," + text(p.claim_number) + "," + text(p.registration) +
    "," + text(p.repairer_name) + "," + time(p.arrived_at) + "," + time(p.delivered_at) + "," +
    time(p.flagged_at) + "," + time(p.picked_up_at) + "," + time(p.returned_at) + "\r\n";
}

/** The parts CSV as a byte stream, times in the depot's zone. */
export async function partsCsv(
  db: Db,
  filters: PartFilters,
  timeZone: string,
): Promise<ReadableStream<Uint8Array>> {
  const next = await keyset((afterId) => partExportBatch(db, filters, afterId, EXPORT_BATCH));
  return csvStream(PART_HEADER, next, (p) => partLine(p, timeZone));
}

/** The movements CSV as a byte stream, times in the depot's zone. */
export async function movementsCsv(
  db: Db,
  filters: MovementFilters,
  timeZone: string,
): Promise<ReadableStream<Uint8Array>> {
  const next = await keyset((afterId) => whole(movementExportBatch(db, filters, afterId, EXPORT_BATCH)));
  const cells = cleanCells((m: MovementExportRow) => [
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
  ]);
  return csvStream(MOVEMENT_HEADER, next, (m) => csvRow(cells(m), timeZone));
}
