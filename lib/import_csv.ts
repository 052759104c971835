/**
 * The import's CSV files (docs/import.md): one kind of row per file (claims with their parts, repair shops,
 * HQ locations, users), each turned into the import's JSON document (lib/import_validation.ts) so every row
 * gets the same validation and the same messages; problems are then named by the file's line (the header is
 * line 1) and column. A file that is not what was chosen (JSON, a workbook, another kind's CSV, semicolons,
 * no rows) is told apart before any parsing, with a message saying what was expected and what was found.
 */
import { readCsv } from "@/io/csv.ts";
import { CSV_FORMATS, CSV_KINDS, type CsvKind, type UploadKind } from "@/lib/import_csv_formats.ts";
import type { ImportProblem } from "@/lib/import_validation.ts";

/** An upload read: the document to import (and where each of its rows is in the file), or why not. */
export type UploadRead =
  | { ok: true; input: unknown; lines: LineMap | null; problems: ImportProblem[] }
  | { ok: false; message: string };

/** A row's path in the document (`claims[2]`, `claims[2].parts[0]`) → its line in the CSV file. */
export type LineMap = Map<string, number>;

const choose = (kind: UploadKind) => kind === "json" ? "JSON document" : `${CSV_FORMATS[kind].label} (CSV)`;

/** The start of the text, to show as what was found. */
function opening(text: string): string {
  const first = text.trimStart().split(/\r\n|\r|\n/, 1)[0];
  return JSON.stringify(first.length > 60 ? first.slice(0, 60) + "…" : first);
}

/** What a file that is not text is, by its first bytes. */
function binaryKind(bytes: Uint8Array): string | null {
  const starts = (...b: number[]) => b.every((x, i) => bytes[i] === x);
  if (starts(0x50, 0x4b, 0x03, 0x04)) return "a spreadsheet workbook or other zip file (.xlsx, .ods)";
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return "an old-style Excel workbook (.xls)";
  if (starts(0x25, 0x50, 0x44, 0x46)) return "a PDF";
  if (bytes.subarray(0, 4096).includes(0)) return "a binary file";
  return null;
}

/**
 * Reads an uploaded file as the kind chosen. Never passes on a parser's own error text: each refusal says
 * what was expected and what the file is.
 */
