import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { EmptyPhotoError, InvalidPhotoKeyError, PhotoTooLargeError } from "@/io/photo_storage.ts";
import { DiskPhotoStore } from "@/io/photo_stores/disk.ts";
import { PROBE_BYTES, probeImage } from "@/io/image_probe.ts";
import { jpegPhoto, notAPhoto } from "@/testkit/photos.ts";

/** A fresh storage root for one test, removed afterwards whatever happens. */
async function withStorage(fn: (storage: DiskPhotoStore, root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "photo_storage_test_" });
  try {
    await fn(new DiskPhotoStore(join(root, "photos")), join(root, "photos"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Streams `bytes` in chunks of `size`, lazily. */
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

/** An endless-ish source that counts what is pulled and whether it was cancelled. */
function countingSource(total: number, chunk: number) {
  const stats = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled >= total) return controller.close();
      const n = Math.min(chunk, total - stats.pulled);
      stats.pulled += n;
      controller.enqueue(new Uint8Array(n).fill(7));
    },
    cancel() {
      stats.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, stats };
}

async function tmpEntries(root: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(join(root, "tmp"))) names.push(e.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

Deno.test("storage: a staged photo is hashed, keeps its head, and commits to <aa>/<sha256>", async () => {
  await withStorage(async (storage, root) => {
    const photo = await jpegPhoto();
    const staged = await storage.stage(chunked(photo, 1000), { maxBytes: 1_000_000 });
    assert.equal(staged.bytes, photo.length);
    assert.equal(staged.sha256, sha256(photo));
    assert.deepEqual(staged.head, photo); // smaller than PROBE_BYTES: the head is all of it
    assert.equal(probeImage(staged.head)?.type, "image/jpeg");
    // Not under its final name until committed.
    assert.equal(await storage.exists(staged.sha256), false);
    const key = await staged.commit();
    assert.equal(key, sha256(photo));
    assert.equal(storage.path(key), join(root, key.slice(0, 2), key));
    assert.deepEqual(await Deno.readFile(storage.path(key)), photo);
    assert.deepEqual(await tmpEntries(root), []);
  });
});

Deno.test("storage: the head is the first headBytes bytes even when they span chunks", async () => {
  await withStorage(async (storage) => {
    const bytes = crypto.getRandomValues(new Uint8Array(5000));
    const staged = await storage.stage(chunked(bytes, 7), { maxBytes: 10_000, headBytes: 100 });
    assert.deepEqual(staged.head, bytes.subarray(0, 100));
    await staged.discard();
  });
  assert.equal(PROBE_BYTES, 512 * 1024);
});

Deno.test("storage: discarding a non-image removes the temp file and never touches a stored twin", async () => {
  await withStorage(async (storage, root) => {
    const text = await notAPhoto();
    // Someone already stored these exact bytes (say, as a legitimate attachment).
    const stored = await storage.writeStream(chunked(text, 10), { maxBytes: 1000 });
    const staged = await storage.stage(chunked(text, 10), { maxBytes: 1000 });
    assert.equal(probeImage(staged.head), null);
    await staged.discard();
    await staged.discard(); // idempotent
    assert.equal(await storage.exists(stored.key), true);
    assert.deepEqual(await tmpEntries(root), []);
    await assert.rejects(staged.commit(), /already discarded/);
  });
});

Deno.test("storage: identical uploads share one file and a second commit drops its temp", async () => {
  await withStorage(async (storage, root) => {
    const photo = await jpegPhoto();
    const a = await storage.writeStream(chunked(photo, 4096), { maxBytes: 100_000 });
    const b = await storage.writeStream(chunked(photo, 333), { maxBytes: 100_000 });
    assert.deepEqual(a, b);
    assert.deepEqual(a, { key: sha256(photo), bytes: photo.length });
    const keys = await Array.fromAsync(storage.keys());
    assert.deepEqual(keys, [a.key]);
    assert.deepEqual(await tmpEntries(root), []);
  });
});

Deno.test("storage: more than maxBytes throws PhotoTooLargeError, cancels the source early, leaves no temp", async () => {
  await withStorage(async (storage, root) => {
    const { stream, stats } = countingSource(50_000_000, 64 * 1024);
    await assert.rejects(storage.stage(stream, { maxBytes: 1_000_000 }), (error) => {
      assert.ok(error instanceof PhotoTooLargeError);
      assert.equal(error.maxBytes, 1_000_000);
      return true;
    });
    assert.equal(stats.cancelled, true);
    // Stopped on the first chunk past the limit, not at the end of the 50 MB.
    assert.ok(stats.pulled <= 1_000_000 + 64 * 1024, `pulled ${stats.pulled}`);
    assert.deepEqual(await tmpEntries(root), []);
    assert.deepEqual(await Array.fromAsync(storage.keys()), []);
  });
});

/** A byte stream giving at most the next size per read (as a multipart file part does): stage reads it BYOB. */
function byteChunked(bytes: Uint8Array, sizes: number[], fail?: Error) {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const byob = controller.byobRequest;
      if (fail && at >= bytes.length / 2) throw fail;
      if (at >= bytes.length) {
        controller.close();
        byob?.respond(0);
        return;
      }
      const view = byob?.view;
      const n = Math.min(sizes[i++ % sizes.length], bytes.length - at, view?.byteLength ?? Infinity);
      if (byob && view) {
        new Uint8Array(view.buffer, view.byteOffset, n).set(bytes.subarray(at, at + n));
        byob.respond(n);
      } else {
        controller.enqueue(bytes.slice(at, at + n));
      }
      at += n;
    },
  }, { highWaterMark: 0 });
}

