/**
 * `deno task bench [--claims N] [--only group,…] [--scale-url postgres://…]`: every figure beside what it is compared with
 * (a baseline measured in the same run, a budget, or the same service under other conditions), on the
 * embedded database always and on the PostgreSQL server too when DATABASE_URL is set (in a scratch
 * database it creates and drops). Paired figures run interleaved, ROUNDS times a side (bench/pairs.ts).
 * Prints a Markdown table and appends the run to bench/results.jsonl. `--latest [--headline]` prints the
 * latest table from that history instead of running. `BENCH_QUICK=1` reduces every sample (a smoke run).
 * The dashboard group runs only with `--only dashboard` (it generates its own `--claims` database, or measures
 * the server database already filled that `--scale-url` names, as the runsheet group does).
 * Loopback traffic only; every loop is bounded. Method and groups: docs/performance.md "How `deno task bench`
 * measures" and "Running it".
 */
import { parseArgs } from "node:util";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { fillClaims } from "@/bench/generate.ts";
import { QUICK } from "@/bench/pairs.ts";
import {
  appendHistory,
  type BenchRow,
  type BenchRun,
  currentCommit,
  type Database,
  DATABASES,
  latestTable,
  machine,
  markdownTable,
  type RecordedRow,
  runHeading,
} from "@/bench/report.ts";
import { benchSearch } from "@/bench/search.ts";
import { benchSearchLayer } from "@/bench/search_layer.ts";
import { benchTrigram } from "@/bench/trigram.ts";
import { benchDropOff, benchRoundTrips } from "@/bench/drop_off.ts";
import { benchDropOffNetwork } from "@/bench/drop_off_network.ts";
import { benchUpload } from "@/bench/upload.ts";
import { benchIdleMemory, benchRestart } from "@/bench/startup.ts";
import { benchPages } from "@/bench/pages.ts";
import { benchOfflineQueue } from "@/bench/offline_queue.ts";
import { benchUplink } from "@/bench/uplink_delivery.ts";
import { benchObservability } from "@/bench/observability.ts";
import { benchPhotoStores } from "@/bench/photo_stores.ts";
import { benchThumbnails } from "@/bench/thumbnails.ts";
import { benchEvidenceZip } from "@/bench/evidence_zip.ts";
import { benchDashboard } from "@/bench/dashboard.ts";
import { benchDashboardStreams } from "@/bench/dashboard_streams.ts";
import { benchHomeBytes, benchRunSheet } from "@/bench/run_sheet.ts";
import type { BenchTarget } from "@/bench/target.ts";

/**
 * The groups, in running order: a group runs once per database, or once with `database: false`. An
 * `onlyWhenAsked` group runs only when `--only` names it; it generates a database of its own at `--claims`
 * (the shared fill is skipped when only such groups run).
 */
