/**
 * `deno task purge`: runs the photo purge (D19) once, now, and prints what it removed. The server runs
 * the same purge daily by itself; on the embedded database this refuses while a server holds it.
 */
import { migrateToLatest } from "@/db/migrate.ts";
import { systemClock } from "@/lib/clock.ts";
import { purgePhotos } from "@/lib/purge.ts";
import { configOrExit, openConfiguredDb } from "@/lib/server.ts";
import { PhotoStorage } from "@/lib/storage.ts";
import { join } from "node:path";

const config = configOrExit();
const db = await openConfiguredDb(
  config,
  "purging photos",
  "leave it to the running server, which purges daily",
);
try {
  await migrateToLatest(db);
  const storage = new PhotoStorage(join(config.dataDir, "photos"));
  const r = await purgePhotos({ db, storage, clock: systemClock });
  console.log(
    `Purged ${r.stagedRows} staged rows, ${r.photoRows} photo rows, ${r.files} files, ` +
      `${r.tmpFiles} temporary files.`,
  );
} finally {
  await db.destroy();
}
