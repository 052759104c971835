/** What `createApp` needs; tests build it over a fresh database with a fake clock. */
import type { Db } from "@/db/client.ts";
import type { Clock } from "@/io/clock.ts";
import type { Config } from "@/io/config.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";

export interface AppDeps {
  db: Db;
  config: Config;
  clock: Clock;
  /** Photo bytes: disk, the database or S3, per PHOTO_STORE (tasks/setup.ts openPhotoStore). */
  storage: PhotoStore;
}
