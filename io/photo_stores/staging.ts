/**
 * What every photo store shares: an upload is received into a local temporary file (`<root>/tmp/<uuid>`,
 * fsynced) while it is hashed and its head kept for probing, so the route can check the type before the
 * photo gets its final name and a rejected upload never touches a stored one. A backend only says how a
 * staged file becomes durable under its key (`adopt`) and how stored photos are read and removed.
 *
 * The temporary folder is this instance's scratch space whatever the backend: with `postgres` or `s3`
 * storage nothing in it is shared or needs a backup. The server stages in a folder of its own inside it
 * (`tmp/instance-<host>-<port>/`, stageInOwnFolder), which its next start clears (tasks/serve.ts): two live
 * servers cannot share a host and port, so nothing in it can belong to another instance's upload even when
 * instances (wrongly) share one DATA_DIR. Tasks stage in `tmp/` itself; the purge sweeps both.
 */
import type { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { PROBE_BYTES } from "@/io/image_probe.ts";
import { BatchedWriter } from "@/io/batched_writer.ts";
import {
  EmptyPhotoError,
  type PhotoStat,
  type PhotoStore,
  type PhotoStoreKind,
  PhotoStoreUnavailable,
  PhotoTooLargeError,
  type StagedPhoto,
  type StageOptions,
  type StoredFile,
} from "@/io/photo_storage.ts";

/** A staged photo of a StagingPhotoStore: commit hands the temp file to the backend's `adopt`. */
class LocalStagedPhoto implements StagedPhoto {
  #state: "staged" | "committed" | "discarded" = "staged";

  constructor(
    private readonly store: StagingPhotoStore,
    readonly tempPath: string,
    readonly bytes: number,
    readonly sha256: string,
    readonly head: Uint8Array,
  ) {}

  async commit(): Promise<string> {
    if (this.#state !== "staged") throw new Error(`Staged photo already ${this.#state}.`);
    this.#state = "committed";
    try {
      await this.store.adopt(this.tempPath, this.sha256, this.bytes);
    } catch (error) {
      await removeQuietly(this.tempPath);
      throw error instanceof PhotoStoreUnavailable
        ? error
        : new PhotoStoreUnavailable(this.store.kind, error);
    }
    // The disk backend moved it into place: no unlink of a file that is not there (a syscall, and a
    // NotFound error built and dropped, on every upload).
    if (!this.store.adoptMovesFile) await removeQuietly(this.tempPath);
    return this.sha256;
  }

  async discard(): Promise<void> {
    if (this.#state === "committed") return;
    this.#state = "discarded";
    await removeQuietly(this.tempPath);
  }
}

export abstract class StagingPhotoStore implements PhotoStore {
  abstract readonly kind: PhotoStoreKind;
  /** The temporary folder (`${DATA_DIR}/photos/tmp`); the purge sweeps it and the folders inside. */
  readonly tmpRoot: string;
  /** Where this process stages: the temporary folder, or its own folder inside it (stageInOwnFolder). */
  tmpDir: string;

  constructor(tmpDir: string) {
    this.tmpRoot = this.tmpDir = tmpDir;
  }

  stageInOwnFolder(name: string): void {
    // One path segment, whatever the host is called.
    this.tmpDir = join(this.tmpRoot, `instance-${name.replace(/[^A-Za-z0-9.-]/g, "_")}`);
  }

  async clearOwnFolder(before: Date): Promise<number> {
    if (this.tmpDir === this.tmpRoot) return 0;
    return await sweepFiles(this.tmpDir, (mtime) => mtime < before);
  }

  /**
   * True when a successful `adopt` leaves no temp file behind (it moved it into place or removed it);
   * otherwise the caller removes it. After a failed `adopt` the caller always does.
   */
  readonly adoptMovesFile: boolean = false;

  /**
   * Makes the fsynced temp file `tempPath` (of `bytes` bytes hashing to `key`) the stored photo `key`:
   * durable and verified when it resolves. The temp file may be moved or left (see adoptMovesFile).
   */
  abstract adopt(tempPath: string, key: string, bytes: number): Promise<void>;
  abstract exists(key: string): Promise<boolean>;
  abstract stat(key: string): Promise<PhotoStat | null>;
  abstract open(key: string): Promise<ReadableStream<Uint8Array> | null>;
  abstract read(key: string): Promise<Uint8Array | null>;
  abstract remove(key: string, opts?: { olderThan?: Date }): Promise<boolean>;
  abstract keys(): AsyncGenerator<string>;
  /** The backend's own write probe (checkWritable first proves the temporary folder). */
  protected abstract probe(): Promise<void>;
  close(): void {}

  async stage(body: ReadableStream<Uint8Array>, opts: StageOptions): Promise<StagedPhoto> {
    const headLimit = opts.headBytes ?? PROBE_BYTES;
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
    // A fault of the source (the client) is its own error; a fault of the file is the store's.
    let sourceFailed = false;
    try {
      file = await this.#createTemp(tempPath);
      const hash = createHash("sha256");
      writer = new BatchedWriter(file, (bytes) => hash.update(bytes));
      const head = new Uint8Array(headLimit);
      let headLength = 0;
      let total = 0;
      while (true) {
        const space = byob ? await writer.space() : undefined;
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = byob
            ? await byob.read(space!)
            : await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
        } catch (error) {
          sourceFailed = true;
          throw error;
        }
        const { done, value } = chunk;
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
      return new LocalStagedPhoto(this, tempPath, total, hash.digest("hex"), kept);
    } catch (error) {
      // Stop the sender: a too-large or failed upload is cut off, not read to the end.
      if (!sourceDone) await reader.cancel(error).catch(() => {});
      await writer?.settle(); // never close the file under a write still in flight
      try {
        file?.close();
      } catch { /* already closed */ }
      await removeQuietly(tempPath);
      const ours = error instanceof PhotoTooLargeError || error instanceof EmptyPhotoError || sourceFailed;
      throw ours ? error : new PhotoStoreUnavailable(this.kind, error);
    } finally {
      reader.releaseLock();
      writer?.release(); // no read or write is under way here: the buffers can serve the next upload
    }
  }

  /**
   * A new temporary file. Its folder is made only when it is missing (the first upload, or after someone
   * removed it), not before every upload: a mkdir per upload cost as much as the rename (docs/performance.md
   * "Upload path").
   */
  async #createTemp(path: string): Promise<Deno.FsFile> {
    try {
      return await Deno.open(path, { createNew: true, write: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      await Deno.mkdir(this.tmpDir, { recursive: true });
      return await Deno.open(path, { createNew: true, write: true });
    }
  }

  async writeStream(body: ReadableStream<Uint8Array>, opts: StageOptions): Promise<StoredFile> {
    const staged = await this.stage(body, opts);
    const key = await staged.commit();
    return { key, bytes: staged.bytes };
  }

  async sweepTmp(maxAgeMs: number, now: Date = new Date()): Promise<number> {
    const old = (mtime: Date) => now.getTime() - mtime.getTime() > maxAgeMs;
    let removed = await sweepFiles(this.tmpRoot, old);
    // The instances' own folders (stageInOwnFolder), whichever instance they belong to: a live upload's
    // file is younger than the grace.
    for (const dir of await subfolders(this.tmpRoot)) removed += await sweepFiles(dir, old);
    return removed;
  }

  async checkWritable(): Promise<void> {
    try {
      // Every upload is staged here first, whatever the backend.
      await Deno.mkdir(this.tmpDir, { recursive: true });
      const path = join(this.tmpDir, `probe-${crypto.randomUUID()}`);
      await Deno.writeFile(path, new Uint8Array([1]), { createNew: true });
      await Deno.remove(path);
      await this.probe();
    } catch (error) {
      throw error instanceof PhotoStoreUnavailable ? error : new PhotoStoreUnavailable(this.kind, error);
    }
  }
}

/** Removes the files directly in `dir` whose last write `shouldGo` accepts; a missing folder is empty. */
async function sweepFiles(dir: string, shouldGo: (mtime: Date) => boolean): Promise<number> {
  let removed = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const path = join(dir, entry.name);
      const { mtime } = await Deno.stat(path).catch(() => ({ mtime: null }));
      if (mtime && shouldGo(mtime) && await removeQuietly(path)) removed++;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return removed;
}

async function subfolders(dir: string): Promise<string[]> {
  try {
    return await Array.fromAsync(Deno.readDir(dir), (e) => e.isDirectory ? [join(dir, e.name)] : [])
      .then((l) => l.flat());
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

export async function removeQuietly(path: string): Promise<boolean> {
  try {
    await Deno.remove(path);
    return true;
  } catch {
    return false;
  }
}

/** Digests of a local file, read in large reads (a staged photo, before it leaves for a remote store). */
export async function hashFile(path: string, algorithms: string[]): Promise<Buffer[]> {
  const hashes = algorithms.map((a) => createHash(a));
  using file = await Deno.open(path, { read: true });
  const buf = new Uint8Array(1024 * 1024);
  while (true) {
    const n = await file.read(buf);
    if (n === null) break;
    for (const h of hashes) h.update(buf.subarray(0, n));
  }
  return hashes.map((h) => h.digest());
}
