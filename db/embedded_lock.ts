/**
 * The embedded database belongs to one process (D5). Whoever opens `DATA_DIR/db` holds an exclusive
 * lock on `DATA_DIR/db.lock` for its lifetime; a second server or an import finds it taken and refuses
 * with a message instead of corrupting the database.
 */
import { join } from "node:path";

export class EmbeddedDbBusy extends Error {}

/** Takes the lock or throws EmbeddedDbBusy. The lock lasts until the returned file is closed or the process ends. */
export async function lockEmbeddedDb(
  dataDir: string,
  purpose: string,
  alternative?: string,
): Promise<Deno.FsFile> {
  await Deno.mkdir(dataDir, { recursive: true });
  const path = join(dataDir, "db.lock");
  const file = await Deno.open(path, { read: true, write: true, create: true });
  // Deno has no try-lock: a lock that is not granted at once means another process holds it.
  const granted = await Promise.race([
    file.lock(true).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 500)),
  ]);
  if (!granted) {
    throw new EmbeddedDbBusy(
      `The embedded database in ${join(dataDir, "db")} is in use by another process (a running server?). ` +
        `Stop it before ${purpose}${alternative ? `, or ${alternative}` : ""}.`,
    );
  }
  return file;
}