export function readUpload(kind: UploadKind, name: string, bytes: Uint8Array): UploadRead {
  const expected = kind === "json"
    ? "the import's JSON document"
    : `a CSV of ${CSV_FORMATS[kind].label.toLowerCase()} (a header line, then one line per row)`;
  if (bytes.length === 0) return { ok: false, message: `${name} is empty: expected ${expected}.` };
  const binary = binaryKind(bytes);
  if (binary) {
    return {
      ok: false,
      message: `${name} is ${binary}, not text: expected ${expected}. ` +
        (kind === "json" ? "" : 'In the spreadsheet, save the sheet as "CSV UTF-8 (comma delimited)".'),
    };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return {
      ok: false,
      message: `${name} is not UTF-8 text: expected ${expected} saved as UTF-8 ` +
        '(in a spreadsheet: "CSV UTF-8 (comma delimited)").',
    };
  }
  if (text.trim() === "") {
    return { ok: false, message: `${name} holds only blank space: expected ${expected}.` };
  }
  const looksJson = /^[\s]*[[{]/.test(text);
  if (kind === "json") {
    try {
      return { ok: true, input: JSON.parse(text), lines: null, problems: [] };
    } catch {
      const csv = looksJson ? null : csvKindOf(text);
      if (csv) {
        return {
          ok: false,
          message: `${name} is a CSV of ${CSV_FORMATS[csv].label.toLowerCase()}, not JSON: choose ` +
            `"${choose(csv)}" as what the file holds.`,
        };
      }
      return {
        ok: false,
        message: looksJson
          ? `${name} is not valid JSON (a comma, quote or bracket is missing or extra): expected ${expected}.`
          : `${name} is not JSON: expected ${expected} (an object such as {"claims": […]}); it starts ${
            opening(text)
          }.`,
      };
    }
  }
  if (looksJson) {
    return {
      ok: false,
      message: `${name} is JSON, not CSV: choose "${
        choose("json")
      }" as what the file holds, or upload ${expected}.`,
    };
  }
  return readCsvUpload(kind, name, text);
}

/** The header's names as compared: trimmed, lower case, spaces as underscores. */
const headerName = (s: string) => s.trim().toLowerCase().replace(/\s+/g, "_");

/** The CSV kind whose required columns a file's first line has, if exactly one. */
function csvKindOf(text: string): CsvKind | null {
  const first = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/, 1)[0];
  return kindOfHeader(first.split(",").map(headerName));
}

function kindOfHeader(header: string[]): CsvKind | null {
  const fits = CSV_KINDS.filter((k) => {
    const names = CSV_FORMATS[k].columns.map((c) => c.name);
    return CSV_FORMATS[k].columns.every((c) => !c.required || header.includes(c.name)) &&
      header.every((h) => h === "" || names.includes(h));
  });
  return fits.length === 1 ? fits[0] : null;
}

function readCsvUpload(kind: CsvKind, name: string, text: string): UploadRead {
  const format = CSV_FORMATS[kind];
  const names = format.columns.map((c) => c.name);
  const expectedColumns = `${names.join(", ")} (required: ${
    format.columns.filter((c) => c.required).map((c) => c.name).join(", ")
  })`;
  const firstLine = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/, 1)[0];
  if (!firstLine.includes(",") && /[;\t]/.test(firstLine)) {
    const sep = firstLine.includes(";") ? "semicolons (;)" : "tabs";
    return {
      ok: false,
      message: `${name} separates its columns with ${sep}; the import reads commas. In the spreadsheet, ` +
        `save as "CSV UTF-8 (comma delimited)". Expected the columns ${expectedColumns}.`,
    };
  }
  const read = readCsv(text);
  if (!read.ok) {
    return { ok: false, message: `${name} is not well-formed CSV: line ${read.line}: ${read.problem}.` };
  }
  const [head, ...rest] = read.records;
  const header = head.cells.map(headerName);
  const found = head.cells.map((c) => c.trim()).join(", ");
  const other = kindOfHeader(header);
  if (other && other !== kind) {
    return {
      ok: false,
      message: `${name} is a CSV of ${CSV_FORMATS[other].label.toLowerCase()} (its columns: ${found}), but ` +
        `"${choose(kind)}" was chosen, which has the columns ${expectedColumns}. Choose "${choose(other)}".`,
    };
  }
  const missing = format.columns.filter((c) => c.required && !header.includes(c.name)).map((c) => c.name);
  const unknown = head.cells.filter((c, i) => c.trim() !== "" && !names.includes(header[i]));
  const twice = header.filter((h, i) => h !== "" && header.indexOf(h) !== i);
  if (missing.length || unknown.length || twice.length) {
    const what = [
      missing.length ? `lacks the column(s) ${missing.join(", ")}` : "",
      unknown.length
        ? `has unknown column(s) ${unknown.map((u) => JSON.stringify(u.trim())).join(", ")}`
        : "",
      twice.length ? `names the column(s) ${[...new Set(twice)].join(", ")} twice` : "",
    ].filter(Boolean).join(" and ");
    return {
      ok: false,
      message: `${name} ${what}: its first line has ${found || "nothing"}; a ${format.label.toLowerCase()} ` +
        `CSV has the columns ${expectedColumns} (download the template below).`,
    };
  }
  const problems: ImportProblem[] = [];
  const rows: { line: number; cells: Record<string, string> }[] = [];
  for (const record of rest) {
    // A line of empty cells (a spreadsheet's trailing rows) is no row.
    if (record.cells.every((c) => c.trim() === "")) continue;
    const extra = record.cells.slice(header.length).some((c) => c.trim() !== "");
    if (record.cells.length < header.length || extra) {
      problems.push({
        path: `line ${record.line}`,
        problem: `has ${record.cells.length} cells; the header has ${header.length} columns`,
      });
      continue;
    }
    const cells: Record<string, string> = {};
    header.forEach((h, i) => {
      if (h !== "") cells[h] = record.cells[i].trim();
    });
    rows.push({ line: record.line, cells });
  }
  if (rows.length === 0 && problems.length === 0) {
    return {
      ok: false,
      message: `${name} has a header line but no rows: expected one line per ${
        format.label.toLowerCase().replace(/s$/, "")
      } after it.`,
    };
  }
  const lines: LineMap = new Map();
  const input = kind === "claims"
    ? claimsDocument(rows, lines, problems)
    : { [kind]: rows.map((r, i) => (lines.set(`${kind}[${i}]`, r.line), rowOf(kind, r.cells))) };
  return { ok: true, input, lines, problems };
}

