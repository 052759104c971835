/**
 * `deno task purge`: runs the photo purge (D19) once, now, and prints what it removed. The server runs
 * the same purge daily by itself; on the embedded database this refuses while a server holds it.
 */
import { migrateToLatest } from "@/db/migrate.ts";
import { systemClock } from "@/io/clock.ts";
import { purgePhotos } from "@/lib/photos/purge.ts";
import { configOrExit, openConfiguredDb, openPhotoStore } from "@/tasks/setup.ts";

const config = configOrExit();
const db = await openConfiguredDb(
  config,
  "purging photos",
  "leave it to the running server, which purges daily",
);
try {
  await migrateToLatest(db);
  const storage = await openPhotoStore(config, db);
  const r = await purgePhotos({ db, storage, clock: systemClock }).finally(() => storage.close());
  console.log(
    `Purged ${r.stagedRows} staged rows, ${r.photoRows} photo rows, ${r.files} files, ` +
      `${r.tmpFiles} temporary files.`,
  );
} finally {
  await db.destroy();
}
