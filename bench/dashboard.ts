/**
 * The HQ dashboard at scale (issue 14 item 7): each list and filter of the dashboard as the service
 * answers it (session, queries, render; median of several requests after a warm-up), beside the same SQL
 * statements run directly through a bare driver ("bare SQL": the statements the page's data functions
 * issue, recorded in process and replayed on a plain pg client or PGlite, no Kysely, no HTTP); and the
 * parts CSV export's rows/s and the server's peak memory while it streams.
 *
 * Runs on its own database, filled by bench/generate_scale.ts (claims, parts, movements, Deliver_Parts,
 * announcements, history), next to the bench's target: a scratch database on the same server, dropped
 * afterwards, or a folder of its own for the embedded database. The service always runs before its
 * baseline. Standalone: `deno run -A bench/dashboard.ts --claims N [--url postgres://… (already filled)]`.
 */
import { parseArgs } from "node:util";
import { type CompiledQuery, Kysely, PostgresDialect, PostgresQueryCompiler, sql } from "kysely";
import pg from "pg";
import { type Db, newPGlite, openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { BENCH_DISPATCHER, fillScale } from "@/bench/generate_scale.ts";
import { serviceEnv } from "@/bench/search.ts";
import { startChild, withPeakRss } from "@/bench/process.ts";
import { percentile } from "@/bench/load.ts";
import type { BenchRow, BenchTarget } from "@/tasks/bench.ts";
import { mintToken, randomToken } from "@/io/tokens.ts";
import { dashPages } from "@/bench/dashboard_pages.ts";
import { EXPORT_BATCH } from "@/lib/dashboard/exports.ts";
import { partExportBatch } from "@/db/queries/parts.ts";

const RUNS = 7;
const BUDGET_MS = 100;

/** Median of RUNS timed calls after a warm-up (3 when the warm-up alone took over a second). */
async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  const w = performance.now();
  await fn();
  const runs = performance.now() - w > 1000 ? 3 : RUNS;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

/** The statements `run` issues through `db`, compiled as Kysely sends them (for the bare replay). */
async function recorded(db: Db, run: (db: Db) => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  const compiler = new PostgresQueryCompiler();
  await run(db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      seen.push(compiler.compileQuery(node, queryId));
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  }));
  return seen;
}

/**
 * The bare side: a plain driver, and a Kysely connection to record the statements with. The embedded
 * database is one PGlite instance under both (two instances must not open one folder).
 */
