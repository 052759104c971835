import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { csvCell, csvRow, csvStream, parseCsv, readCsv } from "@/io/csv.ts";

Deno.test("csv: cells are quoted only when needed, quotes doubled", () => {
  assert.equal(csvCell("plain", "UTC"), "plain");
  assert.equal(csvCell("a,b", "UTC"), '"a,b"');
  assert.equal(csvCell('say "hi"', "UTC"), '"say ""hi"""');
  assert.equal(csvCell("two\nlines", "UTC"), '"two\nlines"');
  assert.equal(csvCell("cr\rhere", "UTC"), '"cr\rhere"');
  assert.equal(csvCell(null, "UTC"), "");
  assert.equal(csvCell(undefined, "UTC"), "");
  assert.equal(csvCell(42, "UTC"), "42");
  assert.equal(csvCell(-3, "UTC"), "-3", "numbers are data, not formulas");
  assert.equal(csvCell(new Date("2026-11-21T09:30:00Z"), "UTC"), "2026-11-21T09:30:00.000Z");
  assert.equal(csvCell("Ünïcødé ✓", "UTC"), "Ünïcødé ✓");
});

Deno.test("csv: dates are ISO 8601 in the depot's zone with its offset, the same instant", () => {
  const at = new Date("2026-11-21T09:30:00Z");
  assert.equal(csvCell(at, "Australia/Sydney"), "2026-11-21T20:30:00.000+11:00");
  assert.equal(csvCell(at, "America/New_York"), "2026-11-21T04:30:00.000-05:00");
  assert.equal(new Date(csvCell(at, "Australia/Sydney")).getTime(), at.getTime());
});

Deno.test("csv: text that a spreadsheet would run as a formula gets a leading apostrophe", () => {
  for (const start of ["=", "+", "-", "@", "\t", "\r"]) {
    const cell = csvCell(`${start}1+1`, "UTC");
    assert.ok(cell === `'${start}1+1` || cell === `"'${start}1+1"`, JSON.stringify(cell));
  }
  assert.equal(
    csvCell('=HYPERLINK("http://evil.example","x")', "UTC"),
    `"'=HYPERLINK(""http://evil.example"",""x"")"`,
  );
  assert.equal(csvCell("a=b", "UTC"), "a=b", "only the first character counts");
});

Deno.test("csv: rows end with CRLF", () => {
  assert.equal(csvRow(["a", 1, null, "b,c"], "UTC"), 'a,1,,"b,c"\r\n');
});

Deno.test("csv: any text survives a write and parse round trip (defused formulas keep their apostrophe)", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }),
      (rows) => {
        const text = rows.map((r) => csvRow(r, "UTC")).join("");
        const back = parseCsv(text);
        const expected = rows.map((r) => r.map((c) => (/^[=+\-@\t\r]/.test(c) ? `'${c}` : c)));
        assert.deepEqual(back, expected);
      },
    ),
    { numRuns: 300 },
  );
});

/** A cell as a spreadsheet writes it: quoted when it must be, no formula defusing (for the reader's tests). */
const plainCell = (c: string) => /[",\r\n]/.test(c) || c === "" ? `"${c.replaceAll('"', '""')}"` : c;

Deno.test("csv reader: any rows written with any line ends read back the same, each record at its line", () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.constantFrom("\r\n", "\n", "\r"), { minLength: 6, maxLength: 6 }),
      fc.boolean(),
      fc.boolean(),
      (rows, ends, bom, lastEnd) => {
        let text = bom ? "\uFEFF" : "";
        const lines: number[] = [];
        rows.forEach((r, i) => {
          // The line a record starts on: one more than the line breaks before it, quoted ones included.
          lines.push(1 + (text.match(/\r\n|\r|\n/g)?.length ?? 0));
          text += r.map(plainCell).join(",") + (i < rows.length - 1 || lastEnd ? ends[i] : "");
        });
        const read = readCsv(text);
        assert.ok(read.ok, JSON.stringify(read));
        assert.deepEqual(read.records.map((r) => r.cells), rows);
        assert.deepEqual(read.records.map((r) => r.line), lines);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("csv reader: any text either reads or is refused with a line inside it, never a throw", () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom("a", ",", '"', "\r", "\n", " ") }), (text) => {
      const read = readCsv(text);
      const lineCount = 1 + (text.match(/\r\n|\r|\n/g)?.length ?? 0);
      if (read.ok) {
        // What was read, written again, reads the same.
        const again = read.records.map((r) => r.cells.map(plainCell).join(",")).join("\n");
        const back = readCsv(again);
        assert.ok(back.ok);
        assert.deepEqual(back.records.map((r) => r.cells), read.records.map((r) => r.cells));
      } else {
        assert.ok(read.line >= 1 && read.line <= lineCount, JSON.stringify({ text, read }));
      }
    }),
    { numRuns: 1000 },
  );
});

Deno.test("csv reader: what is not RFC 4180 is refused with its line and why", () => {
  assert.deepEqual(readCsv('a,b\nc,d"e\n'), {
    ok: false,
    line: 2,
    problem: 'a cell has a quote (") inside it but does not start with one',
  });
  assert.deepEqual(readCsv('a\n"b"c\n'), {
    ok: false,
    line: 2,
    problem: "a quoted cell has text after its closing quote",
  });
  assert.deepEqual(readCsv('a\n"b\n\nc'), { ok: false, line: 2, problem: "a quoted cell is never closed" });
  assert.deepEqual(readCsv('""'), { ok: true, records: [{ line: 1, cells: [""] }] });
  assert.deepEqual(readCsv("a,\r\n"), { ok: true, records: [{ line: 1, cells: ["a", ""] }] });
});

Deno.test("csv: the stream starts with a BOM and the header, then pulls one batch per read", async () => {
  const batches = [[{ n: 1 }, { n: 2 }], [{ n: 3 }], []];
  let pulled = 0;
  const stream = csvStream(
    ["N", "Label"],
    () => {
      pulled++;
      return Promise.resolve(batches.shift() ?? []);
    },
    (r) => csvRow([r.n, `row ${r.n}`], "UTC"),
  );
  const reader = stream.getReader();
  const first = await reader.read();
  assert.equal(pulled, 0, "the header needs no database read");
  const bytes = first.value!;
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 byte order mark");
  assert.equal(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), "\uFEFFN,Label\r\n");
  await reader.read();
  assert.equal(pulled, 1, "one batch per read: back-pressure, not a loop over everything");
  const rest: string[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    rest.push(new TextDecoder().decode(r.value));
  }
  assert.equal(pulled, 3);
  assert.equal(rest.join(""), "3,row 3\r\n");
});

Deno.test("csv: cancelling the stream stops fetching", async () => {
  let pulled = 0;
  const stream = csvStream(
    ["N"],
    () => {
      pulled++;
      return Promise.resolve([{ n: pulled }]);
    },
    (r) => csvRow([r.n], "UTC"),
  );
  const reader = stream.getReader();
  await reader.read();
  await reader.read();
  await reader.cancel();
  const after = pulled;
  await new Promise((ok) => setTimeout(ok, 10));
  assert.equal(pulled, after);
});
