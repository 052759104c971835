/** What every task does first: read the configuration (or exit naming the variable) and open the database. */
import { join } from "node:path";
import { openDb } from "@/db/client.ts";
import { EmbeddedDbBusy, lockEmbeddedDb } from "@/db/embedded_lock.ts";
import { PgliteShapeMismatch } from "@/db/pglite_shape.ts";
import { type Config, ConfigError, parseConfig, type PhotoStoreName } from "@/io/config.ts";
import type { Db } from "@/db/client.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { PostgresPhotoStore } from "@/io/photo_stores/postgres.ts";

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
 * Stops the process with the one line of a refusal to open the embedded database on a PGlite whose internals
 * are not the shape db/pglite*.ts patches (docs/pglite.md "The start-up check"); anything else is rethrown.
 * The refusal surfaces at the database's first statement, so a start catches it around its whole work.
 */
export function exitOnPgliteMismatch(error: unknown): never {
  if (error instanceof PgliteShapeMismatch) {
    console.error(error.message);
    Deno.exit(1);
  }
  throw error;
}

/**
 * Opens the configured database (taking the embedded lock) or exits with the reason; `alternative` says
 * what to do instead while a server holds the embedded database.
 */
export async function openConfiguredDb(config: Config, purpose: string, alternative?: string) {
  // The time bounds apply to a server only (db/client.ts says why not to PGlite).
  if (config.databaseUrl) return openDb({ url: config.databaseUrl, timeouts: config.db });
  await lockEmbeddedOrExit(config, purpose, alternative);
  return openDb({ dir: join(config.dataDir, "db") });
}

/** Takes the embedded database's lock (D5) for this process's lifetime, or exits saying who holds it. */
export async function lockEmbeddedOrExit(config: Config, purpose: string, alternative?: string) {
  try {
    await lockEmbeddedDb(config.dataDir, purpose, alternative);
  } catch (error) {
    if (error instanceof EmbeddedDbBusy) {
      console.error(error.message);
      Deno.exit(1);
    }
    throw error;
  }
}

/**
 * The photo store `PHOTO_STORE` names (or `kind`, for photos:migrate), over `db` for `postgres`. Every
 * backend stages uploads in `${DATA_DIR}/photos/tmp`; `disk` keeps the photos beside it. The S3 client is
 * imported only when chosen: the AWS SDK is about 25 MB of an idle process's memory
 * (docs/performance.md "Memory and start-up").
 */
export async function openPhotoStore(
  config: Config,
  db: Db,
  kind: PhotoStoreName = config.photoStore,
): Promise<PhotoStore> {
  const root = join(config.dataDir, "photos");
  switch (kind) {
    case "disk":
      return new DiskPhotoStore(root);
    case "postgres":
      return new PostgresPhotoStore(db, join(root, "tmp"));
    case "s3":
      if (!config.s3) {
        throw new ConfigError("Invalid configuration: S3_BUCKET is required for the s3 photo store");
      }
      return new (await import("@/io/photo_stores/s3.ts")).S3PhotoStore(config.s3, join(root, "tmp"));
  }
}
