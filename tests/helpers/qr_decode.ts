/**
 * A QR decoder for the tests only (docs/testing.md "Packages and lock files"): zxing-wasm's reader, pinned
 * here once. Its WebAssembly is read from the installed npm package beside its module, never fetched from
 * the CDN the package defaults to (tests run offline).
 */
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import { prepareZXingModule, readBarcodes } from "npm:zxing-wasm@3.1.4/reader";

let ready: Promise<unknown> | undefined;

function prepared(): Promise<unknown> {
  // dist/es/reader/index.js → dist/reader/zxing_reader.wasm, in the same package.
  const wasm = new URL("../../reader/zxing_reader.wasm", import.meta.resolve("npm:zxing-wasm@3.1.4/reader"));
  ready ??= Deno.readFile(wasm).then((bytes) =>
    prepareZXingModule({ overrides: { wasmBinary: bytes.buffer }, fireImmediately: true })
  );
  return ready;
}

/** The texts of the QR codes in an image (PNG bytes), as zxing reads them. */
export async function decodeQr(png: Uint8Array): Promise<string[]> {
  await prepared();
  const results = await readBarcodes(png, { formats: ["QRCode"], tryHarder: true });
  return results.filter((r) => r.isValid).map((r) => r.text);
}
