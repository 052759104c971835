/**
 * `deno task restore <file>`: brings back a backup of `deno task backup` into a DATA_DIR with no database
 * (a new machine, or after moving the old one away). The server must be stopped (the embedded lock, D5).
 * Every photo is re-hashed on the way in and must match its name; the database is unpacked beside and
 * renamed into place only once everything is in, so a failed restore leaves no half database behind.
 */
import { join } from "node:path";
import { newPGlite } from "@/db/pglite.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { readTar, type TarEntry } from "@/io/tar.ts";
import { BACKUP_FORMAT, SERVER_RECIPE } from "@/tasks/backup.ts";
import { configOrExit, lockEmbeddedOrExit } from "@/tasks/setup.ts";

class RestoreRefused extends Error {}

async function isEmptyDir(path: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(path)) return false;
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

async function next(entries: AsyncGenerator<TarEntry>, name: string): Promise<TarEntry> {
  const { value, done } = await entries.next();
  if (done || value.name !== name) throw new RestoreRefused(`Not a Parts Movement backup: ${name} missing.`);
  return value;
}

async function restore(source: string): Promise<void> {
  const config = configOrExit();
  if (config.databaseUrl) {
    console.error(SERVER_RECIPE);
    Deno.exit(2);
  }
  const dbDir = join(config.dataDir, "db");
  if (!await isEmptyDir(dbDir)) {
    throw new RestoreRefused(
      `${dbDir} holds a database: restore goes into a DATA_DIR without one. Move it away.`,
    );
  }
  await lockEmbeddedOrExit(config, "restoring");

  using file = await Deno.open(source, { read: true });
  const entries = readTar(file);
  const manifest = JSON.parse(await new Response((await next(entries, "manifest.json")).body()).text());
  if (manifest.format !== BACKUP_FORMAT || manifest.version !== 1) {
    throw new RestoreRefused(`Not a Parts Movement backup (version 1): ${source}.`);
  }

  const staging = join(config.dataDir, "db.restoring");
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  const dump = await new Response((await next(entries, "db.tar.gz")).body()).blob();
  const pglite = newPGlite({ dataDir: staging, loadDataDir: dump });
  await pglite.waitReady;
  await pglite.close();

  const photos = new DiskPhotoStore(join(config.dataDir, "photos"));
  let count = 0;
  for await (const entry of entries) {
    const key = entry.name.match(/^photos\/([0-9a-f]{64})$/)?.[1];
    if (!key) throw new RestoreRefused(`Unexpected entry in the backup: ${entry.name}.`);
    const stored = await photos.writeStream(entry.body(), { maxBytes: Math.max(entry.size, 1) });
    if (stored.key !== key) {
      throw new RestoreRefused(`Photo ${key} is damaged in the backup (its bytes differ).`);
    }
    count++;
  }
  if (count !== manifest.photos) {
    throw new RestoreRefused(`The backup lists ${manifest.photos} photos but holds ${count}.`);
  }
  await Deno.remove(dbDir).catch(() => {}); // an empty folder, checked above
  await Deno.rename(staging, dbDir);
  console.log(
    `Restored the database and ${count} photos into ${config.dataDir} (backup of ${manifest.created_at}).`,
  );
  if (manifest.photo_store !== config.photoStore) {
    console.log(
      `The backup was taken with PHOTO_STORE=${manifest.photo_store}; this is ${config.photoStore}.`,
    );
  }
}

if (import.meta.main) {
  const [source] = Deno.args;
  if (!source) {
    console.error("usage: deno task restore <file>");
    Deno.exit(2);
  }
  try {
    await restore(source);
  } catch (error) {
    if (!(error instanceof RestoreRefused)) throw error;
    console.error(error.message);
    Deno.exit(1);
  }
}
