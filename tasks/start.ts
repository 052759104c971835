/**
 * Running the service as a program: configuration, database, migrations, assets, then tasks/serve.ts
 * (demo data, HTTP server, background workers, a clean stop on SIGINT/SIGTERM).
 */
import { startOpening } from "@/db/client.ts";
import { configOrExit, openConfiguredDb } from "@/tasks/setup.ts";
import { configureLogging } from "@/io/log.ts";
import { isNewEmbeddedDb, prepareInChild } from "@/tasks/first_start.ts";

/** `deno task start`: serves until SIGINT/SIGTERM. */
async function start(): Promise<void> {
  const config = configOrExit();
  configureLogging({ format: config.logFormat, level: config.logLevel });
  const db = await openConfiguredDb(config, "starting the server");
  // A new embedded folder is created, migrated and filled by a child process, whose memory leaves with it.
  if (isNewEmbeddedDb(config)) await prepareInChild();
  // Three independent waits at once (issue 14, a warm restart in ≤ 0.8 s): the database opens (PGlite
  // compiles its WebAssembly and starts PostgreSQL) and is checked for pending migrations (one read when at
  // the latest), the assets are checked (rebuilt when a fresh clone has none or a source changed), and the
  // server's modules load. The open starts first, before the modules of the other two are even imported
  // (dynamic imports below, not static ones above), so PGlite's file reads and WebAssembly compile run
  // on other threads while the main thread loads modules.
  startOpening(db);
  const [, , { serve }] = await Promise.all([
    import("@/db/migrate.ts").then(({ migrateToLatest }) => migrateToLatest(db)),
    import("@/render/assets.ts").then(({ ensureAssets }) => ensureAssets()),
    import("@/tasks/serve.ts"),
  ]);
  await serve(config, db);
}

if (import.meta.main) await start();
