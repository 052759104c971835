/**
 * `deno task backup` and `deno task restore` on the embedded database, run as the
 * operator runs them (child processes over a DATA_DIR): claims, movements and photos made through the real
 * upload and submission path, backed up, the DATA_DIR wiped, restored: every row and every photo's bytes
 * back, hashes equal. With PHOTO_STORE=postgres the photos travel inside the database. Refusals: a running
 * server (the embedded lock), a DATA_DIR that already holds a database, a damaged photo, a server URL.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { sql } from "kysely";
import { type Db, openDb } from "@/db/client.ts";
import { lockEmbeddedDb } from "@/db/embedded_lock.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { systemClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { PostgresPhotoStore } from "@/io/photo_stores/postgres.ts";
import { createApp } from "@/main.ts";
import { mintToken, submitDropOff, uploadPhoto, viaApp } from "@/tests/helpers/driver_flow.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { jpegPhoto, pngPhoto } from "@/testkit/photos.ts";

const TABLES = ["claims", "parts_orders", "parts_movements", "deliver_parts", "photos", "uploaded_images"];

function runTask(task: "backup" | "restore", file: string, env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `tasks/${task}.ts`, file],
    env: { DATABASE_URL: "", ...env }, // the embedded database unless a test says otherwise
    stdout: "piped",
    stderr: "piped",
  }).output().then((o) => ({
    code: o.code,
    out: new TextDecoder().decode(o.stdout),
    err: new TextDecoder().decode(o.stderr),
  }));
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Two drop-offs with photos through the real upload and handler, on the embedded database in `dataDir`. */
async function seed(db: Db, storage: PhotoStore, dataDir: string): Promise<void> {
  await migrateToLatest(db);
  const app = createApp({ db, storage, clock: systemClock, config: testConfig({ dataDir }) });
  const send = viaApp(app);
  const user = await makeUser(db, { role: "driver" });
  const driver = { email: user.email, publicKey: testConfig().publicKey };
  for (const photo of [await jpegPhoto(), await pngPhoto()]) {
    const shop = await makeRepairer(db);
    const { claim, parts } = await makeClaim(db, { management: shop.id, parts: [{ status: "Arrived" }] });
    const m = await mintToken(send, driver, claim.registration, parts[0].id);
    assert.equal((await uploadPhoto(send, m, photo)).status, 200);
    const answer = await submitDropOff(send, driver, claim.registration, shop.id, [
      { part: parts[0].id, image: m.record_id },
    ]);
    assert.equal(answer.result.status, "success");
  }
}

/** Every row of the tables a backup must keep, and every photo's bytes by key. */
async function snapshot(db: Db, storage: PhotoStore) {
  const rows: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    rows[table] = (await sql`select * from ${sql.table(table)} order by id`.execute(db)).rows;
  }
  const photos: Record<string, string> = {};
  for (const key of (await Array.fromAsync(storage.keys())).sort()) {
    const bytes = (await storage.read(key))!;
    assert.equal(sha256(bytes), key, "a stored photo hashes to its key");
    photos[key] = sha256(bytes);
  }
  return { rows, photos };
}

for (const photoStore of ["disk", "postgres"] as const) {
  Deno.test({
    name: `backup: backup → wipe → restore brings back every row and photo byte-identical [${photoStore}]`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const dataDir = await Deno.makeTempDir({ prefix: "pm-backup-" });
      const file = join(await Deno.makeTempDir({ prefix: "pm-backup-file-" }), "backup.tar");
      const env = { DATA_DIR: dataDir, PHOTO_STORE: photoStore };
      const store = (db: Db) =>
        photoStore === "disk"
          ? new DiskPhotoStore(join(dataDir, "photos"))
          : new PostgresPhotoStore(db, join(dataDir, "photos", "tmp"));
      try {
        let db = openDb({ dir: join(dataDir, "db") });
        await seed(db, store(db), dataDir);
        const before = await snapshot(db, store(db));
        await db.destroy();
        assert.equal(Object.keys(before.photos).length, 2, "two photos (thumbnails are made on demand)");
        assert.equal(before.rows.deliver_parts.length, 2);

        const backedUp = await runTask("backup", file, env);
        assert.equal(backedUp.code, 0, backedUp.err);
        assert.match(
          backedUp.out,
          photoStore === "disk" ? /and 2 photos/ : /and 0 photos[^]*in the database/,
        );

        await Deno.remove(dataDir, { recursive: true });
        await Deno.mkdir(dataDir);
        const restored = await runTask("restore", file, env);
        assert.equal(restored.code, 0, restored.err);

        db = openDb({ dir: join(dataDir, "db") });
        try {
          assert.deepEqual(await snapshot(db, store(db)), before);
        } finally {
          await db.destroy();
        }
        // A second restore over the restored database is refused: it never overwrites one.
        const again = await runTask("restore", file, env);
        assert.equal(again.code, 1);
        assert.match(again.err, /holds a database/);
      } finally {
        await Deno.remove(dataDir, { recursive: true }).catch(() => {});
        await Deno.remove(join(file, ".."), { recursive: true }).catch(() => {});
      }
    },
  });
}

Deno.test({
  name: "backup: refused while a server holds the embedded database; a damaged photo fails the restore",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-backup-" });
    const other = await Deno.makeTempDir({ prefix: "pm-backup-" });
    const file = join(other, "backup.tar");
    try {
      const db = openDb({ dir: join(dataDir, "db") });
      await seed(db, new DiskPhotoStore(join(dataDir, "photos")), dataDir);
      await db.destroy();
      const lock = await lockEmbeddedDb(dataDir, "serving"); // as a running server holds it
      const busy = await runTask("backup", file, { DATA_DIR: dataDir });
      assert.equal(busy.code, 1);
      assert.match(busy.err, /in use by another process.*Stop it before backing up/s);
      assert.equal(await Deno.stat(file).catch(() => null), null, "no backup file");
      lock.close();

      assert.equal((await runTask("backup", file, { DATA_DIR: dataDir })).code, 0);
      // One byte of a photo flipped inside the backup file (its data follows its 512-byte tar header).
      const bytes = await Deno.readFile(file);
      const name = new TextEncoder().encode(`photos/${sha256(await jpegPhoto())}`);
      const at = bytes.findIndex((_, i) => name.every((b, j) => bytes[i + j] === b)) + 512;
      assert.ok(at > 512);
      bytes[at + 100] ^= 0xff;
      await Deno.writeFile(file, bytes);
      const restored = await runTask("restore", file, { DATA_DIR: join(other, "data") });
      assert.equal(restored.code, 1);
      assert.match(restored.err, /is damaged in the backup/);
      assert.equal(await Deno.stat(join(other, "data", "db")).catch(() => null), null, "no half database");

      const server = await runTask("backup", file, {
        DATA_DIR: dataDir,
        DATABASE_URL: "postgres://x@127.0.0.1/db",
      });
      assert.equal(server.code, 2);
      assert.match(server.err, /pg_dump --format=custom/);
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
      await Deno.remove(other, { recursive: true }).catch(() => {});
    }
  },
});
