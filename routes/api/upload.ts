/**
 * Call 2b, the file upload (docs/protocol.md 2b, D18), mounted at `/api/v2.1`:
 * `POST /data/{app_owner}/{app_name}/report/{report_name}/{record_id}/{field_name}/upload`.
 * Answers `{"code":3000,"data":{filename,message}}` or `{"code":<non-3000>,"message":…}` with the HTTP
 * status of routes/web/upload_refusals.ts and the code of routes/api/codes.ts (docs/photos.md); never a
 * stack trace.
 */
import { type Context, Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { ENVELOPE_ALLOWANCE, readFilePart } from "@/io/multipart.ts";
import {
  checkEnvironmentHeader,
  checkRawUploadPath,
  photoTooLarge,
  recordOfAddress,
  storeStagedPhoto,
  UploadRefused,
  uploadTokenOf,
} from "@/lib/photos/upload.ts";
import { CODE, UPLOAD_REFUSAL_CODE } from "@/routes/api/codes.ts";
import { fault } from "@/routes/api/envelope.ts";
import { limitStreamedBody } from "@/routes/web/body_limits.ts";
import { LIMITS, noteAndLimitAddress } from "@/routes/web/rate_limits.ts";
import { UPLOAD_REFUSAL_STATUS } from "@/routes/web/upload_refusals.ts";

/** The request path exactly as sent (`new URL()` would resolve `..` and hide it). */
function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start === -1) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}

/** This face's one answer to a refusal, thrown anywhere on its routes (the onError below). */
async function refuse(c: Context, deps: AppDeps, error: UploadRefused) {
  deps.metrics?.uploadRefused(error.reason);
  // Whatever of the body is still unread is not wanted (a no-op once the upload reader cancelled it).
  await c.req.raw.body?.cancel().catch(() => {});
  return c.json(fault(UPLOAD_REFUSAL_CODE[error.reason], error.message), UPLOAD_REFUSAL_STATUS[error.reason]);
}

export function uploadRoutes(deps: AppDeps) {
  const app = new Hono();
  const maxBytes = deps.config.maxPhotoBytes;
  app.onError((error, c) => {
    if (error instanceof UploadRefused) return refuse(c, deps, error);
    // The app's onError: a client abort (ClientAbortError, the client went away mid-body) as one log line
    // and a 400; anything else as a fault, logged with an id and answered 503 without internals.
    throw error;
  });

  // Every path under the prefix, matched or not: dot segments and encoded separators never get further.
  app.use(
    noteAndLimitAddress(deps, LIMITS.uploadPerAddress),
    async (c, next) => {
      checkRawUploadPath(rawPath(c.req.url));
      await next();
    },
  );

  app.post(
    "/data/:appOwner/:appName/report/:reportName/:recordId/:fieldName/upload",
    // The whole multipart body: the photo and room for its envelope, as io/multipart.ts counts it.
    limitStreamedBody(deps, maxBytes + ENVELOPE_ALLOWANCE, () => {
      throw photoTooLarge(maxBytes);
    }),
    async (c) => {
      const recordId = recordOfAddress(deps.config, {
        appOwner: c.req.param("appOwner"),
        appName: c.req.param("appName"),
        reportName: c.req.param("reportName"),
        recordId: c.req.param("recordId"),
      });
      checkEnvironmentHeader(deps.config, c.req.header("environment"));
      const { filename } = await storeStagedPhoto(deps, {
        recordId,
        token: uploadTokenOf(c.req.header("authorization"), c.req.param("fieldName")),
        readFile: (sink) => readFilePart(c.req.raw, { maxBytes }, sink),
      });
      return c.json({ code: CODE.ok, data: { filename, message: "File uploaded successfully" } });
    },
  );

  return app;
}
