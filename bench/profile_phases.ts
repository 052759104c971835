/**
 * Standalone profile: time and memory of each phase of a start, in one process, on the embedded database
 * folder given (created when missing). `deno run -A --v8-flags=--expose-gc bench/profile_phases.ts <dir>`
 * Each line: milliseconds since start, RSS, V8 heap used/total, external memory (ArrayBuffers, WASM).
 */
const t0 = performance.now();
const gc = () => (globalThis as unknown as { gc?: () => void }).gc?.();
const mark = (label: string) => {
  const m = Deno.memoryUsage();
  const mb = (n: number) => (n / 1e6).toFixed(0);
  console.log(
    `${label.padEnd(14)} ${(performance.now() - t0).toFixed(0).padStart(6)} ms  rss ${mb(m.rss)}  ` +
      `heap ${mb(m.heapUsed)}/${mb(m.heapTotal)}  ext ${mb(m.external)}`,
  );
};
mark("boot");
const { openDb } = await import("@/db/client.ts");
mark("import db");
await import("@/main.ts");
mark("import app");
const { migrateToLatest } = await import("@/db/migrate.ts");
const { loadDemoDataIfEmpty } = await import("@/lib/demo_data.ts");
const { parseConfig } = await import("@/io/config.ts");
const { systemClock } = await import("@/io/clock.ts");
const { ensureAssets } = await import("@/render/assets.ts");
const { sql } = await import("kysely");
mark("imports");
const config = parseConfig(Deno.env.toObject());
const db = openDb({ dir: Deno.args[0] });
await sql`select 1`.execute(db);
gc();
mark("pglite open");
await migrateToLatest(db);
gc();
mark("migrate");
await ensureAssets();
gc();
mark("assets");
await loadDemoDataIfEmpty(db, config, systemClock);
gc();
mark("demo");
await db.destroy();
