/**
 * Standalone profile: resident memory and open time of PGlite on an existing data folder under different
 * options. `deno run -A bench/profile_pglite.ts <data dir> '<json options>'` (the folder is used as is).
 */
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

const rss = () => Number(/VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))?.[1]) / 1024;
const [dir, json] = Deno.args;
const options = JSON.parse(json ?? "{}");
const before = rss();
const t0 = performance.now();
const db = new PGlite({ dataDir: dir, extensions: { pg_trgm }, ...options });
await db.waitReady;
const open = performance.now() - t0;
const opened = rss();
for (let i = 0; i < 50; i++) {
  await db.query(
    "select c.*, p.* from claims c left join parts_orders p on p.claim_id = c.id where c.registration_norm like $1",
    ["%1%"],
  );
}
const settings = await db.query<{ name: string; setting: string }>(
  "select name, setting from pg_settings where name in ('shared_buffers','work_mem','max_connections','wal_buffers','temp_buffers')",
);
await new Promise((r) => setTimeout(r, 500));
console.log(JSON.stringify({
  options: json,
  openMs: Math.round(open),
  rssBefore: Math.round(before),
  rssOpened: Math.round(opened),
  rssAfterQueries: Math.round(rss()),
  settings: Object.fromEntries(settings.rows.map((r) => [r.name, r.setting])),
}));
await db.close();
if (Deno.env.get("SMAPS")) {
  // The largest resident mappings: the WASM memory is the anonymous one reserved at several GB.
  const text = Deno.readTextFileSync("/proc/self/smaps");
  const maps: { head: string; size: number; rss: number }[] = [];
  for (const block of text.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const head = block.split("\n")[0];
    const size = Number(/\nSize:\s+(\d+)/.exec(block)?.[1] ?? 0);
    const rss = Number(/\nRss:\s+(\d+)/.exec(block)?.[1] ?? 0);
    maps.push({ head, size, rss });
  }
  maps.sort((a, b) => b.rss - a.rss);
  for (const m of maps.slice(0, 15)) {
    console.log(
      (m.rss / 1024).toFixed(1).padStart(7),
      "MB of",
      (m.size / 1024).toFixed(0).padStart(7),
      m.head.slice(0, 100),
    );
  }
}
