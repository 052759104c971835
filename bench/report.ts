/**
 * The bench's rows, their Markdown table, and the history: each run appends one JSON line to
 * bench/results.jsonl (committed, append-only) with every row's numbers (median/min/max), so a regression
 * shows across commits and the README/docs table can be printed again from it (`deno task bench --latest`).
 */
import type { Spread } from "@/bench/pairs.ts";

/** A number, a median (min–max) over rounds, or a text for figures that are not numbers. */
export type Value = number | Spread | string;

export interface BenchRow {
  figure: string;
  service: Value;
  /**
   * What `baseline` is: "baseline" (the same work measured in this run without the service's framework),
   * "budget" (a target set for the service, not measured), or "same service, …" (the service itself under
   * other conditions). Never "baseline" for the last two.
   */
  vs: "baseline" | "budget" | `same service, ${string}`;
  baseline: Value;
  /** service / baseline (the median of the per-round ratios for paired rows). */
  ratio: Value;
  note?: string;
  /** A target figure (the README's headline table shows these): the target, as "≥ 0.95" or "≤ 4". */
  target?: string;
}

/** Which database a row ran on; "—" for rows that use none of the two (pages, browser queue, ZIP). */
export type Database = "embedded" | "server" | "—";
/** Every database a row can name; "—" for the groups that run without one (pages, browser, packaging). */
export const DATABASES: Database[] = ["embedded", "server", "—"];

export interface RecordedRow extends BenchRow {
  group: string;
  database: Database;
}

/** One line of bench/results.jsonl. */
export interface BenchRun {
  at: string;
  commit: string;
  machine: { host: string; cpu: string; cores: number; memoryGb: number; loadAverage: number[] };
  deno: string;
  claims: number;
  quick: boolean;
  /** The groups run (all of them unless `--only`). */
  groups: string[];
  /** `--scale-url`: the database already filled that the dashboard and runsheet groups measured. */
  scale?: { database: string; claims: number };
  seconds: Partial<Record<Database, number>>;
  rows: RecordedRow[];
  /** Groups that stopped on an error (a failed request, a crashed child): they gave no rows. */
  failed: { group: string; database: Database; error: string }[];
}

export const HISTORY = new URL("../bench/results.jsonl", import.meta.url);

const isSpread = (v: Value): v is Spread => typeof v === "object";

/** Three significant figures or so: 1234, 123, 12.3, 1.23, 0.123; whole numbers as they are. */
function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const a = Math.abs(n);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 0.1 || a === 0 ? 2 : 3;
  return n.toFixed(digits);
}

export function formatValue(v: Value): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return formatNumber(v);
  if (v.n === 1) return formatNumber(v.median);
  return `${formatNumber(v.median)} (${formatNumber(v.min)}–${formatNumber(v.max)})`;
}

/** The median of a value (its number for a plain figure), or NaN for a text. */
export const medianOf = (v: Value): number => typeof v === "number" ? v : isSpread(v) ? v.median : NaN;

/**
 * A row as a table shows it: `from` is the marker of the run it was borrowed from when that is not the run
 * the table's heading names (latestTable), explained in a footnote under the table.
 */
export interface ShownRow extends RecordedRow {
  from?: string;
}

const marked = (text: string, r: ShownRow) => r.from ? `${text} ${r.from}` : text;

export function markdownTable(rows: ShownRow[]): string {
  const lines = [
    "| database | figure | service | compared with | ratio | note |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const cells = [
      r.database,
      marked(r.figure, r),
      formatValue(r.service),
      `${r.vs}: ${formatValue(r.baseline)}`,
      formatValue(r.ratio),
      [r.target && `target ${r.target}`, r.note].filter(Boolean).join("; "),
    ];
    lines.push(`| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`);
  }
  return lines.join("\n");
}

export function runHeading(run: BenchRun): string {
  const m = run.machine;
  const seconds = Object.entries(run.seconds).map(([db, s]) => `${db} ${s} s`).join(", ");
  return `Parts Movement bench, ${run.at.slice(0, 16).replace("T", " ")} UTC, commit ${run.commit}, ` +
    `host ${m.host}, ${run.claims} claims${
      run.scale ? ` (dashboard scale: ${run.scale.database}, ${run.scale.claims} claims, filled before)` : ""
    }${run.quick ? " (BENCH_QUICK: reduced samples)" : ""}; ${m.cores} cores (${m.cpu}), ` +
    `${m.memoryGb} GB, load average ${m.loadAverage.join(" ")} at start; Deno ${run.deno}; ${seconds}`;
}

export async function appendHistory(run: BenchRun): Promise<void> {
  await Deno.writeTextFile(HISTORY, JSON.stringify(run) + "\n", { append: true });
}

/**
 * The target figures only, one line a figure with a column per database (and one for the figures measured
 * without a database choice, the browser's and the packaging's, when any has a target): the service's figure
 * when the target is the budget itself ("≤ 100 ms" against a budget of 100), else the ratio to what it is
 * compared with (a baseline, or a budget whose target is a ratio: "≤ 1.3" times a delivery's physical limit);
 * medians only. Compact enough for the README.
 */
