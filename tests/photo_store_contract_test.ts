/**
 * The photo store contract, run on every backend: disk, postgres (on PGlite and, with TEST_DATABASE_URL,
 * on the server) and s3 (against a real S3-protocol server, testkit/s3_server.ts). What io/photo_storage.ts
 * promises: content-addressed, byte-identical round trips (several chunks for postgres), deduplication that
 * refreshes the time a purge reads, nothing stored by a discarded or failed commit, verification of what the
 * store holds, removal with olderThan, safe keys, and a write probe.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { InvalidPhotoKeyError, type PhotoStore, PhotoStoreUnavailable } from "@/io/photo_storage.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { CHUNK_BYTES, PostgresPhotoStore } from "@/io/photo_stores/postgres.ts";
import { S3PhotoStore } from "@/io/photo_stores/s3.ts";
import { dbTest } from "@/testkit/db.ts";
import { startS3Server } from "@/testkit/s3_server.ts";

type Backend = "disk" | "postgres" | "s3";

interface Ctx {
  store: PhotoStore;
  /** The local staging folder of this store. */
  tmpDir: string;
}

/** Registers `fn` once per backend (postgres once per database kind). */
function storeTest(
  name: string,
  fn: (c: Ctx) => Promise<void>,
  backends: Backend[] = ["disk", "postgres", "s3"],
) {
  const withTmp = async (make: (tmpDir: string, root: string) => PhotoStore) => {
    const root = await Deno.makeTempDir({ prefix: "pm-store-" });
    const tmpDir = join(root, "photos", "tmp");
    const store = make(tmpDir, join(root, "photos"));
    try {
      await fn({ store, tmpDir });
    } finally {
      store.close();
      await Deno.remove(root, { recursive: true });
    }
  };
  const opts = { sanitizeResources: false, sanitizeOps: false };
  if (backends.includes("disk")) {
    Deno.test({
      name: `photo store: ${name} [disk]`,
      ...opts,
      fn: () => withTmp((_, root) => new DiskPhotoStore(root)),
    });
  }
  if (backends.includes("postgres")) {
    dbTest(
      `photo store: ${name} [postgres store]`,
      (t) => withTmp((tmp) => new PostgresPhotoStore(t.db, tmp)),
    );
  }
  if (backends.includes("s3")) {
    Deno.test({
      name: `photo store: ${name} [s3]`,
      ...opts,
      fn: async () => {
        await using s3 = await startS3Server();
        await withTmp((tmp) => new S3PhotoStore(s3.config, tmp));
      },
    });
  }
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function randomBytes(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(n, i + 65536)));
  return bytes;
}

