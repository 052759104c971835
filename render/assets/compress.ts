/**
 * Precompression of the built files: each script and stylesheet gets a brotli (`<name>.br`) and a gzip
 * (`<name>.gz`) copy at build time, at the highest levels (a build runs once per release, a request
 * runs every time), so serving one costs a file read and no CPU. routes/assets.ts picks the copy the
 * browser accepts.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** The encodings built, in the order the server prefers them (brotli is some 15 % smaller on our JS). */
export const ENCODINGS = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

export type EncodingName = (typeof ENCODINGS)[number]["name"];

function encode(name: EncodingName, bytes: Uint8Array): Uint8Array {
  if (name === "br") {
    return brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    });
  }
  return gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION });
}

/**
 * The compressed copies of the built files, by file name (`boot-X.js.br`, …). A copy that would not be
 * smaller (a tiny file) is left out: the server then sends the file as it is.
 */
export function precompress(outputs: Map<string, Uint8Array>): Map<string, Uint8Array> {
  const copies = new Map<string, Uint8Array>();
  for (const [file, bytes] of outputs) {
    for (const { name, suffix } of ENCODINGS) {
      const packed = encode(name, bytes);
      if (packed.byteLength < bytes.byteLength) copies.set(file + suffix, packed);
    }
  }
  return copies;
}