/** A cell as the JSON document would hold it: blank is absent, numbers and booleans typed when they read so. */
function value(column: string, cell: string | undefined): unknown {
  if (cell === undefined || cell === "") return undefined;
  if (["latitude", "longitude", "qty"].includes(column) && /^[+-]?\d+(\.\d+)?$/.test(cell)) {
    return Number(cell);
  }
  if (column === "active" && /^(true|false)$/i.test(cell)) return cell.toLowerCase() === "true";
  if (column === "emails") return cell.split(/[;,\s]+/).filter(Boolean);
  return cell;
}

/** One row of a kind other than claims; required text stays as given (blank → "must not be empty"). */
function rowOf(kind: CsvKind, cells: Record<string, string>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of CSV_FORMATS[kind].columns) {
    const v = c.required ? (cells[c.name] ?? "") : value(c.name, cells[c.name]);
    if (v !== undefined) row[c.name] = v;
  }
  return row;
}

/**
 * Claims from lines of parts: the lines of one claim (by claim_number, anywhere in the file) make one
 * claim; its registration and repairer are given on its first line and repeated or left blank on the
 * others (a different one is a problem of that line). A blank repairer: no claims management record.
 */
function claimsDocument(
  rows: { line: number; cells: Record<string, string> }[],
  lines: LineMap,
  problems: ImportProblem[],
) {
  const claims: { claim_number: string; registration: string; management?: unknown; parts: unknown[] }[] = [];
  const byNumber = new Map<string, { index: number; line: number }>();
  for (const { line, cells } of rows) {
    const number = cells.claim_number ?? "";
    let at = number === "" ? undefined : byNumber.get(number);
    if (!at) {
      at = { index: claims.length, line };
      if (number !== "") byNumber.set(number, at);
      lines.set(`claims[${at.index}]`, line);
      claims.push({
        claim_number: number,
        registration: cells.registration ?? "",
        ...(cells.repairer ? { management: { repairer: cells.repairer } } : {}),
        parts: [],
      });
    } else {
      const claim = claims[at.index];
      const repairer = (claim.management as { repairer: string } | undefined)?.repairer ?? "";
      for (const [column, first] of [["registration", claim.registration], ["repairer", repairer]]) {
        const cell = cells[column] ?? "";
        if (cell !== "" && cell !== first) {
          problems.push({
            path: `line ${line}, ${column}`,
            problem: `differs from line ${at.line} of the same claim (${JSON.stringify(first)})`,
          });
        }
      }
    }
    const part = ["part_no", "description", "qty", "status"].some((c) => (cells[c] ?? "") !== "");
    if (part) {
      const claim = claims[at.index];
      lines.set(`claims[${at.index}].parts[${claim.parts.length}]`, line);
      const qty = value("qty", cells.qty);
      claim.parts.push({
        part_no: cells.part_no ?? "",
        description: cells.description ?? "",
        ...(qty === undefined ? {} : { qty }),
        status: cells.status ?? "",
      });
    }
  }
  return { claims };
}

/**
 * A problem of the document named as the file's line and column: `claims[2].parts[0].status` →
 * `line 5, status`; `claims[2].management.repairer` → `line 4, repairer`.
 */
export function problemsInFile(problems: ImportProblem[], lines: LineMap | null): ImportProblem[] {
  if (!lines) return problems;
  return problems.map((p) => {
    const m = /^(\w+\[\d+\](?:\.parts\[\d+\])?)(?:\.(\w+))?/.exec(p.path);
    const line = m ? lines.get(m[1]) : undefined;
    if (!m || line === undefined) return p;
    const column = m[2] === "management" ? "repairer" : m[2];
    return { path: column ? `line ${line}, ${column}` : `line ${line}`, problem: p.problem };
  });
}
