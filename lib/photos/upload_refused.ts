/**
 * Why a photo upload was refused, for both faces that store photos (call 2b and the tablet); each face maps
 * the reason to its answer (routes/web/upload_refusals.ts: the status; routes/api/codes.ts: the protocol's
 * code). Its own module so the quota (lib/photos/quota.ts) and the upload can both throw it.
 */
export type UploadRefusal =
  | "bad_path"
  | "unknown_address"
  | "environment"
  | "unauthorized"
  | "not_multipart"
  | "no_file"
  | "empty"
  | "too_large"
  | "not_image"
  | "too_many_pixels"
  | "store_unavailable"
  /** The uploader's staged photos not yet submitted are at STAGED_PHOTOS_PER_USER (lib/photos/quota.ts). */
  | "too_many_staged"
  /** All staged photos not yet submitted are at STAGED_PHOTO_BYTES_TOTAL. */
  | "staging_full";

export class UploadRefused extends Error {
  constructor(readonly reason: UploadRefusal, message: string) {
    super(message);
    this.name = "UploadRefused";
  }
}
