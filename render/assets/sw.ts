/**
 * The tablet's service worker script (render/assets/tablet_sw.ts) bundled with the list of the build's
 * files written in, so every release that changes a file changes the worker's bytes, which is how the
 * browser learns there is a new one. Served at a fixed URL by routes/assets.ts (no-cache, scope /tablet).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = fileURLToPath(new URL("./tablet_sw.ts", import.meta.url));

/** The manifest's logical name of the worker; its URL is SERVICE_WORKER_URL, not the hashed name. */
export const SERVICE_WORKER = "tablet-sw.js";

/** Files under static/ (not built) the tablet needs offline: the web app manifest and its icons. */
export const STATIC_OFFLINE_FILES = [
  "/static/tablet.webmanifest",
  "/static/icons/icon.svg",
  "/static/icons/icon-192.png",
  "/static/icons/icon-512.png",
];

/**
 * Bundles the worker; `urls` are the build's files as the pages name them. The static files carry a hash
 * of their bytes as a query, so a changed icon or manifest is a new worker too.
 */
export async function buildServiceWorker(
  urls: string[],
  root: string,
): Promise<{ file: string; code: Uint8Array }> {
  const statics = await Promise.all(STATIC_OFFLINE_FILES.map(async (url) => {
    const bytes = await Deno.readFile(join(root, url));
    return `${url}?v=${createHash("sha256").update(bytes).digest("hex").slice(0, 10)}`;
  }));
  const esbuild = await import("esbuild");
  try {
    const result = await esbuild.build({
      entryPoints: [SOURCE],
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2020",
      minify: true,
      write: false,
      legalComments: "none",
      logLevel: "silent",
      define: { PRECACHE: JSON.stringify([...urls, ...statics].sort()) },
    });
    const code = result.outputFiles[0].contents;
    const hash = createHash("sha256").update(code).digest("hex").slice(0, 10);
    return { file: `tablet-sw-${hash}.js`, code };
  } finally {
    await esbuild.stop();
  }
}
