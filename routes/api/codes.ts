/**
 * The mobile protocol's answer codes (docs/protocol.md "Common" and 2b), one name per number, and the one
 * table of upload refusals → HTTP status and code. Every answer that carries a `code` takes it from here.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { UploadRefusal } from "@/lib/photos/upload.ts";

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

/**
 * Every refusal of a photo upload, for both faces that store photos: call 2b (`/api/v2.1`, which answers
 * `{code, message}` with `status`) and the tablet (`/tablet/api/photos`, which answers `{message, part_id}`
 * with `status`). One status column serves both: the refusals on which the two faces used to differ
 * (`bad_path`, `unknown_address`, `environment`, and the multipart ones) are about 2b's address, header
 * and multipart envelope, which the tablet never sends, so the tablet cannot meet them.
 */
export const UPLOAD_REFUSALS: Record<UploadRefusal, { status: ContentfulStatusCode; code: number }> = {
  bad_path: { status: 400, code: 1060 },
  unknown_address: { status: 404, code: 1070 },
  environment: { status: 400, code: 1040 },
  unauthorized: { status: 401, code: 1030 },
  not_multipart: { status: 400, code: 1050 },
  no_file: { status: 400, code: 1051 },
  empty: { status: 400, code: 1052 },
  too_large: { status: 413, code: 1053 },
  not_image: { status: 415, code: 1054 },
  too_many_pixels: { status: 422, code: 1055 },
  // The photo store failed (down, full, slow): the protocol's retryable fault answer; nothing was recorded.
  store_unavailable: { status: 503, code: CODE.unavailable },
};
