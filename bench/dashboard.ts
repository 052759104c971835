/**
 * The HQ dashboard at scale (docs/performance.md "Dashboard at 1M claims"): each list, filter and sort of the dashboard as the service
 * answers it (session, queries, render), beside the same SQL replayed on a bare driver ("bare SQL",
 * bench/dashboard_bare.ts); the parts CSV export's rows/s beside its batch statement in a bare keyset loop;
 * and the service's peak memory while it streams, beside the same service idle. Interleaved rounds
 * (bench/pairs.ts): each service round is a fresh child, each bare round a fresh driver.
 *
 * Runs on its own database, filled by bench/generate_scale.ts (claims, parts, movements, Deliver_Parts,
 * announcements, history), next to the bench's target: a scratch database on the same server, dropped
 * afterwards, or a folder of its own for the embedded database. Through the bench only when asked for:
 * `deno task bench --only dashboard --claims 1000000`. On a server database already filled (kept, not filled
 * again): `deno task bench --only …,dashboard --scale-url postgres://…` in a run with other groups, or
 * standalone `deno run -A bench/dashboard.ts --url postgres://…`.
 */
import { parseArgs } from "node:util";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { type Db, openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { BENCH_DISPATCHER, fillScale } from "@/bench/generate_scale.ts";
import { serviceEnv } from "@/bench/target.ts";
import { startChild, withPeakRss } from "@/bench/process.ts";
import { compare, interleave, spreadOf } from "@/bench/pairs.ts";
import type { BenchRow } from "@/bench/report.ts";
import type { BenchTarget } from "@/bench/target.ts";
import { mintToken, randomToken } from "@/io/tokens.ts";
import { type DashPage, dashPages, timedMs } from "@/bench/dashboard_pages.ts";
import { searchBoxPages } from "@/bench/search_box.ts";
import { trendsPages } from "@/bench/trends.ts";
import { OVERVIEW_LABEL, overviewPages } from "@/bench/overview.ts";
import { actionQueuePages } from "@/bench/action_queue.ts";
import { bareSample, type Recording } from "@/bench/dashboard_bare.ts";
import { markdownTable } from "@/bench/report.ts";

const BUDGET_MS = 100;
/** The overview's figures (docs/overview.md "How fast"): every one within 200 ms, second request. */
const OVERVIEW_BUDGET_MS = 200;
/** Each trends figure's budget (issue's "every figure within 200 ms"; docs/trends.md "At scale"). */
const TRENDS_BUDGET_MS = 200;
const CSV_TARGET = 100_000;
/**
 * Above this the embedded database is skipped (with a line saying so): generating millions of rows in
 * PGlite's single-threaded WebAssembly and holding them in its memory would take longer than the rest of
 * the bench together; the server database carries the 1M figures.
 */
const EMBEDDED_MAX_CLAIMS = 100_000;
const MB = 1e6;

/**
 * Streams the parts CSV to the end; its data rows. Line ends are found by `indexOf` (native): a `for…of`
 * over every byte cost this client 7–15 s of CPU per 444 MB export, taken from the two cores the service
 * and the database share with it (the export's rows/s counted the bench's own work).
 */
async function drainCsv(url: string, cookie: string): Promise<number> {
  const res = await fetch(url, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`bench: ${url} answered ${res.status}`);
  return await countLines(res.body!) - 1;
}

/** The LF bytes of a stream, found by `indexOf` (see drainCsv). */
export async function countLines(body: ReadableStream<Uint8Array>): Promise<number> {
  let lines = 0;
  for await (const chunk of body) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return lines;
}

/** A dispatcher's session row, seeded directly (the sign-in's PIN hashing is not what is measured). */
export async function seedSession(db: Db): Promise<string> {
  const { token, hash } = mintToken();
  const user = await db.selectFrom("users").select("id").where("email", "=", BENCH_DISPATCHER)
    .executeTakeFirstOrThrow();
  await db.insertInto("sessions").values({
    token_hash: hash,
    user_id: user.id,
    csrf_token: randomToken(),
    created_at: new Date(),
    last_seen_at: new Date(),
  }).execute();
  return `pm_session=${token}`;
}

interface ServiceSample {
  /** Per page, in `pages` order (ms). */
  pages: number[];
  csvRate: number;
  peak: number;
  idle: number;
}

/** One round of the service: a fresh child, every page timed, then the whole parts CSV. */
async function serviceSample(target: BenchTarget, pages: DashPage[], cookie: string, parts: number) {
  const service = await startChild("tasks/start.ts", serviceEnv(target));
  try {
    const times: number[] = [];
    for (const page of pages) {
      times.push(
        await timedMs(async () => {
          const res = await fetch(service.url + page.path, { headers: { cookie } });
          if (res.status !== 200) throw new Error(`bench: ${page.path} answered ${res.status}`);
          await res.arrayBuffer();
        }),
      );
    }
    const idle = await service.rss();
    const t0 = performance.now();
    const { result: rows, peak } = await withPeakRss(
      service.rss,
      () => drainCsv(`${service.url}/hq/exports/parts.csv`, cookie),
    );
    const seconds = (performance.now() - t0) / 1000;
    if (rows !== parts) throw new Error(`bench: the CSV held ${rows} of ${parts} parts`);
    return { pages: times, csvRate: rows / seconds, peak, idle } satisfies ServiceSample;
  } finally {
    await service.stop();
  }
}

/**
 * Every page and the export, the service and the same SQL bare, interleaved rounds (bench/pairs.ts);
 * `target` is already filled. Three budget rows carry the 100 ms target: the slowest list or filter
 * (default orders, the deep page, filters, the feed), the slowest sort and the search box's slowest kind of
 * query (bench/search_box.ts); a fourth the trends' slowest figure against its 200 ms (bench/trends.ts).
 */
export async function measureDashboard(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const pages = [
    ...await dashPages(db),
    ...await searchBoxPages(db),
    ...await overviewPages(db),
    ...await trendsPages(db),
    ...await actionQueuePages(db),
  ];
  const cookie = await seedSession(db);
  const parts = Number(
    (await sql<{ n: number }>`select count(*) as n from parts_orders`.execute(db)).rows[0].n,
  );
  await db.destroy();

  const recording: { value?: Recording } = {};
  const samples = await interleave(
    () => serviceSample(target, pages, cookie, parts),
    () => bareSample(target, pages, recording),
  );
  const timed = pages.map((page, i) => ({
    page,
    statements: recording.value!.pages[i].length,
    ms: compare(samples, (s) => s.pages[i], (b) => b.pages[i]),
  }));
  const isSearch = (t: (typeof timed)[number]) => t.page.label.startsWith("/hq/search");
  const isSort = (t: (typeof timed)[number]) => t.page.path.includes("sort=");
  const isOverview = (t: (typeof timed)[number]) => t.page.label.startsWith(OVERVIEW_LABEL);
  const isTrends = (t: (typeof timed)[number]) => t.page.path.startsWith("/hq/trends");
  const slowest = (pick: (t: (typeof timed)[number]) => boolean) =>
    timed.filter(pick).reduce((a, b) => b.ms.service.median > a.ms.service.median ? b : a);
  const budgetRow = (figure: string, t: (typeof timed)[number], budget = BUDGET_MS): BenchRow => ({
    figure,
    service: t.ms.service,
    vs: "budget",
    baseline: budget,
    ratio: t.ms.service.median / budget,
    note: `GET ${t.page.label}, of ${timed.length} pages at ${parts} parts`,
    target: `≤ ${budget} ms`,
  });
  // The trends' figures (their CSVs; the page is the three together) have a budget of their own.
  const isTrendFigure = (t: (typeof timed)[number]) => isTrends(t) && t.page.path.endsWith(".csv");
  const csv = compare(samples, (s) => s.csvRate, (b) => b.csvRate);
  const idle = spreadOf(samples.service.map((s) => s.idle / MB));
  return [
    budgetRow(
      "slowest dashboard list or filter (ms)",
      slowest((t) => !isSort(t) && !isSearch(t) && !isOverview(t) && !isTrends(t)),
    ),
    budgetRow("slowest dashboard sort (ms)", slowest(isSort)),
    budgetRow("search_box: slowest kind of query (ms)", slowest(isSearch)),
    budgetRow("overview: slowest figure (ms)", slowest(isOverview), OVERVIEW_BUDGET_MS),
    budgetRow("trends: slowest figure (ms)", slowest(isTrendFigure), TRENDS_BUDGET_MS),
    ...timed.map((t, i): BenchRow => ({
      figure: isOverview(t)
        ? `${t.page.label} (ms)`
        : `${isSearch(t) ? "search_box" : "dashboard"} GET ${t.page.label} (ms)`,
      service: t.ms.service,
      vs: "baseline",
      baseline: t.ms.baseline,
      ratio: t.ms.ratio,
      note: i === 0
        ? `bare SQL: the page's ${t.statements} statements replayed on a bare driver (no Kysely, no HTTP)`
        : `bare SQL: ${t.statements} statement${t.statements === 1 ? "" : "s"}`,
    })),
    {
      figure: "parts CSV export (rows/s)",
      service: csv.service,
      vs: "budget",
      baseline: CSV_TARGET,
      ratio: csv.service.median / CSV_TARGET,
      note: `all ${parts} parts, streamed to the end`,
      target: `≥ ${CSV_TARGET} rows/s`,
    },
    {
      figure: "parts CSV export (rows/s)",
      service: csv.service,
      vs: "baseline",
      baseline: csv.baseline,
      ratio: csv.ratio,
      note:
        "bare SQL: the export's two batch statements (parts, their claims) in a keyset loop, rows only (no CSV)",
    },
    {
      figure: "service peak RSS while streaming the parts CSV (MB)",
      service: spreadOf(samples.service.map((s) => s.peak / MB)),
      vs: "same service, idle",
      baseline: idle,
      ratio: spreadOf(samples.service.map((s) => s.peak / s.idle)),
      note: "bounded memory: a batch and the read of the next in flight; idle = just before the export",
    },
  ];
}

/**
 * The dashboard rows for `deno task bench`: fills a database of its own beside the target with `claims`
 * claims (three parts each, movements, announcements, history), measures, and drops it; or, given
 * `scaleUrl`, measures that server database as it is (the server run only).
 */
export async function benchDashboard(
  target: BenchTarget,
  claims: number,
  scaleUrl?: string,
): Promise<BenchRow[]> {
  if (scaleUrl) return await onScaleDatabase("dashboard", target, scaleUrl, measureDashboard);
  if (target.kind === "embedded" && claims > EMBEDDED_MAX_CLAIMS) {
    console.error(
      `bench: dashboard (embedded) skipped: ${claims} claims is over the embedded run's ${EMBEDDED_MAX_CLAIMS} ` +
        "(PGlite would take far longer than the server); the server database gives the figures",
    );
    return [];
  }
  const own = await ownTarget(target);
  try {
    const db = own.target.open();
    await migrateToLatest(db);
    await fillScale(db, claims, (line) => console.error(line));
    await db.destroy();
    return await measureDashboard(own.target);
  } finally {
    await own.drop();
  }
}

/**
 * A server database already filled by bench/generate_scale.ts at `url` (migrated to the latest, never
 * dropped), with a data folder of its own inside `dataDir` for the service child.
 */
export function scaleTarget(url: string, dataDir: string): BenchTarget {
  return {
    kind: "server",
    env: { DATABASE_URL: url, DATA_DIR: dataDir },
    dataDir,
    open: () => openDb({ url }),
  };
}

/**
 * Runs `measure` on the database already filled at `url` (`--scale-url`): on the bench's server run only
 * (the embedded run says it skips, the figures being the server's), in a data folder removed after.
 */
export async function onScaleDatabase(
  group: string,
  target: BenchTarget,
  url: string,
  measure: (scale: BenchTarget) => Promise<BenchRow[]>,
): Promise<BenchRow[]> {
  if (target.kind === "embedded") {
    console.error(`bench: ${group} (embedded) skipped: --scale-url names a server database`);
    return [];
  }
  const dataDir = await Deno.makeTempDir({ dir: target.dataDir, prefix: `${group}-scale-` });
  try {
    const scale = scaleTarget(url, dataDir);
    const db = scale.open();
    await migrateToLatest(db);
    await db.destroy();
    return await measure(scale);
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

/** A database of its own beside `target` (a scratch server database, or a folder), and how to drop it. */
export async function ownTarget(
  target: BenchTarget,
): Promise<{ target: BenchTarget; drop: () => Promise<void> }> {
  const dataDir = await Deno.makeTempDir({ dir: target.dataDir, prefix: "dashboard-" });
  const url = target.env.DATABASE_URL;
  if (!url) {
    return {
      target: {
        kind: "embedded",
        // An empty DATABASE_URL keeps the service child off a server this process was given.
        env: { DATA_DIR: dataDir, DATABASE_URL: "" },
        dataDir,
        open: () => openDb({ dir: `${dataDir}/db` }),
      },
      drop: () => Deno.remove(dataDir, { recursive: true }),
    };
  }
  const admin = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
  const name = `pm_dashboard_${Deno.pid}`;
  await sql`create database ${sql.id(name)}`.execute(admin);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const own = u.toString();
  return {
    target: {
      kind: "server",
      env: { DATABASE_URL: own, DATA_DIR: dataDir },
      dataDir,
      open: () => openDb({ url: own }),
    },
    drop: async () => {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

if (import.meta.main) {
  // A server database already filled by bench/generate_scale.ts (kept); `deno task bench --only dashboard`
  // generates one of its own.
  const { values } = parseArgs({ args: Deno.args, options: { url: { type: "string" } } });
  if (!values.url) {
    console.error("usage: deno run -A bench/dashboard.ts --url postgres://… (a database already filled)");
    Deno.exit(2);
  }
  const dataDir = await Deno.makeTempDir({ prefix: "pm-dashboard-" });
  const here = scaleTarget(values.url, dataDir); // only its kind and folder: onScaleDatabase works inside it
  const rows = await onScaleDatabase("dashboard", here, values.url, measureDashboard);
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  console.log(markdownTable(rows.map((r) => ({ ...r, group: "dashboard", database: "server" }))));
}
