/**
 * Serves the built assets under /static/dist/. Every name is content-hashed, so responses may be
 * cached for a year without revalidation: a changed file gets a new name, never new content.
 * Also the depot tablet's offline pieces: its service worker at a fixed URL (revalidated on every
 * check, allowed to control /tablet), the web app manifest, its icons and the favicon.
 * Each file is sent as its precompressed brotli or gzip copy when the browser accepts one (built
 * beside it by render/assets/compress.ts), with `Content-Encoding`, `Vary: Accept-Encoding` (a cache
 * must not hand the brotli bytes to a client that did not ask for them) and an ETag per encoding.
 * Mount at the root: `app.route("/", assetsRoutes())`.
 */
import { Hono } from "hono";
import { join } from "node:path";
import { ASSET_FILE_NAME, ASSET_URL_PREFIX, DIST_DIR, REPO_ROOT } from "@/render/assets.ts";
import { readManifest } from "@/render/assets/manifest.ts";
import { SERVICE_WORKER, STATIC_OFFLINE_FILES } from "@/render/assets/sw.ts";
import { type EncodingName, ENCODINGS } from "@/render/assets/compress.ts";

const CONTENT_TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  png: "image/png",
  svg: "image/svg+xml",
  webmanifest: "application/manifest+json",
  wasm: "application/wasm",
};

/** The worker's URL; its scope (/tablet) lies outside its folder, which Service-Worker-Allowed permits. */
export const SERVICE_WORKER_URL = "/static/tablet-sw.js";
export const SERVICE_WORKER_SCOPE = "/tablet";

const typeOf = (name: string) => CONTENT_TYPES[name.slice(name.lastIndexOf(".") + 1)];

/**
 * The encodings an Accept-Encoding header allows, among ours, in our order of preference (RFC 9110
 * §12.5.3: `q=0` refuses one, `*` stands for any not named). Identity is always acceptable here.
 */
export function acceptedEncodings(header: string | undefined): EncodingName[] {
  const q = new Map<string, number>();
  for (const item of (header ?? "").split(",")) {
    const [token, ...params] = item.trim().toLowerCase().split(";");
    if (!token) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(token, Number.isNaN(value) ? 0 : value);
  }
  return ENCODINGS.map((e) => e.name).filter((name) => (q.get(name) ?? q.get("*") ?? 0) > 0);
}

async function readOrNull(path: string): Promise<Uint8Array<ArrayBuffer> | null> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

export function assetsRoutes(options: { distDir?: string } = {}): Hono {
  const distDir = options.distDir ?? DIST_DIR;
  const app = new Hono();
  app.get(`${ASSET_URL_PREFIX}:name`, async (c) => {
    const name = c.req.param("name");
    // The pattern admits no "/", "\" or "..", so the joined path cannot leave distDir; it also
    // keeps the manifest, the compressed copies (reached only through their file's name) and
    // half-written temporary files private.
    if (!ASSET_FILE_NAME.test(name)) return c.notFound();
    const headers: Record<string, string> = {
      "Content-Type": typeOf(name),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Vary": "Accept-Encoding",
    };
    let body: Uint8Array<ArrayBuffer> | null = null;
    let etag = `"${name}"`;
    for (const encoding of acceptedEncodings(c.req.header("accept-encoding"))) {
      const suffix = ENCODINGS.find((e) => e.name === encoding)!.suffix;
      body = await readOrNull(join(distDir, name + suffix));
      if (body) {
        headers["Content-Encoding"] = encoding;
        etag = `"${name}${suffix}"`;
        break;
      }
    }
    body ??= await readOrNull(join(distDir, name));
    if (!body) return c.notFound();
    headers["ETag"] = etag;
    if (c.req.header("if-none-match")?.split(",").some((t) => t.trim() === etag)) {
      return c.body(null, 304, headers);
    }
    return c.body(body, 200, headers);
  });

  // The browser compares the worker's bytes on every update check: never from an HTTP cache.
  app.get(SERVICE_WORKER_URL, async (c) => {
    const file = (await readManifest(distDir))?.files[SERVICE_WORKER];
    const body = file ? await readOrNull(join(distDir, file)) : null;
    if (!body) return c.notFound();
    return c.body(body, 200, {
      "Content-Type": CONTENT_TYPES.js,
      "Cache-Control": "no-cache",
      "Service-Worker-Allowed": SERVICE_WORKER_SCOPE,
      "X-Content-Type-Options": "nosniff",
    });
  });

  // Fixed names (the manifest and installed apps point at them): revalidated daily; the worker caches
  // them by content for offline use.
  for (const url of STATIC_OFFLINE_FILES) {
    app.get(url, async (c) => {
      const body = await readOrNull(join(REPO_ROOT, url));
      if (!body) return c.notFound();
      return c.body(body, 200, {
        "Content-Type": typeOf(url),
        "Cache-Control": "public, max-age=86400",
        "X-Content-Type-Options": "nosniff",
      });
    });
  }
  app.get("/favicon.ico", (c) => c.redirect("/static/icons/icon.svg", 301));
  return app;
}
