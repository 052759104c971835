/**
 * `deno task photos:migrate`: every photo of the configured store copied into another
 * and verified by its hash; a second run copies only what is missing; a failing target reports each photo
 * it could not take and leaves the source as it was (nothing is switched: PHOTO_STORE is the operator's).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { openDb } from "@/db/client.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { CHUNK_BYTES, PostgresPhotoStore } from "@/io/photo_stores/postgres.ts";
import { S3PhotoStore } from "@/io/photo_stores/s3.ts";
import { copyPhotos } from "@/tasks/photos_migrate.ts";
import { dbTest } from "@/testkit/db.ts";
import { startS3Server } from "@/testkit/s3_server.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(n, i + 65536)));
  return bytes;
}

/** Three photos (one of several postgres chunks) in `store`; returns their bytes by key. */
async function fill(store: PhotoStore): Promise<Map<string, Uint8Array>> {
  const photos = new Map<string, Uint8Array>();
  for (const size of [10, 70_000, CHUNK_BYTES * 2 + 1]) {
    const bytes = randomBytes(size);
    await store.writeStream(ReadableStream.from([bytes]), { maxBytes: size });
    photos.set(sha256(bytes), bytes);
  }
  return photos;
}

async function assertHolds(store: PhotoStore, photos: Map<string, Uint8Array>) {
  assert.deepEqual((await Array.fromAsync(store.keys())).sort(), [...photos.keys()].sort());
  for (const [key, bytes] of photos) assert.deepEqual(await store.read(key), bytes, key);
}

dbTest(
  "photos:migrate: disk → postgres copies and verifies every photo; a rerun copies nothing",
  async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "pm-migrate-" });
    try {
      const disk = new DiskPhotoStore(join(dir, "photos"));
      const photos = await fill(disk);
      const target = new PostgresPhotoStore(t.db, join(dir, "photos", "tmp"));
      assert.deepEqual(await copyPhotos(disk, target), { copied: 3, present: 0, failed: [] });
      await assertHolds(target, photos);
      await assertHolds(disk, photos); // the source is untouched
      // A photo uploaded meanwhile: the second run takes only that one.
      const late = randomBytes(500);
      await disk.writeStream(ReadableStream.from([late]), { maxBytes: 500 });
      photos.set(sha256(late), late);
      assert.deepEqual(await copyPhotos(disk, target), { copied: 1, present: 3, failed: [] });
      await assertHolds(target, photos);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test({
  name:
    "photos:migrate: disk → s3 while the S3 server is down fails every photo, then completes once it is back",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using s3 = await startS3Server();
    const dir = await Deno.makeTempDir({ prefix: "pm-migrate-" });
    const target = new S3PhotoStore(s3.config, join(dir, "photos", "tmp"));
    try {
      const disk = new DiskPhotoStore(join(dir, "photos"));
      const photos = await fill(disk);
      await s3.stop();
      const failed = await copyPhotos(disk, target);
      assert.equal(failed.copied, 0);
      assert.deepEqual(failed.failed.map((f) => f.key).sort(), [...photos.keys()].sort());
      assert.match(failed.failed[0].reason, /Photo store \(s3\) unavailable/);
      await assertHolds(disk, photos);
      await s3.start();
      assert.deepEqual(await copyPhotos(disk, target), { copied: 3, present: 0, failed: [] });
      await assertHolds(target, photos);
    } finally {
      target.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "photos:migrate: the task on the embedded database, disk → postgres, then PHOTO_STORE=postgres serves them",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "pm-migrate-" });
    try {
      let db = openDb({ dir: join(dir, "db") });
      await migrateToLatest(db);
      await db.destroy();
      const photos = await fill(new DiskPhotoStore(join(dir, "photos")));
      const run = (...args: string[]) =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", "tasks/photos_migrate.ts", ...args],
          env: { DATA_DIR: dir, DATABASE_URL: "", PHOTO_STORE: "" },
          stdout: "piped",
          stderr: "piped",
        }).output();
      const usage = await run("--to", "ftp");
      assert.equal(usage.code, 2);
      const out = await run("--to", "postgres");
      const text = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.match(text, /3 photos copied, 0 already there, 0 failed/);
      assert.match(text, /Nothing was switched: set PHOTO_STORE=postgres/);
      db = openDb({ dir: join(dir, "db") });
      try {
        await assertHolds(new PostgresPhotoStore(db, join(dir, "photos", "tmp")), photos);
      } finally {
        await db.destroy();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
