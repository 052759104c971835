/**
 * Photo bytes on disk, content-addressed: a photo's name is the SHA-256 of its bytes, so the client's
 * filename never reaches the file system (D18) and identical uploads share one file.
 *
 * Layout under the root (the service passes `${DATA_DIR}/photos`):
 *   tmp/<uuid>              a photo being received; removed on any failure
 *   <aa>/<sha256 hex>       committed photos, fanned out by the first two hex digits
 *
 * Uploads are two-phase (`stage`, then `commit` or `discard`) so the route can check the type from the
 * first bytes before the file gets its final name, and a rejected upload can never delete a committed
 * file another record points at. This module is the seam for shared storage when running several copies.
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import { PROBE_BYTES } from "@/io/image_probe.ts";
import { BatchedWriter } from "@/io/batched_writer.ts";

/** More than `maxBytes` arrived; the source was cancelled, not read to the end. */
export class PhotoTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`Photo is larger than ${maxBytes} bytes.`);
    this.name = "PhotoTooLargeError";
  }
}

/** The photo had no bytes at all. */
export class EmptyPhotoError extends Error {
  constructor() {
    super("Photo is empty.");
    this.name = "EmptyPhotoError";
  }
}

/** A key that is not 64 lowercase hex digits; refused so no key can walk out of the root. */
export class InvalidPhotoKeyError extends Error {
  constructor(key: string) {
    super(`Invalid photo key: ${JSON.stringify(key.slice(0, 80))}`);
    this.name = "InvalidPhotoKeyError";
  }
}

export interface StoredFile {
  /** SHA-256 of the bytes, lowercase hex: the file's name and the value records keep. */
  key: string;
  bytes: number;
}

export interface StageOptions {
  maxBytes: number;
  /** How many leading bytes to keep in memory for probing; defaults to PROBE_BYTES. */
  headBytes?: number;
}

const KEY_PATTERN = /^[0-9a-f]{64}$/;

function isPhotoKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

function assertKey(key: string): void {
  if (!isPhotoKey(key)) throw new InvalidPhotoKeyError(key);
}

/** A fully received, fsynced photo still under its temporary name. Call exactly one of commit/discard. */
export class StagedPhoto {
  #state: "staged" | "committed" | "discarded" = "staged";

  constructor(
    private readonly storage: PhotoStorage,
    readonly tempPath: string,
    readonly bytes: number,
    readonly sha256: string,
    /** The first `headBytes` bytes (all of them for a small photo), captured while streaming. */
    readonly head: Uint8Array,
  ) {}

