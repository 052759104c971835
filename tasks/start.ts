/**
 * Running the service as a program: configuration, database, migrations, assets, then tasks/serve.ts
 * (demo data, HTTP server, background workers, a clean stop on SIGINT/SIGTERM).
 *
 * Every module is imported statically, tasks/serve.ts too (warm restart): a dynamic `import()`
 * of the server's graph, meant to load it while the database opened, cost Deno about 0.4 s more CPU to
 * healthy than the same graph imported statically (server database 0.70–0.81 s against 0.34 s, embedded
 * 1.38–1.46 s against 1.00–1.04 s; docs/performance.md "Memory and start-up"): more than it overlapped.
 * That cost is deno.json's `"nodeModulesDir": "auto"`, not the import itself: for a graph reached only by
 * a dynamic import, Deno checks node_modules again for every npm import in it (161 checks under the node_modules
 * lock for this graph; `DENO_LOG=debug`). With `--node-modules-dir=manual` the same dynamic import cost no more
 * CPU than the static one (0.13 s against 0.12 s), but a fresh clone would then need `deno install` before
 * `deno task start`, so the static imports stay while "auto" does.
 *
 * tasks/start_first.ts comes first: it starts compiling PGlite's WebAssembly before the rest evaluate.
 */
import "@/tasks/start_first.ts"; // first: see above
import { migrateToLatest } from "@/db/migrate.ts";
import { ensureAssets } from "@/render/assets.ts";
import { configOrExit, exitOnPgliteMismatch, openConfiguredDb } from "@/tasks/setup.ts";
import { configureLogging } from "@/io/log.ts";
import { isNewEmbeddedDb, prepareInChild } from "@/tasks/first_start.ts";
import { serve } from "@/tasks/serve.ts";

/** `deno task start`: serves until SIGINT/SIGTERM. */
async function start(): Promise<void> {
  const config = configOrExit();
  configureLogging({ format: config.logFormat, level: config.logLevel });
  const db = await openConfiguredDb(config, "starting the server");
  // A new embedded folder is created, migrated and filled by a child process, whose memory leaves with it.
  if (isNewEmbeddedDb(config)) await prepareInChild();
  // Two independent waits at once: the database opens (PGlite compiles its WebAssembly and starts
  // PostgreSQL) and is checked for pending migrations (one read when at the latest), and the assets are
  // checked (rebuilt when a fresh clone has none or a source changed).
  await Promise.all([migrateToLatest(db), ensureAssets()]);
  await serve(config, db);
}

if (import.meta.main) await start().catch(exitOnPgliteMismatch);
