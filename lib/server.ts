/**
 * Running the service as a program: configuration, database, migrations, demo data, HTTP server,
 * background workers, and a clean stop on SIGINT/SIGTERM.
 */
import { join } from "node:path";
import { openDb } from "@/db/client.ts";
import { EmbeddedDbBusy, lockEmbeddedDb } from "@/db/embedded_lock.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { ensureAssets } from "@/lib/assets.ts";
import { systemClock } from "@/lib/clock.ts";
import { type Config, ConfigError, parseConfig } from "@/lib/config.ts";
import { DEMO_SIGN_IN_HINT, loadDemoDataIfEmpty } from "@/lib/demo_data.ts";
import { PhotoStorage } from "@/lib/storage.ts";
import { startAnnouncementWorker } from "@/lib/announcements/worker.ts";
import { startPurgeSchedule } from "@/lib/purge.ts";
import type { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";

/** Reads the configuration or stops the process with one line naming the variable (D2). */
export function configOrExit(): Config {
  try {
    return parseConfig(Deno.env.toObject());
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      Deno.exit(1);
    }
    throw error;
  }
}

/**
 * Opens the configured database (taking the embedded lock) or exits with the reason; `alternative` says
 * what to do instead while a server holds the embedded database.
 */
export async function openConfiguredDb(config: Config, purpose: string, alternative?: string) {
  if (config.databaseUrl) return openDb({ url: config.databaseUrl });
  try {
    await lockEmbeddedDb(config.dataDir, purpose, alternative);
  } catch (error) {
    if (error instanceof EmbeddedDbBusy) {
      console.error(error.message);
      Deno.exit(1);
    }
    throw error;
  }
  return openDb({ dir: join(config.dataDir, "db") });
}

/** `createApp` comes from main.ts, passed in so the two modules do not import each other. */
export async function start(createApp: (deps: AppDeps) => Hono): Promise<void> {
  const config = configOrExit();
  const clock = systemClock;
  const db = await openConfiguredDb(config, "starting the server");
  await migrateToLatest(db);
  // Bundles islands and builds the CSS when a fresh clone has none or a source changed (fast when current).
  await ensureAssets();
  if (await loadDemoDataIfEmpty(db, config, clock)) console.log(DEMO_SIGN_IN_HINT);

  const storage = new PhotoStorage(join(config.dataDir, "photos"));
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
    await db.destroy();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.finished;
}