  /** Gives the photo its final name (atomic rename) and returns its key. */
  async commit(): Promise<string> {
    if (this.#state !== "staged") throw new Error(`Staged photo already ${this.#state}.`);
    this.#state = "committed";
    try {
      await this.storage.adopt(this.tempPath, this.sha256);
    } catch (error) {
      await removeQuietly(this.tempPath);
      throw error;
    }
    return this.sha256;
  }

  /** Drops the temporary file. Safe to call more than once, and after a failed commit. */
  async discard(): Promise<void> {
    if (this.#state === "committed") return;
    this.#state = "discarded";
    await removeQuietly(this.tempPath);
  }
}

export class PhotoStorage {
  readonly root: string;
  readonly tmpDir: string;

  constructor(root: string) {
    this.root = root;
    this.tmpDir = join(root, "tmp");
  }

  /**
   * Streams `body` into a temporary file while hashing it and keeping its head for probing. Throws
   * PhotoTooLargeError as soon as more than `maxBytes` arrive (and cancels `body`), EmptyPhotoError for
   * no bytes. The data is fsynced before this resolves. On any failure the temporary file is gone.
   */
  async stage(body: ReadableStream<Uint8Array>, opts: StageOptions): Promise<StagedPhoto> {
    const headLimit = opts.headBytes ?? PROBE_BYTES;
    await Deno.mkdir(this.tmpDir, { recursive: true });
    const tempPath = join(this.tmpDir, crypto.randomUUID());
    // A byte stream (an upload's file part, see io/multipart.ts) is read straight into the
    // writer's reused buffers; any other stream chunk by chunk.
    let byob: ReadableStreamBYOBReader | null = null;
    let reader: ReadableStreamDefaultReader<Uint8Array> | ReadableStreamBYOBReader;
    try {
      reader = byob = body.getReader({ mode: "byob" });
    } catch {
      reader = body.getReader();
    }
    let file: Deno.FsFile | undefined;
    let writer: BatchedWriter | undefined;
    let sourceDone = false;
    try {
      file = await Deno.open(tempPath, { createNew: true, write: true });
      const hash = createHash("sha256");
      writer = new BatchedWriter(file, (bytes) => hash.update(bytes));
      const head = new Uint8Array(headLimit);
      let headLength = 0;
      let total = 0;
      while (true) {
        const { done, value } = byob
          ? await byob.read(await writer.space())
          : await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
        if (byob && value) writer.filled(value); // the batch comes back (also, empty, when done)
        if (done) {
          sourceDone = true;
          break;
        }
        if (value.byteLength === 0) continue;
        total += value.byteLength;
        if (total > opts.maxBytes) throw new PhotoTooLargeError(opts.maxBytes);
        if (headLength < headLimit) {
          const take = Math.min(headLimit - headLength, value.byteLength);
          head.set(value.subarray(0, take), headLength);
          headLength += take;
        }
        // Hashed when written (in batches), while the previous write is still on its way.
        if (!byob) await writer.add(value);
      }
      await writer.finish();
      if (total === 0) throw new EmptyPhotoError();
      // Durable before anyone is told the photo is stored (the answer follows commit).
      await file.sync();
      file.close();
      file = undefined;
      // A full head is handed over as it is (it is half a megabyte: no copy); a short one is trimmed.
      const kept = headLength === head.length ? head : head.slice(0, headLength);
      return new StagedPhoto(this, tempPath, total, hash.digest("hex"), kept);
    } catch (error) {
      // Stop the sender: a too-large or failed upload is cut off, not read to the end.
      if (!sourceDone) await reader.cancel(error).catch(() => {});
      await writer?.settle(); // never close the file under a write still in flight
      try {
        file?.close();
      } catch { /* already closed */ }
      await removeQuietly(tempPath);
      throw error;
    } finally {
      reader.releaseLock();
      writer?.release(); // no read or write is under way here: the buffers can serve the next upload
    }
  }

  /** Convenience for callers that need no type check: stage, then commit. */
  async writeStream(body: ReadableStream<Uint8Array>, opts: StageOptions): Promise<StoredFile> {
    const staged = await this.stage(body, opts);
    const key = await staged.commit();
    return { key, bytes: staged.bytes };
  }

  /** @internal Moves a fsynced temp file to its content address (used by StagedPhoto.commit). */
  async adopt(tempPath: string, key: string): Promise<void> {
    assertKey(key);
    const dir = join(this.root, key.slice(0, 2));
    const finalPath = join(dir, key);
    await Deno.mkdir(dir, { recursive: true });
    if (await this.exists(key)) {
      // Same bytes already stored: keep that file, and refresh its mtime so a purge pass that is
      // deciding about it right now (see `remove`'s olderThan) leaves it alone.
      await removeQuietly(tempPath);
      const now = new Date();
      await Deno.utime(finalPath, now, now).catch(() => {});
      return;
    }
    // rename(2) is atomic: readers see either no file or the whole file, never a partial one. A
    // concurrent commit of the same bytes replacing it is harmless (identical content).
    await Deno.rename(tempPath, finalPath);
    await syncDir(dir);
  }

  /** Absolute path of a stored photo (whether or not it exists). */
  path(key: string): string {
    assertKey(key);
    return join(this.root, key.slice(0, 2), key);
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await Deno.stat(this.path(key))).isFile;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  /** Size and last modification of a stored photo, or null if missing. */
  async stat(key: string): Promise<{ bytes: number; modified: Date | null } | null> {
    try {
      const info = await Deno.stat(this.path(key));
      return { bytes: info.size, modified: info.mtime };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  /** The first `n` bytes (fewer if the file is shorter), or null if missing. */
  async readHead(key: string, n: number): Promise<Uint8Array | null> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.path(key), { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    try {
      const buf = new Uint8Array(n);
      let filled = 0;
      while (filled < n) {
        const read = await file.read(buf.subarray(filled));
        if (read === null) break;
        filled += read;
      }
      return buf.subarray(0, filled);
    } finally {
      file.close();
    }
  }

  /** The photo's bytes as a stream (the stream closes the file when done or cancelled), or null. */
  async open(key: string): Promise<ReadableStream<Uint8Array> | null> {
    try {
      const file = await Deno.open(this.path(key), { read: true });
      return file.readable;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  /**
   * Deletes a stored photo; false if it was not there. With `olderThan`, only deletes a file last
   * modified before that time: the purge job passes its start time so a photo re-uploaded (and
   * deduplicated onto this file) while the purge runs is kept.
   */
  async remove(key: string, opts: { olderThan?: Date } = {}): Promise<boolean> {
    const path = this.path(key);
    try {
      if (opts.olderThan) {
        const { mtime } = await Deno.stat(path);
        if (mtime && mtime >= opts.olderThan) return false;
      }
      await Deno.remove(path);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  /** Every stored key (for the purge job). Ignores tmp/ and anything that is not a photo. */
  async *keys(): AsyncGenerator<string> {
    try {
      for await (const dir of Deno.readDir(this.root)) {
        if (!dir.isDirectory || !/^[0-9a-f]{2}$/.test(dir.name)) continue;
        for await (const entry of Deno.readDir(join(this.root, dir.name))) {
          if (entry.isFile && isPhotoKey(entry.name) && entry.name.startsWith(dir.name)) yield entry.name;
        }
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return; // root not created yet
      throw error;
    }
  }

  /**
   * Removes temp files older than `maxAgeMs`, left behind only if the process died mid-upload. Returns
   * how many were removed. Run at start-up or with the purge job.
   */
  async sweepTmp(maxAgeMs: number, now: Date = new Date()): Promise<number> {
    let removed = 0;
    try {
      for await (const entry of Deno.readDir(this.tmpDir)) {
        const path = join(this.tmpDir, entry.name);
        const { mtime } = await Deno.stat(path).catch(() => ({ mtime: null }));
        if (entry.isFile && mtime && now.getTime() - mtime.getTime() > maxAgeMs) {
          if (await removeQuietly(path)) removed++;
        }
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return removed;
  }
}

async function removeQuietly(path: string): Promise<boolean> {
  try {
    await Deno.remove(path);
    return true;
  } catch {
    return false;
  }
}

/** fsync the directory so the rename itself survives a crash, not just the file's data. */
async function syncDir(dir: string): Promise<void> {
  let handle: Deno.FsFile | undefined;
  try {
    handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    // Some platforms cannot open or fsync a directory; the data itself is already durable.
  } finally {
    handle?.close();
  }
}
