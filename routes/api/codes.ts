/**
 * The mobile protocol's answer codes (docs/protocol.md "Common" and 2b), one name per number, and the code
 * of each upload refusal (its HTTP status: routes/web/upload_refusals.ts). Every answer that carries a
 * `code` takes it from here.
 */
import type { UploadRefusal } from "@/lib/photos/upload_refused.ts";

export const CODE = {
  /** Success, and a rule failure inside the envelope (HTTP 200, D8). */
  ok: 3000,
  /** The handler's body is not JSON. */
  badJson: 1000,
  /** The handler's body is over its limit. */
  bodyTooLarge: 1001,
  /** A rate limit was hit (with Retry-After). */
  tooManyRequests: 1429,
  /** No such path or resource. */
  notFound: 4040,
  /** An unexpected fault (database down, a bug), answered without internals. */
  unavailable: 5030,
  /** The handler's `publickey` is wrong. */
  badPublicKey: 9370,
} as const;

/** The protocol's code of each upload refusal (call 2b). */
export const UPLOAD_REFUSAL_CODE: Record<UploadRefusal, number> = {
  bad_path: 1060,
  unknown_address: 1070,
  environment: 1040,
  unauthorized: 1030,
  not_multipart: 1050,
  no_file: 1051,
  empty: 1052,
  too_large: 1053,
  not_image: 1054,
  too_many_pixels: 1055,
  // The protocol's retryable fault answer.
  store_unavailable: CODE.unavailable,
  // Quotas of staged photos not yet submitted (docs/photos.md "Quotas"): per uploader, and in total.
  too_many_staged: 1056,
  staging_full: 1057,
};
