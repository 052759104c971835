/**
 * Photo storage: one interface, three backends chosen by `PHOTO_STORE` (D2; tasks/setup.ts builds it):
 *   disk      io/photo_stores/disk.ts      files under `${DATA_DIR}/photos` (the default; one instance)
 *   postgres  io/photo_stores/postgres.ts  bytes in the database itself, in chunks (several instances)
 *   s3        io/photo_stores/s3.ts        an S3-compatible bucket (several instances)
 *
 * Every backend keeps the same guarantees (docs/photos.md "Storage"): photos are content-addressed (a key is
 * the SHA-256 of the bytes, so the client's filename never reaches storage, D18, and identical uploads share
 * one copy); an upload is staged in a local temporary file while it is hashed and probed, and `commit` makes
 * it durable under its key, verified against that hash, before the caller records it; a reader never sees a
 * half-written photo; a store that fails throws PhotoStoreUnavailable, which the upload answers as retryable.
 */

export type PhotoStoreKind = "disk" | "postgres" | "s3";

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

/**
 * The store cannot take or give bytes right now (down, full, slow, refusing, or what it returned does not
 * hash to the key). Nothing was recorded; the same request can be retried. Its `cause` is the fault.
 */
export class PhotoStoreUnavailable extends Error {
  constructor(readonly store: PhotoStoreKind, cause: unknown) {
    super(`Photo store (${store}) unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = "PhotoStoreUnavailable";
  }
}

export interface StoredFile {
  /** SHA-256 of the bytes, lowercase hex: the photo's name and the value records keep. */
  key: string;
  bytes: number;
}

export interface StageOptions {
  maxBytes: number;
  /** How many leading bytes to keep in memory for probing; defaults to PROBE_BYTES. */
  headBytes?: number;
}

export interface PhotoStat {
  bytes: number;
  /** Last written (or re-committed: a deduplicated upload refreshes it, see `remove`). */
  modified: Date | null;
}

/** A fully received photo in a local temporary file. Call exactly one of commit/discard. */
export interface StagedPhoto {
  readonly bytes: number;
  /** SHA-256 of the bytes, lowercase hex: the key `commit` stores it under. */
  readonly sha256: string;
  /** The first `headBytes` bytes (all of them for a small photo), captured while streaming. */
  readonly head: Uint8Array;
  /** Stores the photo under its key, durable and verified, and returns the key. */
  commit(): Promise<string>;
  /** Drops the temporary file. Safe to call more than once, and after a failed commit. */
  discard(): Promise<void>;
}

export interface PhotoStore {
  readonly kind: PhotoStoreKind;
  /**
   * Streams `body` into a temporary file while hashing it and keeping its head for probing. Throws
   * PhotoTooLargeError as soon as more than `maxBytes` arrive (and cancels `body`), EmptyPhotoError for
   * no bytes, the source's own error if it fails, PhotoStoreUnavailable if the file cannot be written.
   */
  stage(body: ReadableStream<Uint8Array>, opts: StageOptions): Promise<StagedPhoto>;
  /** Stage, then commit (for callers that need no type check: thumbnails, migration, restore). */
  writeStream(body: ReadableStream<Uint8Array>, opts: StageOptions): Promise<StoredFile>;
  exists(key: string): Promise<boolean>;
  stat(key: string): Promise<PhotoStat | null>;
  /** The photo's bytes as a stream, or null if missing. */
  open(key: string): Promise<ReadableStream<Uint8Array> | null>;
  /** The whole photo in memory (thumbnails), or null if missing. */
  read(key: string): Promise<Uint8Array | null>;
  /**
   * Deletes a stored photo; false if it was not there. With `olderThan`, only one last written before
   * that time: the purge passes its start less a grace, so a photo re-uploaded meanwhile is kept.
   */
  remove(key: string, opts?: { olderThan?: Date }): Promise<boolean>;
  /** Every stored key (purge, migration, backup). */
  keys(): AsyncGenerator<string>;
  /**
   * Removes local temporary files older than `maxAgeMs` (left by a process that died mid-upload), in the
   * temporary folder and in every instance's folder inside it (`stageInOwnFolder`).
   */
  sweepTmp(maxAgeMs: number, now?: Date): Promise<number>;
  /**
   * From now on stages uploads in a folder of this instance's own inside the temporary folder (`name`: the
   * server's host and port), so a restart can clear what the previous run of the same instance left
   * (`clearOwnFolder`) without touching another instance's uploads.
   */
  stageInOwnFolder(name: string): void;
  /**
   * Removes the files of the own folder last written before `before` (this run's start: an upload of this
   * run is younger); 0 when the store stages in the shared folder. Returns how many went.
   */
  clearOwnFolder(before: Date): Promise<number>;
  /**
   * Proves the store takes a write now (for /readyz): writes and removes a probe. Throws
   * PhotoStoreUnavailable otherwise.
   */
  checkWritable(): Promise<void>;
  /** Releases connections the store holds (the S3 client); the database belongs to the caller. */
  close(): void;
}

const KEY_PATTERN = /^[0-9a-f]{64}$/;

export function isPhotoKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function assertKey(key: string): void {
  if (!isPhotoKey(key)) throw new InvalidPhotoKeyError(key);
}
