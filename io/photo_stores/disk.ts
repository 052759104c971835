/**
 * `PHOTO_STORE=disk` (the default): photo files under the root (the service passes `${DATA_DIR}/photos`),
 * for one instance. Layout:
 *   tmp/<uuid>              a photo being received (the server's: tmp/instance-<host>-<port>/<uuid>);
 *                           removed on any failure
 *   <aa>/<sha256 hex>       committed photos, fanned out by the first two hex digits
 * A committed photo is fsynced and renamed into place (atomic), so a reader sees the whole file or none.
 */
import { join } from "node:path";
import { assertKey, isPhotoKey, type PhotoStat } from "@/io/photo_storage.ts";
import { removeQuietly, StagingPhotoStore } from "@/io/photo_stores/staging.ts";

export class DiskPhotoStore extends StagingPhotoStore {
  readonly kind = "disk";
  readonly root: string;

  constructor(root: string) {
    super(join(root, "tmp"));
    this.root = root;
  }

  override readonly adoptMovesFile = true;

  /** Moves a fsynced temp file to its content address (its hash was taken while it was written). */
  async adopt(tempPath: string, key: string): Promise<void> {
    assertKey(key);
    const dir = join(this.root, key.slice(0, 2));
    const finalPath = join(dir, key);
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
    try {
      await Deno.rename(tempPath, finalPath);
    } catch (error) {
      // The fan-out folder is made the first time a key lands in it, not checked before every upload.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      await Deno.mkdir(dir, { recursive: true });
      await syncDir(this.root); // the new folder's own entry survives a crash too
      await Deno.rename(tempPath, finalPath);
    }
    await syncDir(dir);
  }

  /** Absolute path of a stored photo (whether or not it exists). */
  path(key: string): string {
    assertKey(key);
    return join(this.root, key.slice(0, 2), key);
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async stat(key: string): Promise<PhotoStat | null> {
    try {
      const info = await Deno.stat(this.path(key));
      return info.isFile ? { bytes: info.size, modified: info.mtime } : null;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
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

  async read(key: string): Promise<Uint8Array | null> {
    try {
      return await Deno.readFile(this.path(key));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

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

  /** Ignores tmp/ and anything that is not a photo. */
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

  /** The temporary folder's probe (checkWritable) is this store's own: photos live beside it. */
  protected async probe(): Promise<void> {}
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
