/**
 * The HTTP status of every refusal of a photo upload, for both faces that store photos: call 2b
 * (`/api/v2.1`, routes/api/upload.ts, which adds the protocol's code from routes/api/codes.ts) and the tablet
 * (`/tablet/api/photos`, which answers `{message, part_id}`). One status serves both: the refusals on which
 * the two faces used to differ (`bad_path`, `unknown_address`, `environment`, and the multipart ones) are
 * about 2b's address, header and multipart envelope, which the tablet never sends, so it cannot meet them.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { UploadRefusal } from "@/lib/photos/upload_refused.ts";

export const UPLOAD_REFUSAL_STATUS: Record<UploadRefusal, ContentfulStatusCode> = {
  bad_path: 400,
  unknown_address: 404,
  environment: 400,
  unauthorized: 401,
  not_multipart: 400,
  no_file: 400,
  empty: 400,
  too_large: 413,
  not_image: 415,
  too_many_pixels: 422,
  // The photo store failed (down, full, slow): retryable; nothing was recorded.
  store_unavailable: 503,
  // A quota of staged photos (lib/photos/quota.ts): the uploader's is theirs to free by submitting (409: not
  // 429, waiting alone frees nothing); the server's total is storage the service has not got (507).
  too_many_staged: 409,
  staging_full: 507,
};

/**
 * The tablet's own status where it must differ: its queue retries a 5xx before sending the driver's
 * movements (islands/_tablet_queue.ts), and those movements are what frees staged photos, so a full staging
 * is a refusal shown on the photo (the driver retries it later), not a retry that holds the queue.
 */
export const TABLET_UPLOAD_REFUSAL_STATUS: Record<UploadRefusal, ContentfulStatusCode> = {
  ...UPLOAD_REFUSAL_STATUS,
  staging_full: 409,
};
