/**
 * Standalone profile: resident memory of PGlite's first open of an empty folder (initdb) and what a close
 * and reopen gives back. `deno run -A --v8-flags=--expose-gc bench/profile_first_open.ts`
 */
import { newPGlite } from "@/db/pglite.ts";

const gc = (globalThis as unknown as { gc?: () => void }).gc ?? (() => {});
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))?.[1]) / 1024;
const settle = async (label: string) => {
  gc();
  await new Promise((r) => setTimeout(r, 300));
  gc();
  console.log(
    label.padEnd(24),
    rss().toFixed(0),
    "MB, external",
    (Deno.memoryUsage().external / 1e6).toFixed(0),
    "MB",
  );
};
const dir = (await Deno.makeTempDir()) + (Deno.args[0] ?? "");
await settle("before");
let db = newPGlite({ dataDir: dir });
await db.waitReady;
await settle("first open (initdb)");
await db.close();
// deno-lint-ignore no-explicit-any
db = undefined as any;
await settle("closed");
db = newPGlite({ dataDir: dir });
await db.waitReady;
await settle("reopened");
await db.close();
