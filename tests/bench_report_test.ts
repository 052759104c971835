/**
 * The bench's latest table (bench/report.ts, docs/performance.md "Running it"): the newest run's rows under its
 * own heading, and every row borrowed from an older run marked and its run named in a footnote.
 */
import assert from "node:assert/strict";
import { type BenchRun, latestFrom, type RecordedRow } from "@/bench/report.ts";

const ORDER = ["search", "upload", "dashboard"];

function row(group: string, database: RecordedRow["database"], median: number, target?: string): RecordedRow {
  return {
    group,
    database,
    figure: `${group} figure`,
    service: { median, min: median, max: median, n: 4 },
    vs: "baseline",
    baseline: 1,
    ratio: { median, min: median, max: median, n: 4 },
    target,
  };
}

function run(at: string, commit: string, host: string, rows: RecordedRow[], quick = false): BenchRun {
  return {
    at,
    commit,
    machine: { host, cpu: "test CPU", cores: 2, memoryGb: 8, loadAverage: [1, 1, 1] },
    deno: "2.9.6",
    claims: 1000,
    quick,
    groups: [...new Set(rows.map((r) => r.group))],
    seconds: { embedded: 1 },
    rows,
    failed: [],
  };
}

const dashboardRun = run("2026-11-20T10:00:00.000Z", "aaaaaaa", "big-host", [
  row("dashboard", "server", 0.41, "≤ 100 ms"),
]);
const fullRun = run("2026-11-21T10:00:00.000Z", "bbbbbbb", "vm", [
  row("search", "embedded", 0.83, "≥ 0.95"),
  row("upload", "embedded", 0.95, "≥ 0.75"),
  row("upload", "server", 0.96, "≥ 0.75"),
]);
const uploadRun = run("2026-11-22T10:00:00.000Z", "ccccccc", "vm", [
  row("upload", "embedded", 0.61, "≥ 0.75"),
  row("upload", "server", 0.62, "≥ 0.75"),
]);

Deno.test("latest: the newest run's table whole, under its heading, with nothing borrowed when it ran everything", () => {
  const table = latestFrom([fullRun], { groupOrder: ORDER });
  const [heading] = table.split("\n");
  assert.match(heading, /2026-11-21 10:00 UTC, commit bbbbbbb, host vm,/);
  assert.match(table, /\| embedded \| search figure \| 0\.83 /);
  assert.doesNotMatch(table, /\[1\]|another run/);
});