function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(n, i + 65536)));
  return bytes;
}

Deno.test("storage: small, large and mixed chunks, plain or byte stream, store the same bytes and hash", async () => {
  await withStorage(async (storage, root) => {
    const bytes = randomBytes(1_500_000);
    const sources = [
      () => chunked(bytes, 7),
      () => chunked(bytes, 1000),
      () => chunked(bytes, 64 * 1024),
      () => chunked(bytes, 300_000),
      () => byteChunked(bytes, [100, 70_000, 3, 262_144, 1_000_000]),
      () => byteChunked(bytes, [65_536]),
    ];
    // A mix of batched small chunks and directly written big ones, in one order.
    let k = 0;
    const mixed = [10, 70_000, 5, 5, 200_000, 1, 64 * 1024 - 1, 64 * 1024];
    sources.push(() => {
      let at = 0;
      return new ReadableStream({
        pull(controller) {
          if (at >= bytes.length) return controller.close();
          const n = mixed[k++ % mixed.length];
          controller.enqueue(bytes.slice(at, at + n));
          at += n;
        },
      });
    });
    for (const [i, make] of sources.entries()) {
      const staged = await storage.stage(make(), { maxBytes: 2_000_000 });
      assert.equal(staged.sha256, sha256(bytes), `source ${i}`);
      assert.equal(staged.bytes, bytes.length);
      assert.deepEqual(staged.head, bytes.subarray(0, PROBE_BYTES), `head of source ${i}`);
      const [temp] = await tmpEntries(root);
      assert.deepEqual(await Deno.readFile(join(root, "tmp", temp)), bytes, `file of source ${i}`);
      await staged.discard();
    }
  });
});

Deno.test("storage: a byte stream over maxBytes, or failing, leaves no temp; the next uploads are intact", async () => {
  await withStorage(async (storage, root) => {
    const big = randomBytes(2_000_000);
    await assert.rejects(
      storage.stage(byteChunked(big, [65_536]), { maxBytes: 1_000_000 }),
      PhotoTooLargeError,
    );
    await assert.rejects(
      storage.stage(byteChunked(big, [65_536], new Error("connection reset")), { maxBytes: 4_000_000 }),
      /connection reset/,
    );
    assert.deepEqual(await tmpEntries(root), []);
    // Buffers are reused between uploads: many at once, each must come out exactly as sent.
    const bodies = Array.from({ length: 12 }, (_, i) => randomBytes(300_000 + i * 77_777));
    const stored = await Promise.all(
      bodies.map((b, i) =>
        storage.writeStream(i % 2 ? byteChunked(b, [65_536, 1_000]) : chunked(b, 1_000), { maxBytes: 2e6 })
      ),
    );
    for (const [i, b] of bodies.entries()) {
      assert.equal(stored[i].key, sha256(b));
      assert.deepEqual(await Deno.readFile(storage.path(stored[i].key)), b, `upload ${i}`);
    }
  });
});

Deno.test("storage: exactly maxBytes is accepted", async () => {
  await withStorage(async (storage) => {
    const { stream } = countingSource(3000, 1000);
    const stored = await storage.writeStream(stream, { maxBytes: 3000 });
    assert.equal(stored.bytes, 3000);
  });
});

Deno.test("storage: an empty body throws EmptyPhotoError and leaves no temp", async () => {
  await withStorage(async (storage, root) => {
    await assert.rejects(storage.stage(chunked(new Uint8Array(0), 1), { maxBytes: 10 }), EmptyPhotoError);
    assert.deepEqual(await tmpEntries(root), []);
  });
});

