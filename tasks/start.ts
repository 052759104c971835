/**
 * Running the service as a program: configuration, database, migrations, demo data, HTTP server,
 * background workers, and a clean stop on SIGINT/SIGTERM.
 */
import { stopChangeFeed } from "@/lib/live/feed.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { ensureAssets } from "@/render/assets.ts";
import { systemClock } from "@/io/clock.ts";
import { configOrExit, openConfiguredDb, openPhotoStore } from "@/tasks/setup.ts";
import { DEMO_SIGN_IN_HINT, loadDemoDataIfEmpty } from "@/lib/demo_data.ts";
import { startAnnouncementWorker } from "@/lib/announcements/worker.ts";
import { startPurgeSchedule } from "@/lib/photos/purge.ts";
import { startSessionSweep } from "@/lib/sessions.ts";
import { createApp } from "@/main.ts";
import { configureLogging, logger } from "@/io/log.ts";
import { isNewEmbeddedDb, prepareInChild } from "@/tasks/first_start.ts";

/** `deno task start`: serves until SIGINT/SIGTERM. */
async function start(): Promise<void> {
  const config = configOrExit();
  configureLogging({ format: config.logFormat, level: config.logLevel });
  const log = logger("start");
  const clock = systemClock;
  const db = await openConfiguredDb(config, "starting the server");
  // A new embedded folder is created, migrated and filled by a child process, whose memory leaves with it.
  if (isNewEmbeddedDb(config)) await prepareInChild();
  await migrateToLatest(db); // one read when already at the latest migration
  // Bundles islands and builds the CSS when a fresh clone has none or a source changed (fast when current).
  await ensureAssets();
  // The hint is for the person at the terminal, not a log pipeline: plain text on stdout.
  if (await loadDemoDataIfEmpty(db, config, clock)) console.log(DEMO_SIGN_IN_HINT);

  const storage = await openPhotoStore(config, db);
  // Counted only when a scraper can read them (METRICS_TOKEN); the app and the worker share the counters.
  // prom-client is loaded only then: without a token it would be 20 MB of an idle process for nothing.
  const metrics = config.metricsToken ? new (await import("@/lib/metrics.ts")).Metrics() : undefined;
  const app = createApp({ db, config, clock, storage, metrics });
  const announcer = startAnnouncementWorker({ db, config, clock, metrics }); // D22: posts the outbox after commit
  const purge = startPurgeSchedule({ db, storage, clock }); // D19: daily, first run a minute after start
  const sweep = startSessionSweep({ db, clock }); // idle sessions and closed PIN windows, every 10 minutes
  const server = Deno.serve({
    port: config.port,
    hostname: "0.0.0.0",
    onListen: ({ port }) =>
      log.info("Parts Movement ({app_env}) listening on http://localhost:{port}", {
        app_env: config.appEnv,
        port,
      }),
  }, app.fetch);

  const stop = async () => {
    await stopChangeFeed(db); // ends the live dashboard's open streams, which shutdown() would wait for
    await server.shutdown();
    await announcer.stop();
    await purge.stop();
    await sweep.stop();
    storage.close();
    await db.destroy();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.finished;
}

if (import.meta.main) await start();
