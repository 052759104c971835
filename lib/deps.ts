/** What `createApp` needs; tests build it over a fresh database with a fake clock. */
import type { Db } from "@/db/client.ts";
import type { Clock } from "@/io/clock.ts";
import type { Config } from "@/io/config.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import type { makeThumbnail } from "@/io/thumbnail.ts";
import type { Metrics } from "@/lib/metrics.ts";

export interface AppDeps {
  db: Db;
  config: Config;
  clock: Clock;
  /** Photo bytes: disk, the database or S3, per PHOTO_STORE (tasks/setup.ts openPhotoStore). */
  storage: PhotoStore;
  /** Present only when `METRICS_TOKEN` is set (tasks/start.ts): the counters the app and worker share. */
  metrics?: Metrics;
  /** The PIN verification of sign-in (io/pin.ts verifyPin when unset); tests count PIN checks with it. */
  checkPin?: (pin: string, stored: string | null) => Promise<boolean>;
  /** The thumbnail decode (io/thumbnail.ts makeThumbnail when unset); tests count decodes in flight with it. */
  makeThumbnail?: typeof makeThumbnail;
  /** Free bytes under a path (lib/disk_space.ts statfsFreeBytes when unset); tests simulate a full disk. */
  freeDiskBytes?: (path: string) => Promise<number>;
}