Deno.test("storage: a source that fails mid-stream propagates its error and leaves no temp", async () => {
  await withStorage(async (storage, root) => {
    let sent = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 3) return controller.error(new Error("connection reset"));
        controller.enqueue(new Uint8Array(1000));
      },
    });
    await assert.rejects(storage.stage(failing, { maxBytes: 1_000_000 }), /connection reset/);
    assert.deepEqual(await tmpEntries(root), []);
  });
});

Deno.test("storage: read, open, exists, stat and remove work on stored keys", async () => {
  await withStorage(async (storage) => {
    const photo = await jpegPhoto();
    const { key } = await storage.writeStream(chunked(photo, 1024), { maxBytes: 100_000 });
    assert.deepEqual(await storage.read(key), photo);
    const stream = await storage.open(key);
    assert.ok(stream);
    assert.deepEqual(new Uint8Array(await new Response(stream).arrayBuffer()), photo);
    assert.equal((await storage.stat(key))?.bytes, photo.length);

    assert.equal(await storage.remove(key), true);
    assert.equal(await storage.remove(key), false);
    assert.equal(await storage.exists(key), false);
    assert.equal(await storage.open(key), null);
    assert.equal(await storage.read(key), null);
    assert.equal(await storage.stat(key), null);
  });
});

Deno.test("storage: remove with olderThan keeps a photo touched since (deduplicated re-upload)", async () => {
  await withStorage(async (storage) => {
    const photo = await jpegPhoto();
    const { key } = await storage.writeStream(chunked(photo, 1024), { maxBytes: 100_000 });
    const past = new Date(Date.now() - 60_000);
    assert.equal(await storage.remove(key, { olderThan: past }), false);
    assert.equal(await storage.exists(key), true);
    await Deno.utime(storage.path(key), past, past);
    // Re-uploading the same bytes refreshes the file's time, so a purge that started before keeps it.
    const purgeStart = new Date(Date.now() - 1000);
    await storage.writeStream(chunked(photo, 1024), { maxBytes: 100_000 });
    assert.equal(await storage.remove(key, { olderThan: purgeStart }), false);
    await Deno.utime(storage.path(key), past, past);
    assert.equal(await storage.remove(key, { olderThan: purgeStart }), true);
  });
});

Deno.test("storage: keys must be 64 lowercase hex, so no key can leave the root", async () => {
  await withStorage(async (storage) => {
    const bad = ["../../etc/passwd", "A".repeat(64), "a".repeat(63), `${"a".repeat(62)}/.`, "", "tmp"];
    for (const key of bad) {
      assert.throws(() => storage.path(key), InvalidPhotoKeyError);
      await assert.rejects(storage.exists(key), InvalidPhotoKeyError);
      await assert.rejects(storage.remove(key), InvalidPhotoKeyError);
      await assert.rejects(storage.read(key), InvalidPhotoKeyError);
      await assert.rejects(storage.open(key), InvalidPhotoKeyError);
    }
  });
});

Deno.test("storage: keys() lists stored photos only, and nothing for a missing root", async () => {
  await withStorage(async (storage, root) => {
    assert.deepEqual(await Array.fromAsync(storage.keys()), []);
    const a = await storage.writeStream(chunked(new Uint8Array([1, 2, 3]), 2), { maxBytes: 10 });
    const b = await storage.writeStream(chunked(new Uint8Array([4, 5, 6]), 2), { maxBytes: 10 });
    // Stray files that are not photos: a pending temp, a misplaced key, junk.
    await Deno.writeFile(join(root, "tmp", "pending"), new Uint8Array([1]));
    await Deno.mkdir(join(root, "zz"));
    await Deno.writeFile(join(root, "zz", a.key), new Uint8Array([1]));
    await Deno.writeFile(join(root, a.key.slice(0, 2), "notes.txt"), new Uint8Array([1]));
    const keys = (await Array.fromAsync(storage.keys())).sort();
    assert.deepEqual(keys, [a.key, b.key].sort());
  });
});

Deno.test("storage: sweepTmp removes only temp files older than the given age", async () => {
  await withStorage(async (storage, root) => {
    await Deno.mkdir(join(root, "tmp"), { recursive: true });
    const old = join(root, "tmp", "old");
    await Deno.writeFile(old, new Uint8Array([1]));
    await Deno.writeFile(join(root, "tmp", "fresh"), new Uint8Array([1]));
    const hourAgo = new Date(Date.now() - 3_600_000);
    await Deno.utime(old, hourAgo, hourAgo);
    assert.equal(await storage.sweepTmp(60_000), 1);
    assert.deepEqual(await tmpEntries(root), ["fresh"]);
  });
});
