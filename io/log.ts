/**
 * The service's logs, through LogTape (docs/operations.md "Logs"): records with properties, written as
 * one JSON line each (`LOG_FORMAT=json`, for a log pipeline) or as readable text (`text`, development).
 * Every logger sits under the category `parts-movement`; `logger(area)` names the area (http, announcements,
 * purge, db, start). Messages name their main properties in `{braces}`, so the text format shows them too.
 *
 * What is logged is chosen by the callers, never a request's raw URL, headers or body: secrets (tokens,
 * PINs, the public key, cookies, webhook URLs) never reach a record (tests/logs_test.ts proves it).
 *
 * Until a program calls `configureLogging` (tasks/start.ts does, from the configuration), errors alone go
 * to the console as text: a test or a task that never configures logging still sees a fault, and nothing
 * else.
 */
import {
  configureSync,
  getConfig,
  getJsonLinesFormatter,
  getLogger,
  getTextFormatter,
  type Logger,
  type LogRecord,
  sanitizeControlSequences,
  type Sink,
  type TextFormatter,
} from "@logtape/logtape";
import type { LogFormat, LogLevel } from "@/io/config.ts";

export const LOG_ROOT = "parts-movement";

export type LogArea = "http" | "announcements" | "purge" | "db" | "start";

/** The logger of one area of the service. */
export function logger(area: LogArea): Logger {
  return getLogger([LOG_ROOT, area]);
}

/**
 * One record as one line. JSON: the properties at the top level, and the message as its template (the
 * same text for every record of a kind, easy to group by). Text: the message with its values, strings
 * bare.
 */
export function formatterOf(format: LogFormat): TextFormatter {
  return format === "json" ? jsonLinesFormatter() : getTextFormatter({ value: bareValue });
}

/** LogTape's JSON lines (properties flattened, the message as its template), with a fast path. */
function jsonLinesFormatter(): TextFormatter {
  const general = getJsonLinesFormatter({ properties: "flatten", message: "template" });
  return (record) => {
    if (typeof record.rawMessage !== "string") return general(record);
    // What `general` writes for a record of strings, numbers and booleans, character for character
    // (tests/logs_test.ts compares both), built without its replacer (errors, BigInts, cycles: none here)
    // and without an object to stringify: 6.9 → 2.9 µs of CPU a request line (docs/search-path.md).
    let line = `{"@timestamp":"${new Date(record.timestamp).toISOString()}","level":"${
      record.level === "warning" ? "WARN" : record.level.toUpperCase()
    }","message":${JSON.stringify(record.rawMessage)},"logger":${JSON.stringify(record.category.join("."))}`;
    const { properties } = record;
    for (const key in properties) {
      const value = properties[key];
      if (value === undefined) continue;
      const type = typeof value;
      // Another type, or a property named like a field above (it would replace that field): LogTape's own.
      if ((value !== null && type !== "string" && type !== "number" && type !== "boolean") || key in FIELDS) {
        return general(record);
      }
      line += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
    }
    line += "}";
    return (C1_CONTROLS.test(line) ? line.replace(C1_CONTROLS_ALL, escapeC1) : line) + "\n";
  };
}

/** The fields every JSON line starts with. */
const FIELDS = { "@timestamp": true, level: true, message: true, logger: true, __proto__: null };

/** DEL and the C1 controls, which JSON.stringify leaves raw and LogTape's JSON lines escape as \u00XX. */
const C1_CONTROLS = /[\u007f-\u009f]/;
const C1_CONTROLS_ALL = /[\u007f-\u009f]/g;
const escapeC1 = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** LogTape's escaping of a "bare" string value: control sequences and line breaks shown, not obeyed. */
const BARE_ESCAPES = { sgr: "escape", newlines: "escape" } as const;

/**
 * LogTape's `value: "bare"` (strings as they are, escaped; anything else inspected), with numbers written
 * directly: Deno.inspect of the request line's status and duration was ~15 µs of every request,
 * and gives the same text for a number (`-0` included).
 */
function bareValue(value: unknown, inspect: (value: unknown) => string): string {
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  return typeof value === "string" ? sanitizeControlSequences(value, BARE_ESCAPES) : inspect(value);
}

export interface LogSetup {
  format: LogFormat;
  level: LogLevel;
  /**
   * Where formatted lines go; default the console (info and below on stdout, warnings and errors on
   * stderr). Tests capture lines here.
   */
  write?: (line: string, record: LogRecord) => void;
}

/** (Re)configures every logger of the process; the last call wins. */
export function configureLogging({ format, level, write }: LogSetup): void {
  const formatter = formatterOf(format);
  const out: Sink = immediate(
    write ? (record) => write(withoutLineEnd(formatter(record)), record) : standardStreamSink(formatter),
  );
  configureSync({
    reset: true,
    sinks: { out },
    loggers: [
      { category: [LOG_ROOT], sinks: ["out"], lowestLevel: level },
      // LogTape's own warnings (a sink that threw, …), so they are not lost.
      { category: ["logtape", "meta"], sinks: ["out"], lowestLevel: "warning" },
    ],
  });
}

/**
 * Marks a sink as done with each record before it returns (LogTape's own stream and console sinks are marked
 * so, through this registered symbol). Without the mark LogTape copies every record, and its properties,
 * through property descriptors into a new object before handing it over: a third of the request line's cost
 * (docs/performance.md "Search path"). Both sinks here format and write the record synchronously, so the copy
 * guards nothing.
 */
function immediate(sink: Sink): Sink {
  return Object.defineProperty(sink, Symbol.for("LogTape.sinkSnapshotPolicy.immediate"), { value: true });
}

const encoder = new TextEncoder();
const ERROR_LEVELS = new Set<LogRecord["level"]>(["warning", "error", "fatal"]);

/**
 * Each formatted line written straight to stdout (info and below) or stderr (warnings and errors), as
 * LogTape's console sink does, without the console's own argument handling: one log line per request is on
 * the search path, where the console's formatting of an already formatted string was 1–2 % of a request.
 */
function standardStreamSink(formatter: TextFormatter): Sink {
  // One buffer for every line (grown for a longer one): no new array for each request's line.
  let buffer = new Uint8Array(1024);
  return (record) => {
    const stream = ERROR_LEVELS.has(record.level) ? Deno.stderr : Deno.stdout;
    let line = formatter(record); // LogTape's formatters end each line with "\n" (no "crlf" option is set)
    if (!line.endsWith("\n")) line += "\n"; // one line, as console.* wrote
    // UTF-8 takes at most 3 bytes for each UTF-16 unit.
    if (line.length * 3 > buffer.length) buffer = new Uint8Array(line.length * 3);
    const bytes = buffer.subarray(0, encoder.encodeInto(line, buffer).written);
    for (let written = 0; written < bytes.length;) written += stream.writeSync(bytes.subarray(written));
  };
}

/** The line without its line ending. */
const withoutLineEnd = (line: string) => line.endsWith("\n") ? line.slice(0, -1) : line;

/** Back to the default a program starts with: errors alone, as text, on the console. */
export function resetLogging(): void {
  configureLogging({ format: "text", level: "error" });
}

if (getConfig() === null) resetLogging();
