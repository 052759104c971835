/**
 * Photos: call 2b, the file upload (D18), and serving stored photos and their thumbnails.
 *
 * Upload order, cheapest refusal first: the address (app, report, record), the `environment` header, the
 * token (looked up, not yet used), the quota of staged photos (lib/photos/quota.ts), then the body is
 * streamed to storage under the size cap, typed by its first bytes and checked for size in pixels. Only a
 * file that passed is committed (durable and verified in the configured store, io/photo_storage.ts), and only
 * then, in one short transaction under the quota's lock, is the quota checked again and, in ONE statement
 * (db/queries/photos.ts storePhotoWithToken), the token consumed (a conditional UPDATE decides races), the
 * photo row upserted (content-addressed) and the staged row pointed at it; a retake marks the photo it
 * replaces (lib/photos/retakes.ts). A store that fails (PhotoStoreUnavailable) is the retryable
 * `store_unavailable` refusal.
 *
 * A failed upload does not burn the token: the driver can retry within its lifetime. Only a stored photo
 * uses it up. A file stored by the loser of a race with one token is left to the purge (lib/photos/purge.ts).
 */
import type { Config } from "@/io/config.ts";
import type { AppDeps } from "@/lib/deps.ts";
import {
  isTokenUsable,
  photoById,
  setThumbKey,
  storePhotoWithToken,
  type TokenBinding,
} from "@/db/queries/photos.ts";
import { replaceEarlierStaged } from "@/db/queries/staged_photos.ts";
import type { Photo } from "@/db/schema.ts";
import type { ImageType } from "@/io/image_probe.ts";
import { imageFilename, type ImageReader, stageCheckedImage } from "@/lib/photos/checked_image.ts";
import { makeThumbnail } from "@/io/thumbnail.ts";
import { sharedThumbnailJob } from "@/lib/photos/thumbnail_jobs.ts";
import { hashToken } from "@/io/tokens.ts";
import { checkStagedQuotaBefore, reserveStagedQuota } from "@/lib/photos/quota.ts";
import { tokenFromAuthorization, UPLOAD_FIELD_NAME, UPLOAD_REPORT_NAME } from "@/lib/photos/upload_tokens.ts";
import { isId } from "@/lib/validation.ts";

import { UploadRefused } from "@/lib/photos/upload_refused.ts";
export { type UploadRefusal, UploadRefused } from "@/lib/photos/upload_refused.ts";
export { photoTooLarge, STORE_UNAVAILABLE } from "@/lib/photos/checked_image.ts";

export const AUTHORIZATION_FAILURE =
  "Authorization Failure. The access token is either invalid or has expired.";

const unauthorized = () => new UploadRefused("unauthorized", AUTHORIZATION_FAILURE);

/** Echoes a path segment in a message without letting a client fill the answer. */
const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/**
 * The raw request path must not carry dot segments or encoded separators (`%2F`, `%5C`, `%2E`): nothing
 * on this path reaches the file system (photos are stored by content hash), but such a path is refused
 * outright rather than matched after decoding.
 */
export function checkRawUploadPath(rawPath: string): void {
  const segments = rawPath.split("/");
  if (segments.some((s) => s === "." || s === "..") || /%(2f|5c|2e|00)|\\/i.test(rawPath)) {
    throw new UploadRefused("bad_path", "Invalid upload address.");
  }
}

export interface UploadAddress {
  appOwner: string;
  appName: string;
  reportName: string;
  recordId: string;
}

/** The staged record the address names, or `unknown_address` (app or report not served here, bad id). */
export function recordOfAddress(config: Config, a: UploadAddress): number {
  if (a.appOwner !== config.appOwner || a.appName !== config.appName) {
    throw new UploadRefused("unknown_address", `No application ${quote(`${a.appOwner}/${a.appName}`)} here.`);
  }
  if (a.reportName !== UPLOAD_REPORT_NAME) {
    throw new UploadRefused("unknown_address", `No report ${quote(a.reportName)} in this application.`);
  }
  // Digits without a leading zero: a path names one record one way.
  const id = /^[1-9]\d{0,9}$/.test(a.recordId) ? Number(a.recordId) : NaN;
  if (!isId(id)) {
    throw new UploadRefused("unknown_address", `No record ${quote(a.recordId)} in this report.`);
  }
  return id;
}

/**
 * D18: a development or stage server accepts the header absent, `development` or `stage`; production
 * accepts it absent (or `production`) and refuses `development`/`stage`, so a development build of the
 * app can never write into production. Any other value is refused everywhere.
 */
export function checkEnvironmentHeader(config: Config, header: string | null | undefined): void {
  const value = header?.trim().toLowerCase();
  if (!value) return;
  const accepted = config.appEnv === "production"
    ? value === "production"
    : value === "development" || value === "stage";
  if (!accepted) {
    throw new UploadRefused(
      "environment",
      `This ${config.appEnv} server does not accept uploads marked environment: ${quote(header!.trim())}.`,
    );
  }
}

/**
 * Call 2b's credentials: the `Authorization: <Word>-oauthtoken <token>` header, for the one image field a
 * token is minted for (D18: a token bound to another field does not open this one). The token itself is
 * checked by storeStagedPhoto. The tablet has no header: it holds the token it just minted.
 */
