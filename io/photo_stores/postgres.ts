/**
 * `PHOTO_STORE=postgres`: photo bytes in the service's own database (PGlite or a server), so several
 * instances on one PostgreSQL server share photos with no other component, and a database backup holds
 * the photos too.
 *
 * Memory: a photo is never one value. The staged file is copied in 1 MiB chunks, one INSERT each, and read
 * back one chunk per pull of the reader's stream; an upload holds one chunk buffer (plus what the driver
 * encodes of it), a download one chunk. Verification: the database returns the SHA-256 of each chunk as it
 * stored it, compared with the bytes sent, and the bytes sent hash to the key, all inside the transaction
 * that makes the photo visible: a mismatch rolls it back and the upload answers retryable.
 */
import { createHash } from "node:crypto";
import type { Db } from "@/db/client.ts";
import {
  blobChunk,
  blobInfo,
  blobKeysAfter,
  deleteBlob,
  insertBlobIfAbsent,
  insertChunk,
  probeBlobWrite,
  touchBlob,
} from "@/db/queries/photo_blobs.ts";
import { assertKey, type PhotoStat, PhotoStoreUnavailable } from "@/io/photo_storage.ts";
import { StagingPhotoStore } from "@/io/photo_stores/staging.ts";

/** Bytes per chunk row: big enough for few statements per photo, small enough for one buffer. */
export const CHUNK_BYTES = 1024 * 1024;
const KEYS_PAGE = 1000;

export class PostgresPhotoStore extends StagingPhotoStore {
  readonly kind = "postgres";

  constructor(private readonly db: Db, tmpDir: string) {
    super(tmpDir);
  }

  async adopt(tempPath: string, key: string, bytes: number): Promise<void> {
    assertKey(key);
    const now = new Date();
    await this.db.transaction().execute(async (trx) => {
      if (!await insertBlobIfAbsent(trx, key, bytes, now)) {
        await touchBlob(trx, key, now); // same bytes already stored
        return;
      }
      using file = await Deno.open(tempPath, { read: true });
      const whole = createHash("sha256");
      const buf = new Uint8Array(CHUNK_BYTES);
      let total = 0;
      for (let seq = 0;; seq++) {
        const n = await readFull(file, buf);
        if (n === 0) break;
        const chunk = buf.subarray(0, n);
        whole.update(chunk);
        const stored = await insertChunk(trx, key, seq, chunk);
        if (stored !== createHash("sha256").update(chunk).digest("hex")) {
          throw mismatch(`chunk ${seq} of ${key} was stored altered`);
        }
        total += n;
      }
      if (total !== bytes || whole.digest("hex") !== key) {
        throw mismatch(`the staged file no longer hashes to ${key}`);
      }
    });
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async stat(key: string): Promise<PhotoStat | null> {
    assertKey(key);
    return await blobInfo(this.db, key);
  }

  async open(key: string): Promise<ReadableStream<Uint8Array> | null> {
    if (!await this.exists(key)) return null;
    let seq = 0;
    const db = this.db;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const chunk = await blobChunk(db, key, seq++);
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
    }, { highWaterMark: 0 }); // one chunk in memory at a time, fetched when the reader asks
  }

  async read(key: string): Promise<Uint8Array | null> {
    const info = await this.stat(key);
    if (!info) return null;
    const out = new Uint8Array(info.bytes);
    let at = 0;
    for (let seq = 0;; seq++) {
      const chunk = await blobChunk(this.db, key, seq);
      if (!chunk) break;
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }

  async remove(key: string, opts: { olderThan?: Date } = {}): Promise<boolean> {
    assertKey(key);
    return await deleteBlob(this.db, key, opts.olderThan);
  }

  async *keys(): AsyncGenerator<string> {
    for (let after = "";;) {
      const page = await blobKeysAfter(this.db, after, KEYS_PAGE);
      yield* page;
      if (page.length < KEYS_PAGE) return;
      after = page[page.length - 1];
    }
  }

  protected async probe(): Promise<void> {
    await probeBlobWrite(this.db);
  }
}

const mismatch = (what: string) =>
  new PhotoStoreUnavailable("postgres", new Error(`verification failed: ${what}`));

/** Fills `buf` from the file (fewer bytes only at its end); returns how many were read. */
async function readFull(file: Deno.FsFile, buf: Uint8Array): Promise<number> {
  let filled = 0;
  while (filled < buf.length) {
    const n = await file.read(buf.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return filled;
}
