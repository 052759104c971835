/**
 * Running the service as a program: configuration, database, migrations, demo data, HTTP server,
 * background workers, and a clean stop on SIGINT/SIGTERM.
 */
import { migrateToLatest } from "@/db/migrate.ts";
import { ensureAssets } from "@/render/assets.ts";
import { systemClock } from "@/io/clock.ts";
import { configOrExit, openConfiguredDb, openPhotoStore } from "@/tasks/setup.ts";
import { DEMO_SIGN_IN_HINT, loadDemoDataIfEmpty } from "@/lib/demo_data.ts";
import { startAnnouncementWorker } from "@/lib/announcements/worker.ts";
import { startPurgeSchedule } from "@/lib/photos/purge.ts";
import { createApp } from "@/main.ts";

/** `deno task start`: serves until SIGINT/SIGTERM. */
async function start(): Promise<void> {
  const config = configOrExit();
  const clock = systemClock;
  const db = await openConfiguredDb(config, "starting the server");
  await migrateToLatest(db);
  // Bundles islands and builds the CSS when a fresh clone has none or a source changed (fast when current).
  await ensureAssets();
  if (await loadDemoDataIfEmpty(db, config, clock)) console.log(DEMO_SIGN_IN_HINT);

  const storage = openPhotoStore(config, db);
  const app = createApp({ db, config, clock, storage });
  const announcer = startAnnouncementWorker({ db, config, clock }); // D22: posts the outbox after commit
  const purge = startPurgeSchedule({ db, storage, clock }); // D19: daily, first run a minute after start
  const server = Deno.serve({
    port: config.port,
    hostname: "0.0.0.0",
    onListen: ({ port }) =>
      console.log(`Parts Movement (${config.appEnv}) listening on http://localhost:${port}`),
  }, app.fetch);

  const stop = async () => {
    await server.shutdown();
    await announcer.stop();
    await purge.stop();
    storage.close();
    await db.destroy();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.finished;
}

if (import.meta.main) await start();