Deno.test("latest: rows of groups the newest run skipped are marked and their runs named in footnotes", () => {
  const table = latestFrom([dashboardRun, fullRun, uploadRun], { groupOrder: ORDER });
  const lines = table.split("\n");
  assert.match(lines[0], /commit ccccccc/, "the heading is the newest run's");
  assert.equal(lines.filter((l) => l.startsWith("Parts Movement bench")).length, 1, "one heading");
  // The newest run's rows as they are; the older upload rows are not shown at all.
  assert.match(table, /\| embedded \| upload figure \| 0\.61 /);
  assert.doesNotMatch(table, /upload figure \[|\| 0\.9[56] /);
  // Borrowed: the search from the full run [1], the dashboard from the older run on another host [2].
  assert.match(table, /\| embedded \| search figure \[1\] \| 0\.83 /);
  assert.match(table, /\| server \| dashboard figure \[2\] \| 0\.41 /);
  const footnote = (n: number) => lines.find((l) => l.startsWith(`[${n}] from another run:`));
  assert.match(footnote(1) ?? "", /2026-11-21 10:00 UTC, commit bbbbbbb, host vm/);
  assert.match(footnote(2) ?? "", /2026-11-20 10:00 UTC, commit aaaaaaa, host big-host/);
  assert.equal(footnote(3), undefined);
});

Deno.test("latest --headline: a borrowed cell carries its marker, the newest run's cells none", () => {
  const mixed = run("2026-11-23T10:00:00.000Z", "ddddddd", "vm", [row("upload", "embedded", 0.7, "≥ 0.75")]);
  const table = latestFrom([fullRun, mixed], { headline: true, groupOrder: ORDER });
  assert.match(table, /\| upload figure ÷ baseline \| 0\.70 \| 0\.96 \[1\] \| ≥ 0\.75 \|/);
  assert.match(table, /\| search figure ÷ baseline \| 0\.83 \[1\] \| — \| ≥ 0\.95 \|/);
  assert.match(table, /^\[1\] from another run: .*commit bbbbbbb/m);
  assert.doesNotMatch(table, /\[2\]/);
});

Deno.test("latest --headline: no footnote for a run none of whose shown rows it lent", () => {
  const untargeted = run("2026-11-20T09:00:00.000Z", "fffffff", "vm", [row("dashboard", "server", 3)]);
  const table = latestFrom([untargeted, fullRun], { headline: true, groupOrder: ORDER });
  assert.doesNotMatch(table, /another run|fffffff/);
  assert.match(
    latestFrom([untargeted, fullRun], { groupOrder: ORDER }),
    /^\[1\] from another run: .*fffffff/m,
  );
});

Deno.test("the heading names a --scale-url database and its claims", () => {
  const scaled = { ...dashboardRun, scale: { database: "db.example:5432/pm_scale_1m", claims: 1_000_000 } };
  assert.match(
    latestFrom([scaled], { groupOrder: ORDER }).split("\n")[0],
    /1000 claims \(dashboard scale: db\.example:5432\/pm_scale_1m, 1000000 claims, filled before\);/,
  );
});

Deno.test("latest: a quick run counts only while the history holds no full run", () => {
  const quick = run("2026-11-24T10:00:00.000Z", "eeeeeee", "vm", [row("search", "embedded", 0.5)], true);
  assert.match(latestFrom([fullRun, quick], { groupOrder: ORDER }).split("\n")[0], /commit bbbbbbb/);
  assert.match(latestFrom([quick], { groupOrder: ORDER }).split("\n")[0], /commit eeeeeee.*BENCH_QUICK/);
});

Deno.test("latest --headline: a budget row shows its figure when the target is the budget, else its ratio; rows without a database in a column of their own", () => {
  const budgetRow = (
    figure: string,
    database: RecordedRow["database"],
    service: number,
    budget: number,
    target: string,
  ) =>
    ({
      ...row("search", database, service, target),
      figure,
      vs: "budget",
      baseline: budget,
      ratio: service / budget,
    }) satisfies RecordedRow;
  const table = latestFrom([
    run("2026-11-24T10:00:00.000Z", "eeeeeee", "vm", [
      budgetRow("slowest page (ms)", "server", 40, 100, "≤ 100 ms"),
      budgetRow("delivery (ms) vs its limit", "—", 13000, 10000, "≤ 1.3"),
    ]),
  ], { headline: true, groupOrder: ORDER });
  assert.match(table, /^\| figure \| embedded \| server \| no database \| target \|$/m);
  assert.match(table, /\| slowest page \(ms\) \| — \| 40 \| — \| ≤ 100 ms \|/);
  assert.match(table, /\| delivery \(ms\) vs its limit \| — \| — \| 1\.30 \| ≤ 1\.3 \|/);
  // Without such a row, no such column.
  assert.doesNotMatch(latestFrom([fullRun], { headline: true, groupOrder: ORDER }), /no database/);
});

Deno.test("latest --database: only those databases' rows, footnotes only for the runs they borrow from", () => {
  const table = latestFrom([dashboardRun, fullRun, uploadRun], { groupOrder: ORDER, databases: ["server"] });
  assert.match(table, /\| server \| upload figure \| 0\.62 /);
  assert.match(table, /\| server \| dashboard figure \[1\] \| 0\.41 /);
  assert.doesNotMatch(table, /\| embedded \|/);
  assert.doesNotMatch(table, /commit bbbbbbb/, "no footnote for the full run: none of its server rows shown");
});
