/**
 * The QR decoder's WebAssembly for the tablet's camera scan (docs/tablet.md "Scanning"): the `barcode-detector`
 * polyfill reads codes with zxing-wasm, whose `.wasm` it would fetch from a CDN. The build copies that file
 * into the dist folder under a content-hashed name, and the islands' bundle gets its URL as the constant
 * ZXING_WASM_URL, which islands/_tablet_camera.tsx hands to `prepareZXingModule`. So the tablet fetches the
 * decoder from this server only, and only when the driver presses Scan (the service worker leaves it out of
 * its precache: render/assets.ts).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

/** The name the islands' bundle knows the decoder's URL by (a `define` of esbuild). */
export const DECODER_URL_CONSTANT = "ZXING_WASM_URL";

/**
 * The decoder's bytes and built file name, or null for a project without the polyfill (the tests' own
 * small projects). zxing-wasm is the polyfill's dependency, installed beside it (node_modules/.deno/…/
 * node_modules/zxing-wasm), not a package of the import map.
 */
export async function decoderWasm(root: string): Promise<{ file: string; bytes: Uint8Array } | null> {
  let polyfill: string;
  try {
    polyfill = await Deno.realPath(join(root, "node_modules", "barcode-detector"));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const path = join(polyfill, "..", "zxing-wasm", "dist", "reader", "zxing_reader.wasm");
  const bytes = await Deno.readFile(path).catch((error) => {
    throw new Error(`the QR decoder's WebAssembly is missing at ${path}: run "deno install"`, {
      cause: error,
    });
  });
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 10);
  return { file: `zxing_reader-${hash}.wasm`, bytes };
}

/** Whether an esbuild input belongs to the decoder (its chunk is fetched on Scan only). */
export const isDecoderInput = (path: string): boolean =>
  /node_modules\/(?:\.deno\/[^/]+\/node_modules\/)?(?:barcode-detector|zxing-wasm)\//.test(path);
