/**
 * `deno task backup <file>`: the embedded database and the disk photos in one file (a tar, io/tar.ts):
 *   manifest.json     what the file holds (format, date, photo store, photo count)
 *   db.tar.gz         the embedded database (PGlite's dumpDataDir)
 *   photos/<sha256>   every stored photo, with PHOTO_STORE=disk (postgres: they are inside the database)
 * The server must be stopped first: it holds the embedded database (D5, db/embedded_lock.ts), and a copy
 * taken with nobody writing is consistent by construction. The file appears only once complete.
 * With a PostgreSQL server (DATABASE_URL) this prints the pg_dump recipe instead (docs/operations.md).
 */
import { join } from "node:path";
import { newPGlite } from "@/db/pglite.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { TarWriter } from "@/io/tar.ts";
import { configOrExit, lockEmbeddedOrExit } from "@/tasks/setup.ts";

export const BACKUP_FORMAT = "parts-movement-backup";
export const SERVER_RECIPE = [
  "DATABASE_URL is set: back up the PostgreSQL server with its own tools, e.g.",
  '  pg_dump --format=custom --file=parts-movement.dump "$DATABASE_URL"',
  '  pg_restore --clean --if-exists --dbname="$DATABASE_URL" parts-movement.dump',
  "Photos: postgres store, inside that dump; s3, back up the bucket; disk, copy DATA_DIR/photos (see docs/operations.md).",
].join("\n");

async function backup(target: string): Promise<void> {
  const config = configOrExit();
  if (config.databaseUrl) {
    console.error(SERVER_RECIPE);
    Deno.exit(2);
  }
  const dbDir = join(config.dataDir, "db");
  if (!await Deno.stat(dbDir).catch(() => null)) {
    console.error(`No embedded database in ${dbDir}: nothing to back up.`);
    Deno.exit(1);
  }
  await lockEmbeddedOrExit(config, "backing up", "stop it, back up, and start it again");

  const pglite = newPGlite({ dataDir: dbDir });
  await pglite.waitReady; // dumpDataDir does not wait for the start-up itself (it hangs if called early)
  const dump = await pglite.dumpDataDir("gzip");
  await pglite.close();

  const photos = config.photoStore === "disk" ? new DiskPhotoStore(join(config.dataDir, "photos")) : null;
  const keys = photos ? await Array.fromAsync(photos.keys()) : [];
  const partial = `${target}.partial`;
  const file = await Deno.open(partial, { write: true, create: true, truncate: true });
  try {
    const tar = new TarWriter(file);
    const manifest = {
      format: BACKUP_FORMAT,
      version: 1,
      created_at: new Date().toISOString(),
      photo_store: config.photoStore,
      photos: keys.length,
    };
    const manifestBytes = new TextEncoder().encode(JSON.stringify(manifest, null, 2));
    await tar.add("manifest.json", manifestBytes.length, manifestBytes);
    await tar.add("db.tar.gz", dump.size, dump.stream());
    for (const key of keys) {
      const stat = await photos!.stat(key);
      const body = await photos!.open(key);
      if (!stat || !body) throw new Error(`photo ${key} vanished during the backup`);
      await tar.add(`photos/${key}`, stat.bytes, body, stat.modified ?? undefined);
    }
    await tar.finish();
    await file.sync();
  } catch (error) {
    file.close();
    await Deno.remove(partial).catch(() => {});
    throw error;
  }
  file.close();
  await Deno.rename(partial, target);

  const mb = (dump.size / 1e6).toFixed(1);
  console.log(`Backed up the database (${mb} MB compressed) and ${keys.length} photos to ${target}.`);
  if (config.photoStore === "postgres") console.log("Photos are stored in the database: they are in it.");
  if (config.photoStore === "s3") {
    console.log(`Photos are in the S3 bucket ${config.s3?.bucket}: back it up there (docs/operations.md).`);
  }
}

if (import.meta.main) {
  const [target] = Deno.args;
  if (!target) {
    console.error("usage: deno task backup <file>");
    Deno.exit(2);
  }
  await backup(target);
}
