/**
 * Call 2b, the file upload (docs/protocol.md 2b, D18), mounted at `/api/v2.1`:
 * `POST /data/{app_owner}/{app_name}/report/{report_name}/{record_id}/{field_name}/upload`.
 * Answers `{"code":3000,"data":{filename,message}}` or `{"code":<non-3000>,"message":…}` with the HTTP
 * status of the table below (docs/photos.md); never a stack trace.
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppDeps } from "@/lib/deps.ts";
import { readFilePart } from "@/io/multipart.ts";
import {
  checkEnvironmentHeader,
  checkRawUploadPath,
  recordOfAddress,
  uploadPhoto,
  type UploadRefusal,
  UploadRefused,
} from "@/lib/photos/upload.ts";

/** HTTP status and answer code of each refusal. */
const REFUSALS: Record<UploadRefusal, { status: ContentfulStatusCode; code: number }> = {
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
};

/** The request path exactly as sent (`new URL()` would resolve `..` and hide it). */
function rawPath(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start === -1) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}

async function refuse(c: Context, error: UploadRefused) {
  // Whatever of the body is still unread is not wanted (a no-op once the upload reader cancelled it).
  await c.req.raw.body?.cancel().catch(() => {});
  const { status, code } = REFUSALS[error.reason];
  return c.json({ code, message: error.message }, status);
}

export function uploadRoutes(deps: AppDeps) {
  const app = new Hono();

  // Every path under the prefix, matched or not: dot segments and encoded separators never get further.
  app.use("*", async (c, next) => {
    try {
      checkRawUploadPath(rawPath(c.req.url));
    } catch (error) {
      if (error instanceof UploadRefused) return await refuse(c, error);
      throw error;
    }
    await next();
  });

  app.post("/data/:appOwner/:appName/report/:reportName/:recordId/:fieldName/upload", async (c) => {
    try {
      const recordId = recordOfAddress(deps.config, {
        appOwner: c.req.param("appOwner"),
        appName: c.req.param("appName"),
        reportName: c.req.param("reportName"),
        recordId: c.req.param("recordId"),
      });
      checkEnvironmentHeader(deps.config, c.req.header("environment"));
      const { filename } = await uploadPhoto(deps, {
        recordId,
        fieldName: c.req.param("fieldName"),
        authorization: c.req.header("authorization"),
        readFile: (sink) => readFilePart(c.req.raw, { maxBytes: deps.config.maxPhotoBytes }, sink),
      });
      return c.json({ code: 3000, data: { filename, message: "File uploaded successfully" } });
    } catch (error) {
      if (error instanceof UploadRefused) return await refuse(c, error);
      throw error; // the app's onError: logged with an id, answered 503 without internals
    }
  });

  return app;
}
