/**
 * Serves the built assets under /static/dist/. Every name is content-hashed, so responses may be
 * cached for a year without revalidation: a changed file gets a new name, never new content.
 * Mount at the root: `app.route("/", assetsRoutes())`.
 */
import { Hono } from "hono";
import { join } from "node:path";
import { ASSET_FILE_NAME, ASSET_URL_PREFIX, DIST_DIR } from "@/render/assets.ts";

const CONTENT_TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

export function assetsRoutes(options: { distDir?: string } = {}): Hono {
  const distDir = options.distDir ?? DIST_DIR;
  const app = new Hono();
  app.get(`${ASSET_URL_PREFIX}:name`, async (c) => {
    const name = c.req.param("name");
    // The pattern admits no "/", "\" or "..", so the joined path cannot leave distDir; it also
    // keeps the manifest and half-written temporary files private.
    if (!ASSET_FILE_NAME.test(name)) return c.notFound();
    let body: Uint8Array<ArrayBuffer>;
    try {
      body = await Deno.readFile(join(distDir, name));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return c.notFound();
      throw error;
    }
    return c.body(body, 200, {
      "Content-Type": CONTENT_TYPES[name.slice(name.lastIndexOf(".") + 1)],
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
    });
  });
  return app;
}
