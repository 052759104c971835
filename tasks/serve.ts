/**
 * The serving half of `deno task start` (tasks/start.ts prepares the database and assets first): demo
 * data, the photo store, the HTTP server, background workers, and a clean stop on SIGINT/SIGTERM.
 */
import type { Db } from "@/db/client.ts";
import { stopChangeFeed } from "@/lib/live/feed.ts";
import { systemClock } from "@/io/clock.ts";
import { ALL_INTERFACES, type Config, LOOPBACK } from "@/io/config.ts";
import { openPhotoStore } from "@/tasks/setup.ts";
import { DEMO_SIGN_IN_HINT, loadDemoDataIfEmpty } from "@/lib/demo_data.ts";
import { startAnnouncementWorker } from "@/lib/announcements/worker.ts";
import { startPurgeSchedule } from "@/lib/photos/purge.ts";
import { startRetakeSweep } from "@/lib/photos/retakes.ts";
import { diskSpaceOf } from "@/lib/disk_space.ts";
import { repeatEvery } from "@/io/repeat.ts";
import { startSessionSweep } from "@/lib/sessions.ts";
import { createApp } from "@/main.ts";
import { logger } from "@/io/log.ts";
import { startMemoryReducer } from "@/io/memory_reducer.ts";
import { type HttpLayer, WHOLE_HTTP_LAYER } from "@/routes/web/http_layer.ts";
import { countTrendDaysIn } from "@/db/queries/trends.ts";

/**
 * Who can reach the server, for the start banner (docs/configuration.md `HOST`): a development start is
 * on loopback unless told otherwise, so the demo's self-enrolling tablet door is not open to the network.
 */
function reachOf(host: string, port: number): string {
  if (host === LOOPBACK || host === "::1") {
    return `this machine only (http://localhost:${port}); set HOST=0.0.0.0 to serve other devices`;
  }
  if (host === ALL_INTERFACES || host === "::") {
    return `every interface (http://localhost:${port} on this machine)`;
  }
  return `that address only`;
}

/**
 * Serves on a migrated database until SIGINT/SIGTERM. `layer`: every guarantee of the HTTP layer, unless a
 * bench measures what one costs (routes/web/http_layer.ts); tasks/start.ts passes none.
 */
export async function serve(
  config: Config,
  db: Db,
  layer: Readonly<HttpLayer> = WHOLE_HTTP_LAYER,
): Promise<void> {
  const log = logger("start");
  const clock = systemClock;
  // The hint is for the person at the terminal, not a log pipeline: plain text on stdout.
  if (await loadDemoDataIfEmpty(db, config, clock)) console.log(DEMO_SIGN_IN_HINT);

  const startedAt = new Date();
  const storage = await openPhotoStore(config, db);
  // This server's uploads are staged in a folder of its own, cleared once the port is ours (below).
  storage.stageInOwnFolder(`${Deno.hostname()}-${config.port}`);
  // Counted only when a scraper can read them (METRICS_TOKEN); the app and the worker share the counters.
  // prom-client is loaded only then: without a token it would be 20 MB of an idle process for nothing.
  const metrics = config.metricsToken ? new (await import("@/lib/metrics.ts")).Metrics() : undefined;
  const deps = { db, config, clock, storage, metrics };
  const app = createApp(deps, layer);
  // D22: posts the outbox after commit. Its first round waits a second (a write wakes it sooner), so a warm
  // restart's first /healthz is not queued behind that round's transaction on the embedded database.
  const announcer = startAnnouncementWorker({ db, config, clock, metrics }, { firstDelayMs: 1_000 });
  const purge = startPurgeSchedule({ db, storage, clock }); // D19: daily, first run a minute after start
  const sweep = startSessionSweep({ db, clock }); // idle sessions and closed PIN windows, every 10 minutes
  const retakes = startRetakeSweep({ db, storage, clock }); // photos a retake replaced, every 30 s
  // Free disk space under DATA_DIR: its warning comes before /readyz fails, whether or not anyone probes.
  const disk = repeatEvery(async () => void await diskSpaceOf(deps).check(), {
    firstDelayMs: 0,
    intervalMs: 60_000,
    onError: (error) => log.warning("Free disk space not measured: {error}", { error: String(error) }),
  });
  // The trends' day summary counted in this depot's zone: at once when it already is, a long statement when
  // the zone changed (docs/trends.md "At scale"), off the start's path either way.
  countTrendDaysIn(db, config.depotTimeZone).catch((error) =>
    log.warning("Trends' days not counted in the depot's zone: {error}", { error: String(error) })
  );
  // Memory back to the system in quiet spells; each request (its arrival, one clock read) restarts the wait.
  const reducer = config.idleMemoryMs > 0 ? startMemoryReducer(config.idleMemoryMs) : undefined;
  const server = Deno.serve({
    port: config.port,
    hostname: config.host,
    onListen: ({ port }) => {
      log.info(`Parts Movement ({app_env}) listening on {address}, {reach}`, {
        app_env: config.appEnv,
        address: `${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
        reach: reachOf(config.host, port),
        port,
      });
      // The port is ours, so no other live server stages in this folder: what is older than this start is
      // what a killed previous run left mid-upload (docs/operations.md "Disk space").
      storage.clearOwnFolder(startedAt).then(
        (n) => n && log.info("Removed {count} staging files a previous run left", { count: n }),
        (error) => log.warning("Staging folder not cleared: {error}", { error: String(error) }),
      );
    },
  }, reducer ? (request, info) => (reducer.activity(), app.fetch(request, info)) : app.fetch);

  const stop = async () => {
    await stopChangeFeed(db); // ends the live dashboard's open streams, which shutdown() would wait for
    await server.shutdown();
    await announcer.stop();
    await purge.stop();
    await sweep.stop();
    await retakes.stop();
    await disk.stop();
    reducer?.stop();
    storage.close();
    await db.destroy();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await server.finished;
}