export function uploadTokenOf(authorization: string | null | undefined, fieldName: string): string {
  const token = tokenFromAuthorization(authorization);
  if (!token || fieldName !== UPLOAD_FIELD_NAME) throw unauthorized();
  return token;
}

export interface StagedPhotoRequest {
  /** The staged Parts_Uploaded_Images row the photo is for (call 2a's `record_id`). */
  recordId: number;
  /** The one-use token of call 2a for that row. */
  token: string;
  /**
   * Reads the request body and hands the photo's bytes to `sink` as a stream (2b: the `file` part, through
   * io/multipart.ts readFilePart; the tablet: the raw body); the use case never sees the HTTP request.
   */
  readFile: ImageReader;
}

export interface UploadResult {
  /** The generated name the photo is stored under (never the client's filename). */
  filename: string;
  photoId: number;
}

/**
 * The one entry point that stores a photo for a staged row, for call 2b and the tablet alike (after 2b's
 * address, environment and header checks). Throws UploadRefused for every refusal.
 */
export async function storeStagedPhoto(
  { db, config, clock, storage, metrics }: Pick<AppDeps, "db" | "config" | "clock" | "storage" | "metrics">,
  req: StagedPhotoRequest,
): Promise<UploadResult> {
  const hash = hashToken(req.token);
  const binding = (): TokenBinding => ({
    hash,
    imageId: req.recordId,
    fieldName: UPLOAD_FIELD_NAME,
    now: clock.now(),
  });
  // Before reading a byte of the body: a dead token, or one minted for another record.
  if (!await isTokenUsable(db, binding())) throw unauthorized();
  // Nor for an uploader (or a server) at its quota of staged photos (lib/photos/quota.ts).
  await checkStagedQuotaBefore(db, config, req.recordId);

  const image = await stageCheckedImage(storage, config.maxPhotoBytes, req.readFile);
  // Durable in the store before the database says the record holds it (and before the 3000 answer).
  // Under the quota's lock: the count and the record it allows are one step for every upload. A photo
  // refused here (a parallel upload took the last place) stays in the store for the purge, like the
  // loser of a token race (whose bytes stay in the quota's bound until the purge counts again).
  const photo = { ...image, createdAt: clock.now() };
  const photoId = await db.transaction().execute(async (trx) => {
    await reserveStagedQuota(trx, config, req.recordId, image.bytes);
    const id = await storePhotoWithToken(trx, binding(), photo);
    // A retake: the uploader's earlier photo of this part and stage stops counting and is removed soon
    // (lib/photos/retakes.ts).
    if (id !== null) await replaceEarlierStaged(trx, req.recordId, photo.createdAt);
    return id;
  });
  if (photoId === null) throw unauthorized();
  metrics?.uploadStored(image.bytes);
  return { filename: imageFilename(image), photoId };
}

// --- serving ---

export interface PhotoFile {
  photo: Photo;
  /** Storage key of the bytes to send. */
  key: string;
  contentType: string;
}

/** A stored photo by id, or null (unknown id, or its file is missing). */
export async function photoFile({ db, storage }: Pick<AppDeps, "db" | "storage">, id: number) {
  const photo = await photoById(db, id);
  if (!photo || !await storage.exists(photo.storage_key)) return null;
  return { photo, key: photo.storage_key, contentType: photo.content_type } satisfies PhotoFile;
}

/**
 * The photo's thumbnail (a JPEG of about 320 px), made on first request and kept in storage; `thumb`
 * null when none can be made (HEIC, undecodable bytes: the route serves a placeholder). Null for an
 * unknown photo. Making one waits its turn under the thumbnail cap (lib/photos/thumbnail_jobs.ts); if
 * `clientGone` aborts meanwhile, rejects with its reason.
 */
export async function photoThumbnail(
  deps: Pick<AppDeps, "db" | "storage" | "config" | "makeThumbnail">,
  id: number,
  clientGone?: AbortSignal,
): Promise<{ photo: Photo; thumb: PhotoFile | null } | null> {
  const photo = await photoById(deps.db, id);
  if (!photo) return null;
  if (photo.thumb_key && await deps.storage.exists(photo.thumb_key)) {
    return { photo, thumb: { photo, key: photo.thumb_key, contentType: "image/jpeg" } };
  }
  const key = await sharedThumbnailJob(deps, id, () => makeAndKeepThumbnail(deps, photo), clientGone);
  return { photo, thumb: key ? { photo, key, contentType: "image/jpeg" } : null };
}

async function makeAndKeepThumbnail(
  { db, storage, makeThumbnail: decode = makeThumbnail }: Pick<AppDeps, "db" | "storage" | "makeThumbnail">,
  photo: Photo,
) {
  const original = await storage.read(photo.storage_key);
  if (!original) return null;
  const bytes = await decode(original, photo.content_type as ImageType);
  if (!bytes) return null;
  const { key } = await storage.writeStream(ReadableStream.from([bytes]), { maxBytes: bytes.length });
  return await setThumbKey(db, photo.id, key, photo.thumb_key);
}
