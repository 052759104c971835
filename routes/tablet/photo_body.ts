/**
 * The tablet's endpoints whose body is a photo itself (a part's photo, a return request's photo): streamed to
 * storage under the photo cap, never buffered (routes/web/body_limits.ts `limitStreamedBody`).
 */
import { type Context, Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import type { ImageReader } from "@/lib/photos/checked_image.ts";
import { photoTooLarge } from "@/lib/photos/upload.ts";
import { requireTabletUser } from "@/routes/tablet/guard.ts";
import { limitStreamedBody } from "@/routes/web/body_limits.ts";
import { csrfProtect, type SessionEnv } from "@/routes/web/session.ts";

/** A sub-app with the photo cap, the driver check and the CSRF header check in front of its routes. */
export function photoBodyApp(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const maxBytes = deps.config.maxPhotoBytes;
  app.use(
    limitStreamedBody(deps, maxBytes, () => {
      throw photoTooLarge(maxBytes);
    }),
    requireTabletUser(),
    // The photo is the body: the token comes in the X-CSRF-Token header only (the body stays unread).
    csrfProtect(deps, { headerOnly: true }),
  );
  return app;
}

/** The request's body as the photo use cases read it. */
export const rawBody = (c: Context): ImageReader => (sink) =>
  sink(c.req.raw.body ?? ReadableStream.from<Uint8Array>([]));
