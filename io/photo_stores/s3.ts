/**
 * `PHOTO_STORE=s3`: photos as objects `photos/<sha256>` in a bucket of any S3-compatible store (AWS S3,
 * MinIO, Cloudflare R2; tested against s3rver, a protocol stand-in), through @aws-sdk/client-s3, so
 * several instances share photos.
 *
 * A commit PUTs the staged file (streamed, with its length) with its MD5 and SHA-256, which AWS, MinIO and
 * R2 check before storing anything; a PUT is atomic (the object appears whole or not at all). Then it is
 * verified: the store's own SHA-256 of the object (HEAD with checksum mode) must equal the key, and a store
 * that keeps no checksum (s3rver) has the object read back and hashed. A fault (refused connection,
 * timeout, 5xx, a mismatch) after the SDK's own retries is PhotoStoreUnavailable: the upload answers
 * retryable and nothing is recorded. A re-upload of stored bytes is PUT again: the same content, and a
 * fresh LastModified that keeps a running purge (remove's olderThan) away from it.
 */
import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { S3Config } from "@/io/config.ts";
import { assertKey, isPhotoKey, type PhotoStat, PhotoStoreUnavailable } from "@/io/photo_storage.ts";
import { hashFile, StagingPhotoStore } from "@/io/photo_stores/staging.ts";

const PREFIX = "photos/";
/** Per attempt; the SDK retries (3 attempts) before a fault reaches the upload. */
const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** The SDK cannot rewind a streamed body, so a PUT is retried here, from the file, this many times. */
const PUT_ATTEMPTS = 3;
const PUT_RETRY_DELAY_MS = 200;
const ignore = () => {};

export class S3PhotoStore extends StagingPhotoStore {
  readonly kind = "s3";
  readonly #client: S3Client;
  readonly #bucket: string;

  constructor(settings: S3Config, tmpDir: string) {
    super(tmpDir);
    this.#bucket = settings.bucket;
    this.#client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.accessKeyId && settings.secretAccessKey
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined,
      // Checksums only where we ask for them: stores other than AWS refuse some of the SDK's defaults.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      maxAttempts: 3,
      // Silent: every error reaches the caller (a fault is logged once by the upload), a missing object
      // is an answer, and its one warning is that it does not retry a streamed PUT (adopt does).
      logger: { debug: ignore, info: ignore, warn: ignore, error: ignore },
      requestHandler: {
        connectionTimeout: CONNECT_TIMEOUT_MS,
        requestTimeout: REQUEST_TIMEOUT_MS,
        throwOnRequestTimeout: true,
      },
    });
  }

  async adopt(tempPath: string, key: string, bytes: number): Promise<void> {
    assertKey(key);
    const [sha256, md5] = await hashFile(tempPath, ["sha256", "md5"]);
    if (sha256.toString("hex") !== key) {
      throw this.#fault(new Error(`the staged file no longer hashes to ${key}`));
    }
    for (let attempt = 1;; attempt++) {
      try {
        await this.#call(() =>
          this.#client.send(
            new PutObjectCommand({
              Bucket: this.#bucket,
              Key: PREFIX + key,
              Body: createReadStream(tempPath),
              ContentLength: bytes,
              ContentType: "application/octet-stream",
              ContentMD5: md5.toString("base64"),
              ChecksumSHA256: sha256.toString("base64"),
            }),
          )
        );
        break;
      } catch (error) {
        if (attempt >= PUT_ATTEMPTS) throw error;
        await new Promise((r) => setTimeout(r, PUT_RETRY_DELAY_MS * attempt));
      }
    }
    await this.#verify(key, bytes, sha256.toString("base64"));
  }

  /** The object under `key` holds exactly the bytes hashing to it, or a fault is thrown. */
  async #verify(key: string, bytes: number, sha256: string): Promise<void> {
    const head = await this.#call(() =>
      this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: PREFIX + key, ChecksumMode: "ENABLED" }),
      )
    );
    let ok = head.ContentLength === bytes;
    if (ok && head.ChecksumSHA256 !== sha256) {
      // No checksum kept by this store (or a composite one): read the object back and hash it.
      const body = await this.open(key);
      const hash = createHash("sha256");
      for await (const chunk of body ?? []) hash.update(chunk);
      ok = body !== null && hash.digest("base64") === sha256;
    }
    // Not removed: a concurrent upload of the same bytes may have stored (and verified) it meanwhile. The
    // retry PUTs it again; an unreferenced object is the purge's.
    if (!ok) throw this.#fault(new Error(`verification failed: the stored object is not ${key}`));
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async stat(key: string): Promise<PhotoStat | null> {
    assertKey(key);
    const head = await this.#call(
      () => this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: PREFIX + key })),
      { missing: null },
    );
    return head ? { bytes: head.ContentLength ?? 0, modified: head.LastModified ?? null } : null;
  }

  async open(key: string): Promise<ReadableStream<Uint8Array> | null> {
    assertKey(key);
    const object = await this.#call(
      () => this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: PREFIX + key })),
      { missing: null },
    );
    return object?.Body ? object.Body.transformToWebStream() as ReadableStream<Uint8Array> : null;
  }

  async read(key: string): Promise<Uint8Array | null> {
    assertKey(key);
    const object = await this.#call(
      () => this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: PREFIX + key })),
      { missing: null },
    );
    if (!object?.Body) return null;
    return await this.#call(() => object.Body!.transformToByteArray());
  }

  async remove(key: string, opts: { olderThan?: Date } = {}): Promise<boolean> {
    const stat = await this.stat(key);
    if (!stat) return false;
    if (opts.olderThan && stat.modified && stat.modified >= opts.olderThan) return false;
    await this.#call(() =>
      this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: PREFIX + key }))
    );
    return true;
  }

  async *keys(): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      const page = await this.#call(() =>
        this.#client.send(
          new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: PREFIX, ContinuationToken: token }),
        )
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(PREFIX.length) ?? "";
        if (isPhotoKey(key)) yield key;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  protected async probe(): Promise<void> {
    const Key = `probes/${crypto.randomUUID()}`;
    await this.#call(() =>
      this.#client.send(new PutObjectCommand({ Bucket: this.#bucket, Key, Body: new Uint8Array([1]) }))
    );
    await this.#call(() => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key })));
  }

  override close(): void {
    this.#client.destroy();
  }

  #fault(cause: unknown): PhotoStoreUnavailable {
    return new PhotoStoreUnavailable("s3", cause);
  }

  /**
   * Runs one SDK call; a missing object gives `opts.missing` when given, any other failure is the
   * store's fault (after the SDK's retries).
   */
  async #call<T, M = never>(run: () => Promise<T>, opts?: { missing: M }): Promise<T | M> {
    try {
      return await run();
    } catch (error) {
      if (opts && isMissing(error)) return opts.missing;
      throw this.#fault(error);
    }
  }
}

/** The SDK's "no such object" by its error type (GET: NoSuchKey, HEAD: NotFound); NoSuchBucket is a fault. */
function isMissing(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return name === "NoSuchKey" || name === "NotFound";
}
