/**
 * Viewing stored photos, for signed-in pages: `GET /photos/:id` (the original) and
 * `GET /photos/:id/thumb` (a JPEG of about 320 px, made once and kept). Photos are content-addressed, so
 * an id always names the same bytes and the answers are cacheable for good (privately). A user sees only
 * the photos the pages show them (lib/photos/access.ts); any other id is "not found", like an unknown one.
 *
 * HEIC: the prebuilt image library cannot decode it, so its thumbnail is a small SVG placeholder of the
 * photo's proportions saying so (browsers other than Safari could not show the original either); the
 * original stays available at /photos/:id.
 */
import { type Context, type Env, Hono, type MiddlewareHandler } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { mayViewPhoto } from "@/lib/photos/access.ts";
import { type PhotoFile, photoFile, photoThumbnail } from "@/lib/photos/upload.ts";
import type { Photo } from "@/db/schema.ts";
import { CODE } from "@/routes/api/codes.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

const IMMUTABLE = "private, max-age=31536000, immutable";
/** Not immutable: once HEIC thumbnails can be made, browsers should pick them up. */
const PLACEHOLDER_CACHE = "private, max-age=86400";

const notFound = (c: Context) => c.json({ code: CODE.notFound, message: "Photo not found." }, 404);

async function sendFile(c: Context, { storage }: Pick<AppDeps, "storage">, file: PhotoFile) {
  const etag = `"${file.key}"`;
  const headers: Record<string, string> = {
    "Content-Type": file.contentType,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": IMMUTABLE,
    "ETag": etag,
  };
  if (c.req.header("if-none-match")?.split(",").some((t) => t.trim() === etag)) {
    return new Response(null, { status: 304, headers });
  }
  const stat = await storage.stat(file.key);
  if (!stat) return notFound(c);
  headers["Content-Length"] = String(stat.bytes);
  // Hono answers HEAD with the GET handler and drops the body unread: opening the file would leak it.
  if (c.req.method === "HEAD") return new Response(null, { headers });
  const body = await storage.open(file.key);
  return body ? new Response(body, { headers }) : notFound(c);
}

/** A light grey box of the photo's proportions (long edge 320) naming the format. */
function placeholderSvg(photo: Photo): string {
  const scale = 320 / Math.max(photo.width, photo.height, 1);
  const w = Math.max(1, Math.round(photo.width * scale));
  const h = Math.max(1, Math.round(photo.height * scale));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="100%" height="100%" fill="#e5e7eb"/>` +
    `<text x="50%" y="50%" text-anchor="middle" dominant-baseline="middle" font-family="sans-serif" ` +
    `font-size="16" fill="#374151">HEIC photo: open to view</text></svg>`;
}

/**
 * `guard` is the signed-in check that puts the user on `c.var.session` (routes/mod.ts passes
 * requireSignedIn); then each route answers only a photo the user may see.
 */
export function photoRoutes(deps: AppDeps, guard: MiddlewareHandler<SessionEnv>) {
  const app = new Hono<SessionEnv>();
  app.use("*", guard);
  app.route("/", photoServing<SessionEnv>(deps, (c, id) => mayViewPhoto(deps, c.var.session!.user, id)));
  return app;
}

/**
 * The original and the thumbnail of a photo, answered only when `mayView` says so (anything else is "not
 * found", like an unknown id): the signed-in pages' rule above, the repair shop's page's own (routes/shop/).
 */
export function photoServing<E extends Env>(
  deps: AppDeps,
  mayView: (c: Context<E>, id: number) => Promise<boolean>,
) {
  const app = new Hono<E>();
  const visible = async (c: Context<E>) => {
    const id = Number(c.req.param("id"));
    return await mayView(c, id) ? id : null;
  };

  app.get("/:id{[1-9][0-9]{0,9}}", async (c) => {
    const id = await visible(c);
    const file = id && await photoFile(deps, id);
    return file ? await sendFile(c, deps, file) : notFound(c);
  });

  app.get("/:id{[1-9][0-9]{0,9}}/thumb", async (c) => {
    const id = await visible(c);
    const clientGone = c.req.raw.signal;
    const found = id && await photoThumbnail(deps, id, clientGone).catch((error) => {
      if (clientGone.aborted) return "gone" as const;
      throw error;
    });
    // The client left while its thumbnail waited its turn: nobody reads this answer, and nothing is decoded.
    if (found === "gone") return c.body(null, 503);
    if (!found) return notFound(c);
    if (found.thumb) return await sendFile(c, deps, found.thumb);
    return c.body(placeholderSvg(found.photo), 200, {
      "Content-Type": "image/svg+xml",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": PLACEHOLDER_CACHE,
      // Our own markup, but an SVG opened directly is a document: let it run nothing.
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    });
  });

  return app;
}