export function headlineTable(rows: ShownRow[]): string {
  const byFigure = Map.groupBy(rows.filter((r) => r.target), (r) => r.figure);
  const databases: Database[] = ["embedded", "server"];
  if (rows.some((r) => r.target && r.database === "—")) databases.push("—");
  const header = databases.map((db) => db === "—" ? "no database" : db);
  const lines = [
    `| figure | ${header.join(" | ")} | target |`,
    `|---|${databases.map(() => "---|").join("")}---|`,
  ];
  for (const [figure, same] of byFigure) {
    const showsService = targetIsBudget(same[0]);
    const cell = (db: Database) => {
      const r = same.find((x) => x.database === db);
      // Medians only (the full table has the min–max): the README has room for no more.
      const v = showsService ? r?.service : r?.ratio;
      if (v === undefined) return "—";
      return marked(typeof v === "string" ? v : formatValue(medianOf(v)), r!);
    };
    // A figure that names what it is compared with ("… vs its limit") needs no "÷ budget" after it.
    const ratio = showsService || figure.includes(" vs ")
      ? ""
      : ` ÷ ${same[0].vs.replace("same service, ", "")}`;
    lines.push(`| ${figure}${ratio} | ${databases.map(cell).join(" | ")} | ${same[0].target} |`);
  }
  return lines.join("\n");
}

/** True when a row's target is its budget as a figure ("≤ 100 ms" for a budget of 100), not a ratio to it. */
function targetIsBudget(row: ShownRow): boolean {
  if (row.vs !== "budget") return false;
  return Number(row.target?.match(/[\d.]+/)?.[0]) === medianOf(row.baseline);
}

export interface LatestOptions {
  headline?: boolean;
  groupOrder: string[];
  /** `--database`: only these databases' rows (docs/performance-latest*.md hold one part each). */
  databases?: Database[];
}

/**
 * The latest table from the history (`deno task bench --latest`): the newest run's rows, whole, under its
 * heading. Runs made with BENCH_QUICK count only while the history holds no other. A group and database the
 * newest run did not measure (a run with `--only upload` measures only the upload rows) is taken from the
 * newest run that did, each such row marked `[1]`, `[2]`, … and the run named (date, commit, host, load) in a
 * footnote under the table: a table never passes off one run's figures as another's. Rows come by database,
 * then in `groupOrder` (the bench's running order); `headline` gives the headline table.
 */
export async function latestTable(opts: LatestOptions): Promise<string> {
  const runs = (await Deno.readTextFile(HISTORY)).split("\n").filter((l) => l.trim()).map((l) =>
    JSON.parse(l) as BenchRun
  );
  return latestFrom(runs, opts);
}

/** latestTable over `history` (oldest first, as bench/results.jsonl holds it). */
export function latestFrom(history: BenchRun[], opts: LatestOptions): string {
  if (history.length === 0) return "bench/results.jsonl holds no run yet: run `deno task bench`.";
  const full = history.filter((r) => !r.quick);
  const runs = (full.length > 0 ? full : history).toSorted((a, b) => a.at.localeCompare(b.at));
  const newest = runs.at(-1)!;
  const key = (r: RecordedRow) => `${r.group}\u0000${r.database}`;
  const rows: { row: RecordedRow; lender?: BenchRun }[] = newest.rows.map((row) => ({ row }));
  const measured = new Set(newest.rows.map(key));
  // Newest first: each group and database the table lacks comes from the latest run that measured it.
  for (const run of runs.slice(0, -1).reverse()) {
    for (const [k, lent] of Map.groupBy(run.rows, key)) {
      if (measured.has(k)) continue;
      measured.add(k);
      rows.push(...lent.map((row) => ({ row, lender: run })));
    }
  }
  // The full table by database, then group; the headline (a column per database, target rows only) by group.
  const order = (r: RecordedRow) =>
    (opts.headline ? 0 : DATABASES.indexOf(r.database) * 1000) +
    opts.groupOrder.indexOf(r.group);
  const shown = rows.filter(({ row }) => !opts.headline || row.target)
    .filter(({ row }) => !opts.databases || opts.databases.includes(row.database))
    .toSorted((a, b) => order(a.row) - order(b.row));
  // Footnotes only for the runs a shown row comes from, numbered newest run first.
  const lenders = [...new Set(shown.flatMap(({ lender }) => lender ? [lender] : []))]
    .toSorted((a, b) => b.at.localeCompare(a.at));
  const marked: ShownRow[] = shown.map(({ row, lender }) =>
    lender ? { ...row, from: `[${lenders.indexOf(lender) + 1}]` } : row
  );
  return [
    runHeading(newest),
    "",
    opts.headline ? headlineTable(marked) : markdownTable(marked),
    // A blank line between footnotes keeps each a paragraph of its own when pasted into Markdown.
    ...lenders.flatMap((run, i) => ["", `[${i + 1}] from another run: ${runHeading(run)}`]),
  ].join("\n");
}

/** Host, CPU, cores, memory and load of this machine, for the history line. */
export async function machine(): Promise<BenchRun["machine"]> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  return {
    host: Deno.hostname(),
    cpu,
    cores: navigator.hardwareConcurrency,
    memoryGb: Math.round(Deno.systemMemoryInfo().total / 2 ** 30),
    loadAverage: Deno.loadavg().map((l) => Math.round(l * 10) / 10),
  };
}

/** The commit the bench ran on (with `+` when the work tree had changes), or "unknown" outside git. */
export async function currentCommit(): Promise<string> {
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, stdout: "piped", stderr: "null" }).output();
  try {
    const head = await git("rev-parse", "--short", "HEAD");
    if (!head.success) return "unknown";
    // The history file itself does not count: a run not yet committed would mark the next one.
    const dirty = (await git("status", "--porcelain", "--", ".", ":!bench/results.jsonl")).stdout.length > 0;
    return new TextDecoder().decode(head.stdout).trim() + (dirty ? "+" : "");
  } catch {
    return "unknown";
  }
}