const GROUPS: {
  name: string;
  database: boolean;
  onlyWhenAsked?: boolean;
  /** `scaleUrl`: `--scale-url`, a server database already filled, for the groups at dashboard scale. */
  run(target: BenchTarget, claims: number, scaleUrl?: string): Promise<BenchRow[]>;
}[] = [
  { name: "search", database: true, run: (t) => benchSearch(t) },
  { name: "layer", database: true, run: (t) => benchSearchLayer(t) },
  { name: "observability", database: true, run: (t) => benchObservability(t) },
  { name: "trigram", database: true, run: (t, claims) => benchTrigram(t, claims) },
  { name: "roundtrips", database: true, run: (t) => benchRoundTrips(t) },
  { name: "dropoff", database: true, run: (t) => benchDropOff(t) },
  { name: "network", database: true, run: (t) => benchDropOffNetwork(t) },
  { name: "upload", database: true, run: (t) => benchUpload(t) },
  { name: "stores", database: true, run: (t) => benchPhotoStores(t) },
  { name: "thumbnails", database: true, run: (t) => benchThumbnails(t) },
  { name: "memory", database: true, run: (t) => benchIdleMemory(t) },
  { name: "restart", database: true, run: (t) => benchRestart(t) },
  { name: "streams", database: true, run: (t) => benchDashboardStreams(t) },
  { name: "pages", database: false, run: () => benchPages() },
  { name: "queue", database: false, run: () => benchOfflineQueue() },
  { name: "uplink", database: false, run: () => benchUplink() },
  { name: "evidence", database: false, run: () => benchEvidenceZip() },
  { name: "home", database: false, run: () => benchHomeBytes() },
  // 1M claims take minutes to generate: `--only dashboard --claims 1000000`, or `--scale-url` to a database
  // already filled (docs/performance.md "Running it").
  {
    name: "dashboard",
    database: true,
    onlyWhenAsked: true,
    run: (t, claims, scaleUrl) => benchDashboard(t, claims, scaleUrl),
  },
  // The same scale for the driver's run sheet: `--only runsheet --claims 1000000` (or `--scale-url`).
  {
    name: "runsheet",
    database: true,
    onlyWhenAsked: true,
    run: (t, claims, scaleUrl) => benchRunSheet(t, claims, scaleUrl),
  },
];

const { values } = parseArgs({
  args: Deno.args,
  options: {
    claims: { type: "string", default: "10000" },
    only: { type: "string" },
    latest: { type: "boolean", default: false },
    headline: { type: "boolean", default: false },
    database: { type: "string" },
    "scale-url": { type: "string" },
  },
});
if (values.latest) {
  const databases = values.database?.split(",").map((s) => s.trim()) as Database[] | undefined;
  const unknownDb = databases?.filter((d) => !DATABASES.includes(d)) ?? [];
  if (unknownDb.length > 0) {
    console.error(`--database: unknown ${unknownDb.join(", ")}; databases: ${DATABASES.join(", ")}`);
    Deno.exit(2);
  }
  console.log(
    await latestTable({ headline: values.headline, groupOrder: GROUPS.map((g) => g.name), databases }),
  );
  Deno.exit(0);
}
const claims = Number(values.claims);
if (!Number.isInteger(claims) || claims < 100) {
  console.error("--claims must be a whole number of at least 100");
  Deno.exit(2);
}
const names = values.only?.split(",").map((s) => s.trim()) ??
  GROUPS.filter((g) => !g.onlyWhenAsked).map((g) => g.name);
const unknown = names.filter((n) => !GROUPS.some((g) => g.name === n));
if (unknown.length > 0) {
  console.error(
    `--only: unknown group ${unknown.join(", ")}; groups: ${GROUPS.map((g) => g.name).join(", ")}`,
  );
  Deno.exit(2);
}
const selected = GROUPS.filter((g) => names.includes(g.name));
const scaleUrl = values["scale-url"];
if (scaleUrl !== undefined) {
  const problem = !/^postgres(ql)?:\/\//.test(scaleUrl)
    ? "must be a postgres:// URL"
    : !Deno.env.get("DATABASE_URL")
    ? "needs DATABASE_URL (its groups run with the server database)"
    : !selected.some((g) => g.name === "dashboard" || g.name === "runsheet")
    ? "is for the dashboard and runsheet groups: name one in --only"
    : null;
  if (problem) {
    console.error(`--scale-url ${problem}`);
    Deno.exit(2);
  }
}

/** Where `--scale-url` points (no user or password: the history is committed) and its claims. */
async function scaleDatabase(url: string): Promise<NonNullable<BenchRun["scale"]>> {
  const db = openDb({ url });
  try {
    const { n } = (await sql<{ n: string }>`select count(*) as n from claims`.execute(db)).rows[0];
    const u = new URL(url);
    return { database: `${u.host}${u.pathname}`, claims: Number(n) };
  } finally {
    await db.destroy();
  }
}

