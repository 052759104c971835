/**
 * CSV for the dashboard's exports (RFC 4180 quoting, CRLF line ends, UTF-8 with a byte order mark so
 * Excel reads accents correctly), safe against formula injection, and streamed: rows are pulled batch by
 * batch from the database as the client reads, so an export of a million parts never sits in memory.
 */
import { isoInZone } from "@/io/time_zone.ts";

export type CsvValue = string | number | boolean | Date | null | undefined;

/**
 * A spreadsheet treats a cell starting with one of these as a formula (OWASP "CSV injection"): = + - @ tab
 * CR, by character code (a cell is checked millions of times in a big export).
 */
const FORMULA_START = new Set([0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);
const MUST_QUOTE = /[",\r\n]/;

/**
 * One cell: dates as ISO 8601 in the depot's zone with its offset ("2026-11-21T20:30:00.000+11:00", "Z"
 * in UTC), text defused against formulas, quoted when it must be.
 */
export function csvCell(value: CsvValue, timeZone: string): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return csvText(value instanceof Date ? isoInZone(value, timeZone) : value);
}

/** A text cell: defused against formulas, quoted when it must be (what csvCell writes for a string). */
export function csvText(text: string): string {
  if (FORMULA_START.has(text.charCodeAt(0))) text = `'${text}`;
  return MUST_QUOTE.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line, CRLF-ended (built by concatenation: no array per row, a large export writes millions). */
export function csvRow(values: readonly CsvValue[], timeZone: string): string {
  let line = values.length ? csvCell(values[0], timeZone) : "";
  for (let i = 1; i < values.length; i++) line += "," + csvCell(values[i], timeZone);
  return line + "\r\n";
}

const BOM = "\uFEFF";

/**
 * A byte stream of a CSV file: the header, then a line (`toLine`, csvRow or one of its own, CRLF-ended) for
 * each item of each batch `nextBatch` returns, until it returns an empty batch. `nextBatch` is called only
 * when the reader wants more (back-pressure), so a slow download holds at most one batch. Cancelling the
 * stream (client went away) stops the fetching.
 */
export function csvStream<T>(
  header: readonly string[],
  nextBatch: () => Promise<T[]>,
  toLine: (item: T) => string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(BOM + header.map(csvText).join(",") + "\r\n"));
        return;
      }
      const batch = await nextBatch();
      if (batch.length === 0) {
        controller.close();
        return;
      }
      let text = "";
      for (const item of batch) text += toLine(item);
      controller.enqueue(encoder.encode(text));
    },
  }, { highWaterMark: 0 });
}

/**
 * Parses CSV text (as written above) back into rows of strings. For tests and checks; a leading BOM is
 * skipped.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  let i = text.startsWith(BOM) ? 1 : 0;
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      // CRLF ends the row; the \n is skipped with it.
    } else if (ch === "\n" || ch === "\r") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