/** `bytes` as a stream of `size`-byte chunks. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

const write = (store: PhotoStore, bytes: Uint8Array) =>
  store.writeStream(chunked(bytes, 100_000), { maxBytes: 1 << 30 });

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function tmpEntries(tmpDir: string): Promise<string[]> {
  return await Array.fromAsync(Deno.readDir(tmpDir), (e) => e.name).catch(() => []);
}

storeTest(
  "a photo of several chunks round-trips byte-identical under its SHA-256",
  async ({ store, tmpDir }) => {
    const bytes = randomBytes(2 * CHUNK_BYTES + 12_345); // three chunk rows in postgres
    const small = randomBytes(10);
    const stored = await write(store, bytes);
    assert.deepEqual(stored, { key: sha256(bytes), bytes: bytes.length });
    await write(store, small);
    assert.deepEqual(await store.read(stored.key), bytes);
    assert.deepEqual(await readAll((await store.open(stored.key))!), bytes);
    assert.equal((await store.stat(stored.key))?.bytes, bytes.length);
    assert.equal(await store.exists(stored.key), true);
    assert.deepEqual((await Array.fromAsync(store.keys())).sort(), [stored.key, sha256(small)].sort());
    assert.deepEqual(await tmpEntries(tmpDir), [], "no temporary file left");
  },
);

storeTest("a missing key is null or false everywhere", async ({ store }) => {
  const key = sha256(new Uint8Array([9]));
  assert.equal(await store.exists(key), false);
  assert.equal(await store.stat(key), null);
  assert.equal(await store.open(key), null);
  assert.equal(await store.read(key), null);
  assert.equal(await store.remove(key), false);
});

storeTest(
  "identical uploads share one copy; a re-upload refreshes the time the purge reads",
  async ({ store }) => {
    const bytes = randomBytes(50_000);
    const a = await write(store, bytes);
    const first = (await store.stat(a.key))!.modified!;
    await new Promise((r) => setTimeout(r, 1100)); // S3 keeps LastModified to the second
    const b = await write(store, bytes);
    assert.equal(a.key, b.key);
    assert.deepEqual(await Array.fromAsync(store.keys()), [a.key]);
    const second = (await store.stat(a.key))!.modified!;
    assert.ok(second > first, `${second.toISOString()} after ${first.toISOString()}`);
    // A purge that started between the two uploads keeps the photo; one started later removes it.
    assert.equal(await store.remove(a.key, { olderThan: new Date(first.getTime() + 500) }), false);
    assert.equal(await store.exists(a.key), true);
    assert.equal(await store.remove(a.key, { olderThan: new Date(second.getTime() + 1000) }), true);
    assert.equal(await store.exists(a.key), false);
  },
);

storeTest("a discarded upload stores nothing and leaves no temporary file", async ({ store, tmpDir }) => {
  const bytes = randomBytes(20_000);
  const staged = await store.stage(chunked(bytes, 3000), { maxBytes: 1_000_000 });
  assert.equal(staged.sha256, sha256(bytes));
  assert.deepEqual(staged.head, bytes.subarray(0, staged.head.length));
  assert.equal(await store.exists(staged.sha256), false, "not visible before commit");
  await staged.discard();
  assert.equal(await store.exists(staged.sha256), false);
  assert.deepEqual(await tmpEntries(tmpDir), []);
});

storeTest(
  "a staged file altered before commit fails verification: a store fault, and nothing stored",
  async ({ store, tmpDir }) => {
    const bytes = randomBytes(CHUNK_BYTES + 5000);
    const staged = await store.stage(chunked(bytes, 65_536), { maxBytes: 1 << 30 });
    const [temp] = await tmpEntries(tmpDir);
    // One byte of the last chunk flipped on the local disk, after hashing: the remote copy must not take it.
    using file = await Deno.open(join(tmpDir, temp), { write: true });
    await file.seek(CHUNK_BYTES + 10, Deno.SeekMode.Start);
    await file.write(new Uint8Array([bytes[CHUNK_BYTES + 10] ^ 0xff]));
    await assert.rejects(staged.commit(), PhotoStoreUnavailable);
    assert.equal(await store.exists(staged.sha256), false);
    assert.deepEqual(await Array.fromAsync(store.keys()), [], "no half-written photo");
    assert.deepEqual(await tmpEntries(tmpDir), []);
  },
  ["postgres", "s3"], // disk renames the very file it hashed while writing it: nothing travels
);

storeTest("keys must be 64 lowercase hex", async ({ store }) => {
  for (const key of ["../../etc/passwd", "A".repeat(64), "a".repeat(63), ""]) {
    await assert.rejects(store.exists(key), InvalidPhotoKeyError);
    await assert.rejects(store.read(key), InvalidPhotoKeyError);
    await assert.rejects(store.open(key), InvalidPhotoKeyError);
    await assert.rejects(store.remove(key), InvalidPhotoKeyError);
  }
});

storeTest("checkWritable passes on a working store and leaves nothing behind", async ({ store, tmpDir }) => {
  await store.checkWritable();
  assert.deepEqual(await Array.fromAsync(store.keys()), []);
  assert.deepEqual(await tmpEntries(tmpDir), []);
});

Deno.test({
  name: "photo store: checkWritable fails with PhotoStoreUnavailable when the disk cannot be written [disk]",
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "pm-store-" });
    try {
      await Deno.writeTextFile(join(root, "photos"), "a file where the folder should be");
      const store = new DiskPhotoStore(join(root, "photos"));
      await assert.rejects(store.checkWritable(), PhotoStoreUnavailable);
      await assert.rejects(
        store.stage(chunked(randomBytes(10), 5), { maxBytes: 100 }),
        PhotoStoreUnavailable,
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "photo store: an S3 server that stops is a PhotoStoreUnavailable, and it recovers without restart [s3]",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using s3 = await startS3Server();
    const root = await Deno.makeTempDir({ prefix: "pm-store-" });
    const store = new S3PhotoStore(s3.config, join(root, "tmp"));
    try {
      const before = randomBytes(1000);
      const kept = await write(store, before);
      await s3.stop();
      const bytes = randomBytes(30_000);
      const staged = await store.stage(chunked(bytes, 1000), { maxBytes: 100_000 });
      await assert.rejects(staged.commit(), PhotoStoreUnavailable);
      await assert.rejects(store.stat(kept.key), PhotoStoreUnavailable);
      await assert.rejects(store.open(kept.key), PhotoStoreUnavailable);
      await assert.rejects(store.checkWritable(), PhotoStoreUnavailable);
      assert.deepEqual(await tmpEntries(join(root, "tmp")), []);
      await s3.start();
      await store.checkWritable();
      assert.deepEqual((await write(store, bytes)).key, sha256(bytes));
      assert.deepEqual(await store.read(kept.key), before, "what was stored before the outage is intact");
      assert.deepEqual(await store.read(sha256(bytes)), bytes);
    } finally {
      store.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
