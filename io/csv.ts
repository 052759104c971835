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

/** One record of a CSV file read by readCsv: its cells and the line it starts on (the first line is 1). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/** What readCsv found: every record, or the first thing that is not RFC 4180 CSV, with its line. */
export type CsvRead = { ok: true; records: CsvRecord[] } | { ok: false; line: number; problem: string };

/**
 * Reads CSV text strictly (RFC 4180, as written above, and as spreadsheets save it): cells separated by
 * commas, records by CRLF, LF or CR; a quoted cell may hold commas, line breaks and doubled quotes. A
 * leading BOM is skipped; a last line break ends the last record without starting another. Anything else
 * (a quote inside an unquoted cell, text after a closing quote, a quote never closed) is refused with its
 * line, rather than guessed at: the import (lib/import_csv.ts) must not read a cell other than as written.
 * Written here because no CSV reader is in the import map and this is all the import needs
 * (docs/import.md "Why our own reader").
 */
export function readCsv(text: string): CsvRead {
  const records: CsvRecord[] = [];
  let row: string[] = [];
  let cell = "";
  let line = 1;
  let recordLine = 1;
  // Whether the current cell was quoted: `""` alone on the last line is still a record of one empty cell.
  let quoted = false;
  let i = text.startsWith(BOM) ? 1 : 0;
  const endRecord = () => {
    row.push(cell);
    records.push({ line: recordLine, cells: row });
    row = [];
    cell = "";
    quoted = false;
  };
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      if (cell !== "") {
        return { ok: false, line, problem: 'a cell has a quote (") inside it but does not start with one' };
      }
      const opened = line;
      i++;
      for (;;) {
        if (i >= text.length) return { ok: false, line: opened, problem: "a quoted cell is never closed" };
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === "\r" || q === "\n") {
          if (q === "\n" || text[i + 1] !== "\n") line++;
        }
        cell += q;
        i++;
      }
      const next = text[i];
      if (next !== undefined && next !== "," && next !== "\r" && next !== "\n") {
        return { ok: false, line, problem: "a quoted cell has text after its closing quote" };
      }
      quoted = true;
      continue;
    }
    if (ch === ",") {
      row.push(cell);
      cell = "";
      quoted = false;
      i++;
    } else if (ch === "\r" || ch === "\n") {
      endRecord();
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      recordLine = line;
    } else {
      cell += ch;
      i++;
    }
  }
  if (cell !== "" || quoted || row.length > 0) endRecord();
  return { ok: true, records };
}

/** Parses CSV text (as written above) back into rows of strings, for tests and checks; throws if malformed. */
export function parseCsv(text: string): string[][] {
  const read = readCsv(text);
  if (!read.ok) throw new Error(`CSV line ${read.line}: ${read.problem}`);
  return read.records.map((r) => r.cells);
}
