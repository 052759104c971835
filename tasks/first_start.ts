/**
 * The first start on a new embedded data folder, in a child process of `deno task start`: PGlite's initdb,
 * the migrations and the demo data load. What they use (initdb's own WebAssembly instance, the import's
 * buffers, memory PGlite grew and never gives back) leaves with the child, so the server then opens the
 * prepared folder as on any warm restart: 798 MB idle after a first start became about the warm figure
 * (docs/performance.md "Memory and start-up"). The parent holds the embedded lock meanwhile.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "@/io/config.ts";

/** Whether the embedded database folder holds no database yet (PostgreSQL writes PG_VERSION first). */
export function isNewEmbeddedDb(config: Config): boolean {
  return !config.databaseUrl && !existsSync(join(config.dataDir, "db", "PG_VERSION"));
}

/** Runs this file as a child with the same environment; exits the process if the child failed. */
export async function prepareInChild(): Promise<void> {
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("../deno.json", import.meta.url).pathname, import.meta.filename!],
    stdin: "null",
    stdout: "inherit", // the demo's sign-in hint is for the person at the terminal
    stderr: "inherit",
  }).spawn().status;
  if (code !== 0) Deno.exit(code);
}

if (import.meta.main) {
  // Imported here, not at the top: the server imports this file for the two functions above only.
  const { openDb } = await import("@/db/client.ts");
  const { migrateToLatest } = await import("@/db/migrate.ts");
  const { systemClock } = await import("@/io/clock.ts");
  const { configureLogging } = await import("@/io/log.ts");
  const { DEMO_SIGN_IN_HINT, loadDemoDataIfEmpty } = await import("@/lib/demo_data.ts");
  const { configOrExit, exitOnPgliteMismatch } = await import("@/tasks/setup.ts");
  const config = configOrExit();
  configureLogging({ format: config.logFormat, level: config.logLevel });
  const db = openDb({ dir: join(config.dataDir, "db") });
  await migrateToLatest(db).catch(exitOnPgliteMismatch);
  if (await loadDemoDataIfEmpty(db, config, systemClock)) console.log(DEMO_SIGN_IN_HINT);
  await db.destroy();
}
