/**
 * `deno task bench [--claims N]`: every figure beside a baseline measured in the same run, printed as a
 * Markdown table (paste it into docs/performance.md). Uses the PostgreSQL server when
 * DATABASE_URL is set (in a scratch database it creates and drops), else the embedded database in a
 * temporary folder. Loopback traffic only; every loop is bounded.
 */
import { parseArgs } from "node:util";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { type Db, openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { fillClaims } from "@/bench/generate.ts";
import { benchSearch } from "@/bench/search.ts";
import { benchTrigram } from "@/bench/trigram.ts";
import { benchDropOff } from "@/bench/drop_off.ts";
import { benchDropOffNetwork } from "@/bench/drop_off_network.ts";
import { benchUpload } from "@/bench/upload.ts";
import { benchPages } from "@/bench/pages.ts";
import { benchOfflineQueue } from "@/bench/offline_queue.ts";
import { benchObservability } from "@/bench/observability.ts";
import { benchPhotoStores } from "@/bench/photo_stores.ts";
import { benchEvidenceZip } from "@/bench/evidence_zip.ts";

export interface BenchRow {
  figure: string;
  service: string;
  baseline: string;
  ratio: string;
  note?: string;
}

/** Where the bench's database lives and how a child process reaches it. */
export interface BenchTarget {
  kind: "embedded" | "server";
  /** Environment for child processes (DATABASE_URL or DATA_DIR). */
  env: Record<string, string>;
  dataDir: string;
  /** Opens an in-process connection (embedded: only while no child holds the database). */
  open(): Db;
}

const { values } = parseArgs({ args: Deno.args, options: { claims: { type: "string", default: "10000" } } });
const claims = Number(values.claims);
if (!Number.isInteger(claims) || claims < 100) {
  console.error("--claims must be a whole number of at least 100");
  Deno.exit(2);
}

const dataDir = await Deno.makeTempDir({ prefix: "pm-bench-" });
const serverUrl = Deno.env.get("DATABASE_URL");
let dropScratch = async () => {};
let target: BenchTarget;
if (serverUrl) {
  const name = `pm_bench_${Deno.pid}`;
  const admin = new Kysely({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: serverUrl, max: 1 }) }),
  });
  await sql`create database ${sql.id(name)}`.execute(admin);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  target = {
    kind: "server",
    env: { DATABASE_URL: url, DATA_DIR: dataDir },
    dataDir,
    open: () => openDb({ url }),
  };
  dropScratch = async () => {
    await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
    await admin.destroy();
  };
} else {
  target = {
    kind: "embedded",
    env: { DATA_DIR: dataDir },
    dataDir,
    open: () => openDb({ dir: `${dataDir}/db` }),
  };
}

const started = performance.now();
const rows: BenchRow[] = [];
try {
  const db = target.open();
  await migrateToLatest(db);
  const t0 = performance.now();
  await fillClaims(db, claims);
  console.error(`filled ${claims} claims in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await db.destroy();

  rows.push(...await benchSearch(target));
  rows.push(...await benchObservability(target));
  rows.push(...await benchTrigram(target, claims));
  rows.push(...await benchDropOff(target));
  rows.push(...await benchDropOffNetwork(target));
  rows.push(...await benchUpload(target));
  rows.push(...await benchPhotoStores(target));
  rows.push(...await benchPages());
  rows.push(...await benchOfflineQueue());
  rows.push(...await benchEvidenceZip());
} finally {
  await dropScratch();
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
}

const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
const run = {
  at: new Date().toISOString(),
  commit: await currentCommit(),
  claims,
  database: target.kind,
  cores: navigator.hardwareConcurrency,
  cpu,
  deno: Deno.version.deno,
  seconds: Math.round((performance.now() - started) / 1000),
  rows,
};
// The history (issue 14): one JSON line per run, committed, so a regression shows across commits.
await Deno.writeTextFile(new URL("../bench/results.jsonl", import.meta.url), JSON.stringify(run) + "\n", {
  append: true,
});
console.log(
  `Parts Movement bench, ${run.at.slice(0, 10)}, ${claims} claims, ${run.database} database, ` +
    `${run.cores} cores (${cpu}), Deno ${run.deno}, commit ${run.commit}, ${run.seconds} s\n`,
);
console.log("| figure | service | baseline | ratio | note |\n|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.figure} | ${r.service} | ${r.baseline} | ${r.ratio} | ${r.note ?? ""} |`);
}

/** The commit the bench ran on (with `+` when the work tree had changes), or "unknown" outside git. */
async function currentCommit(): Promise<string> {
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, stdout: "piped", stderr: "null" }).output();
  try {
    const head = await git("rev-parse", "--short", "HEAD");
    if (!head.success) return "unknown";
    const dirty = (await git("status", "--porcelain")).stdout.length > 0;
    return new TextDecoder().decode(head.stdout).trim() + (dirty ? "+" : "");
  } catch {
    return "unknown";
  }
}
