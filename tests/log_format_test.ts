/**
 * The JSON lines of io/log.ts: its fast path for records of plain values writes what LogTape's own JSON
 * lines formatter (properties flattened, message as its template) writes, character for character, and hands
 * any other record to it (docs/search-path.md "The layer, item by item").
 */
import assert from "node:assert/strict";
import { getJsonLinesFormatter, type LogRecord } from "@logtape/logtape";
import { formatterOf } from "@/io/log.ts";

const logtape = getJsonLinesFormatter({ properties: "flatten", message: "template" });
const ours = formatterOf("json");

const record = (properties: Record<string, unknown>, level: LogRecord["level"] = "info"): LogRecord => ({
  category: ["parts-movement", "http"],
  level,
  timestamp: 1795825562254,
  rawMessage: "{method} {route} {status} in {duration_ms} ms",
  message: [],
  properties,
});

Deno.test("log format: a request line's JSON is LogTape's, character for character", () => {
  const line = record({
    request_id: "0b7d3c1e-7a9e-4d43-9a55-1f3c2b4e5d6f",
    method: "POST",
    route: "/api/handler",
    status: 200,
    duration_ms: 1.3,
    source_address: "127.0.0.1",
  });
  assert.equal(ours(line), logtape(line));
});

Deno.test("log format: odd plain values and every level are written as LogTape writes them", () => {
  const odd = {
    nan: NaN,
    negative_zero: -0,
    absent: undefined,
    none: null,
    yes: true,
    text: 'a\u007fb\u009f\n"c\u2028\\',
  };
  for (const level of ["trace", "debug", "info", "warning", "error", "fatal"] as const) {
    assert.equal(ours(record(odd, level)), logtape(record(odd, level)));
  }
});

Deno.test("log format: errors, objects, BigInts and fields' own names go through LogTape's formatter", () => {
  for (
    const properties of [
      { error: new Error("boom") },
      { nested: { a: [1, 2] } },
      { big: 10n },
      { message: "replaced", level: "x" },
      {},
    ]
  ) {
    assert.equal(ours(record(properties)), logtape(record(properties)));
  }
  const template = (strings: TemplateStringsArray, ..._values: unknown[]) => strings;
  const parts: LogRecord = { ...record({ a: 1 }), rawMessage: template`a ${1}` };
  assert.equal(ours(parts), logtape(parts));
});
