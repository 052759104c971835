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

export function markdownTable(rows: RecordedRow[]): string {
  const lines = [
    "| database | figure | service | compared with | ratio | note |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const cells = [
      r.database,
      r.figure,
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
    `${run.claims} claims${
      run.quick ? " (BENCH_QUICK: reduced samples)" : ""
    }; ${m.cores} cores (${m.cpu}), ` +
    `${m.memoryGb} GB, load average ${m.loadAverage.join(" ")} at start; Deno ${run.deno}; ${seconds}`;
}

export async function appendHistory(run: BenchRun): Promise<void> {
  await Deno.writeTextFile(HISTORY, JSON.stringify(run) + "\n", { append: true });
}

/**
 * The target figures only, one line a figure with a column per database: the service's figure for
 * a budget, else the ratio to what it is compared with; medians only. Compact enough for the README.
 */
export function headlineTable(rows: RecordedRow[]): string {
  const byFigure = Map.groupBy(rows.filter((r) => r.target), (r) => r.figure);
  const lines = ["| figure | embedded | server | target |", "|---|---|---|---|"];
  for (const [figure, same] of byFigure) {
    const cell = (db: Database) => {
      const r = same.find((x) => x.database === db);
      // Medians only (the full table has the min–max): the README has room for no more.
      const v = r?.vs === "budget" ? r.service : r?.ratio;
      return v === undefined ? "—" : typeof v === "string" ? v : formatValue(medianOf(v));
    };
    const ratio = same[0].vs === "budget" ? "" : ` ÷ ${same[0].vs.replace("same service, ", "")}`;
    lines.push(`| ${figure}${ratio} | ${cell("embedded")} | ${cell("server")} | ${same[0].target} |`);
  }
  return lines.join("\n");
}

/**
 * The latest table from the history: for each group and database, the rows of the newest run that ran
 * that group (a run with `--only upload` replaces the upload rows and keeps the others). Runs made with
 * BENCH_QUICK count only while the history holds no other. Rows come by database, then in `groupOrder`
 * (the bench's running order); `headline` gives the headline table.
 */
export async function latestTable(opts: { headline?: boolean; groupOrder: string[] }): Promise<string> {
  const all = (await Deno.readTextFile(HISTORY)).split("\n").filter((l) => l.trim()).map((l) =>
    JSON.parse(l) as BenchRun
  );
  if (all.length === 0) return "bench/results.jsonl holds no run yet: run `deno task bench`.";
  const full = all.filter((r) => !r.quick);
  const runs = full.length > 0 ? full : all;
  const newest = new Map<string, { run: BenchRun; rows: RecordedRow[] }>();
  for (const run of runs) {
    const byKey = Map.groupBy(run.rows, (r) => `${r.group}\u0000${r.database}`);
    for (const group of run.groups) {
      for (const [key, rows] of byKey) if (key.startsWith(group + "\u0000")) newest.set(key, { run, rows });
    }
  }
  const used = [...new Set([...newest.values()].map((v) => v.run))].sort((a, b) => a.at.localeCompare(b.at));
  // The full table by database, then group; the headline (a column per database) by group.
  const order = (r: RecordedRow) =>
    (opts.headline ? 0 : ["embedded", "server", "—"].indexOf(r.database) * 1000) +
    opts.groupOrder.indexOf(r.group);
  const rows = [...newest.values()].flatMap((v) => v.rows).sort((a, b) => order(a) - order(b));
  // A blank line between the runs' headings keeps each a paragraph of its own when pasted into Markdown.
  return [used.map(runHeading).join("\n\n"), "", opts.headline ? headlineTable(rows) : markdownTable(rows)]
    .join("\n");
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
