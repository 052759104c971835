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
  return format === "json"
    ? getJsonLinesFormatter({ properties: "flatten", message: "template" })
    : getTextFormatter({ value: bareValue });
}

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
    write
      ? (record) => write(formatter(record).replace(/\r?\n$/, ""), record)
      : standardStreamSink(formatter),
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
  return (record) => {
    const stream = ERROR_LEVELS.has(record.level) ? Deno.stderr : Deno.stdout;
    const bytes = encoder.encode(formatter(record).replace(/\r?\n$/, "") + "\n"); // one line, as console.* wrote
    for (let written = 0; written < bytes.length;) written += stream.writeSync(bytes.subarray(written));
  };
}

/** Back to the default a program starts with: errors alone, as text, on the console. */
export function resetLogging(): void {
  configureLogging({ format: "text", level: "error" });
}

if (getConfig() === null) resetLogging();