interface Bare {
  db: Db;
  query(text: string, params: readonly unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

function bareSide(target: BenchTarget): Bare {
  const url = target.env.DATABASE_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    const ready = client.connect();
    const db = target.open();
    return {
      db,
      query: async (text, params) => (await ready, (await client.query(text, params as unknown[])).rows),
      close: async () => {
        await client.end();
        await db.destroy();
      },
    };
  }
  const pglite = newPGlite({ dataDir: `${target.env.DATA_DIR}/db` });
  const db = openDb({ pglite });
  return {
    db,
    query: async (text, params) => (await pglite.query(text, params as unknown[])).rows,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** Streams the parts CSV to the end; its data rows. */
async function drainCsv(url: string, cookie: string): Promise<number> {
  const res = await fetch(url, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`bench: ${url} answered ${res.status}`);
  let lines = 0;
  for await (const chunk of res.body!) for (const b of chunk) if (b === 10) lines++;
  return lines - 1;
}

/** A dispatcher's session row, seeded directly (the sign-in's PIN hashing is not what is measured). */
async function seedSession(db: Db): Promise<string> {
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

/** Times every page and the export on the service, then the same SQL bare; `target` is already filled. */
export async function measureDashboard(target: BenchTarget): Promise<BenchRow[]> {
  const db = target.open();
  const pages = await dashPages(db);
  const cookie = await seedSession(db);
  const parts = Number(
    (await sql<{ n: number }>`select count(*) as n from parts_orders`.execute(db)).rows[0].n,
  );
  await db.destroy();

  const service = await startChild("tasks/start.ts", serviceEnv(target));
  const served = new Map<string, number>();
  let csv: { rows: number; seconds: number; peak: number; idle: number };
  try {
    for (const page of pages) {
      served.set(
        page.path,
        await medianMs(async () => {
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
    csv = { rows, seconds: (performance.now() - t0) / 1000, peak, idle };
  } finally {
    await service.stop();
  }
  if (csv.rows !== parts) throw new Error(`bench: the CSV held ${csv.rows} of ${parts} parts`);

  const bare = bareSide(target);
  const out: BenchRow[] = [];
  try {
    for (const page of pages) {
      const statements = await recorded(bare.db, page.data);
      const ms = await medianMs(async () => {
        for (const s of statements) await bare.query(s.sql, s.parameters);
      });
      const ours = served.get(page.path)!;
      out.push({
        figure: `dashboard GET ${page.path.length > 60 ? page.path.slice(0, 40) + "…" : page.path} (ms)`,
        service: ours.toFixed(1),
        baseline: ms.toFixed(1),
        ratio: (ours / ms).toFixed(2),
        note:
          `bare SQL: the page's ${statements.length} statements on a bare driver; budget ${BUDGET_MS} ms: ${
            ours <= BUDGET_MS ? "met" : "MISSED"
          }`,
      });
    }
    // The export's bare side: the same batch statement in a keyset loop (the id of a batch's last row next).
    const SENTINEL = -424242;
    const [batch] = await recorded(bare.db, (d) => partExportBatch(d, {}, SENTINEL, EXPORT_BATCH));
    const at = batch.parameters.indexOf(SENTINEL);
    const t0 = performance.now();
    let rows = 0;
    for (let after = 0;;) {
      const params = [...batch.parameters];
      params[at] = after;
      const got = await bare.query(batch.sql, params) as { id: number }[];
      if (got.length === 0) break;
      rows += got.length;
      after = got[got.length - 1].id;
    }
    const bareRate = rows / ((performance.now() - t0) / 1000);
    const rate = csv.rows / csv.seconds;
    const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
    out.push({
      figure: `parts CSV export, ${csv.rows} rows (rows/s)`,
      service: rate.toFixed(0),
      baseline: bareRate.toFixed(0),
      ratio: (rate / bareRate).toFixed(2),
      note:
        "bare SQL: the export's batch statement in a keyset loop, rows only (no CSV); aim ≥ 100 000 rows/s",
    }, {
      figure: "server peak RSS while streaming the parts CSV (MB)",
      service: mb(csv.peak),
      baseline: `${mb(csv.idle)} (same service idle, not a baseline)`,
      ratio: (csv.peak / csv.idle).toFixed(2),
      note: "bounded memory: a batch and the read of the next in flight, back-pressure from the client",
    });
  } finally {
    await bare.close();
  }
  return out;
}

/**
 * The dashboard rows for `deno task bench`: fills a database of its own beside the target with `claims`
 * claims (three parts each, movements, announcements, history), measures, and drops it.
 */
export async function benchDashboard(target: BenchTarget, claims: number): Promise<BenchRow[]> {
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

async function ownTarget(target: BenchTarget): Promise<{ target: BenchTarget; drop: () => Promise<void> }> {
  const dataDir = await Deno.makeTempDir({ dir: target.dataDir, prefix: "dashboard-" });
  const url = target.env.DATABASE_URL;
  if (!url) {
    return {
      target: {
        kind: "embedded",
        env: { DATA_DIR: dataDir },
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
  const { values } = parseArgs({
    args: Deno.args,
    options: { claims: { type: "string", default: "10000" }, url: { type: "string" } },
  });
  const dataDir = await Deno.makeTempDir({ prefix: "pm-dashboard-" });
  let rows: BenchRow[];
  if (values.url) {
    // An already filled server database (generate_scale.ts): migrated here, measured, kept.
    const url = values.url;
    const target: BenchTarget = {
      kind: "server",
      env: { DATABASE_URL: url, DATA_DIR: dataDir },
      dataDir,
      open: () => openDb({ url }),
    };
    const db = target.open();
    await migrateToLatest(db);
    await db.destroy();
    rows = await measureDashboard(target);
  } else {
    const server = Deno.env.get("DATABASE_URL");
    const target: BenchTarget = server
      ? {
        kind: "server",
        env: { DATABASE_URL: server, DATA_DIR: dataDir },
        dataDir,
        open: () => openDb({ url: server }),
      }
      : {
        kind: "embedded",
        env: { DATA_DIR: dataDir },
        dataDir,
        open: () => openDb({ dir: `${dataDir}/db` }),
      };
    rows = await benchDashboard(target, Number(values.claims));
  }
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  console.log("| figure | service | baseline | ratio | note |\n|---|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.figure} | ${r.service} | ${r.baseline} | ${r.ratio} | ${r.note ?? ""} |`);
  }
}