const scale = scaleUrl ? await scaleDatabase(scaleUrl) : undefined;
/** The shared fill's `--claims`, when a group uses it; else the claims the run's groups measured. */
const usesFill = selected.some((g) => g.database && !g.onlyWhenAsked);
const run: BenchRun = {
  at: new Date().toISOString(),
  commit: await currentCommit(),
  machine: await machine(),
  deno: Deno.version.deno,
  claims: usesFill || !scale ? claims : scale.claims,
  quick: QUICK,
  groups: selected.map((g) => g.name),
  ...scale ? { scale } : {},
  seconds: {},
  rows: [],
  failed: [],
};

/** Runs `groups` on `target` (or without a database), labelling every row, and times the lot. */
async function runGroups(database: Database, target: BenchTarget | null, groups: typeof selected) {
  const started = performance.now();
  for (const group of groups) {
    const t0 = performance.now();
    console.error(`bench: ${group.name} (${database})…`);
    try {
      const rows = await group.run(target!, claims, scaleUrl);
      run.rows.push(...rows.map((r): RecordedRow => ({ ...r, group: group.name, database })));
    } catch (error) {
      // A failed group prints no figure; the others still run and are kept, and the run exits 1.
      console.error(`bench: ${group.name} (${database}) failed:`, error);
      run.failed.push({ group: group.name, database, error: String(error).slice(0, 500) });
    }
    console.error(
      `bench: ${group.name} (${database}) took ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  }
  run.seconds[database] = Math.round((performance.now() - started) / 1000);
}

/** A database of `kind` for the groups (`fill`: with `--claims` claims), dropped or removed after. */
async function withTarget(
  kind: "embedded" | "server",
  fill: boolean,
  fn: (target: BenchTarget) => Promise<void>,
) {
  const dataDir = await Deno.makeTempDir({ prefix: `pm-bench-${kind}-` });
  let dropScratch = async () => {};
  let target: BenchTarget;
  if (kind === "server") {
    const serverUrl = Deno.env.get("DATABASE_URL")!;
    const name = `pm_bench_${Deno.pid}`;
    const admin = new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: serverUrl, max: 1 }) }),
    });
    await sql`create database ${sql.id(name)}`.execute(admin);
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    const url = u.toString();
    target = { kind, env: { DATABASE_URL: url, DATA_DIR: dataDir }, dataDir, open: () => openDb({ url }) };
    dropScratch = async () => {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    };
  } else {
    // Children inherit this process's environment: an empty DATABASE_URL (unset, for the service's
    // configuration and the baselines) keeps them on the embedded database when a server is configured.
    target = {
      kind,
      env: { DATA_DIR: dataDir, DATABASE_URL: "" },
      dataDir,
      open: () => openDb({ dir: `${dataDir}/db` }),
    };
  }
  try {
    const db = target.open();
    await migrateToLatest(db);
    if (fill) {
      const t0 = performance.now();
      await fillClaims(db, claims);
      console.error(
        `bench: filled ${claims} claims (${kind}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    }
    await db.destroy();
    await fn(target);
  } finally {
    await dropScratch();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

const perDatabase = selected.filter((g) => g.database);
if (perDatabase.length > 0) {
  const kinds = Deno.env.get("DATABASE_URL") ? ["embedded", "server"] as const : ["embedded"] as const;
  const fill = perDatabase.some((g) => !g.onlyWhenAsked);
  for (const kind of kinds) await withTarget(kind, fill, (target) => runGroups(kind, target, perDatabase));
}
const alone = selected.filter((g) => !g.database);
if (alone.length > 0) await runGroups("—", null, alone);

await appendHistory(run);
console.log(runHeading(run) + "\n");
console.log(markdownTable(run.rows));
if (run.failed.length > 0) {
  console.log(`\nFailed (no figures): ${run.failed.map((f) => `${f.group} (${f.database})`).join(", ")}`);
  Deno.exit(1);
}
