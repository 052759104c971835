// Question: what does the parts CSV export cost a row, in this process and in its PostgreSQL backends, and are its bytes unchanged? Run: deno run -A bench/profiles/csv_export.ts --url postgres://…/<filled db> [--zone Australia/Sydney] [--status Arrived] [--hash]
/**
 * Not part of `deno task bench` (docs/performance.md "Dashboard at 1M claims"): drains `partsCsv` once, in
 * this process (no HTTP), on a server database already filled by bench/generate_scale.ts (e.g. by
 * `--only dashboard`), and prints one JSON line: rows, bytes, rows/s, this process's CPU time, its peak RSS
 * (sampled every 20 ms), the CPU time of the database's backends (read from /proc: the server must run on
 * this machine) and, with `--hash`, the SHA-256 of the bytes (the same export before and after a change must
 * hash alike). CPU times move less with the machine's load than rows/s.
 * A/B: run it alternately here and in a `git worktree` of the previous commit (the script copied there).
 * For a CPU profile: `deno run -A --cpu-prof --cpu-prof-dir=/tmp/csv-prof bench/profiles/csv_export.ts …`.
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import process from "node:process";
import { sql } from "kysely";
import { openDb } from "@/db/client.ts";
import { partsCsv } from "@/lib/dashboard/exports.ts";
import { PART_STATUSES, type PartStatus } from "@/db/schema.ts";
import { countLines } from "@/bench/dashboard.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    url: { type: "string" },
    zone: { type: "string", default: "UTC" },
    status: { type: "string" },
    hash: { type: "boolean", default: false },
  },
});
if (!values.url || (values.status && !(PART_STATUSES as readonly string[]).includes(values.status))) {
  console.error(
    "usage: deno run -A bench/profiles/csv_export.ts --url postgres://… [--zone Z] [--status S] [--hash]",
  );
  Deno.exit(2);
}
const db = openDb({ url: values.url });
/** User + system CPU seconds of each backend serving this database (its pool's connections). */
async function backendCpu(): Promise<Map<number, number>> {
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity
    where datname = current_database() and backend_type = 'client backend'`.execute(db);
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (f.length > 13) ticks.set(pid, (Number(f[11]) + Number(f[12])) / 100);
  }
  return ticks;
}

const before = await backendCpu();
const idleRss = Deno.memoryUsage().rss;
let peakRss = idleRss;
const sampler = setInterval(() => peakRss = Math.max(peakRss, Deno.memoryUsage().rss), 20);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const stream = await partsCsv(db, values.status ? { status: values.status as PartStatus } : {}, values.zone);
const hash = values.hash ? createHash("sha256") : undefined;
let bytes = 0;
const lines = await countLines(stream.pipeThrough(
  new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.length;
      hash?.update(chunk);
      controller.enqueue(chunk);
    },
  }),
));
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
clearInterval(sampler);
const after = await backendCpu();
let database = 0;
for (const [pid, s] of after) database += s - (before.get(pid) ?? 0);
await db.destroy();
const rows = lines - 1;
console.log(JSON.stringify({
  rows,
  bytes,
  seconds: +seconds.toFixed(2),
  rowsPerSec: Math.round(rows / seconds),
  serviceCpuUsPerRow: +((cpu.user + cpu.system) / rows).toFixed(2),
  databaseCpuUsPerRow: +(database * 1e6 / rows).toFixed(2),
  idleRssMB: Math.round(idleRss / 1e6),
  peakRssMB: Math.round(peakRss / 1e6),
  ...(hash && { sha256: hash.digest("hex") }),
}));
