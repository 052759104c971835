/**
 * Decides what an uploaded photo is from its first bytes only (never the client's filename or
 * Content-Type, D18) and reads its pixel size without decoding it, so the upload route can refuse
 * non-images (415) and decompression bombs before a byte is handed to an image library.
 */

export type ImageType = "image/jpeg" | "image/png" | "image/webp" | "image/heic";

export interface ImageInfo {
  type: ImageType;
  width: number;
  height: number;
}

/**
 * How many leading bytes a caller should pass to `probeImage`. JPEG dimensions sit after the APPn
 * segments (EXIF with an embedded preview can reach ~64 KiB per segment, and cameras chain several), and
 * a HEIC `meta` box with many tiles can be large too; 512 KiB covers real phone photos with room to spare.
 */
export const PROBE_BYTES = 512 * 1024;

/** Decompression bomb guard: a photo of a car part has no business being over 50 megapixels. */
export const MAX_PIXELS = 50_000_000;

export function isTooManyPixels(info: Pick<ImageInfo, "width" | "height">): boolean {
  return info.width * info.height > MAX_PIXELS;
}

/** Type from magic numbers, size from the format's own header; null when either cannot be read. */
export function probeImage(head: Uint8Array): ImageInfo | null {
  const dims = probeJpeg(head) ?? probePng(head) ?? probeWebp(head) ?? probeHeic(head);
  if (!dims || dims.width <= 0 || dims.height <= 0) return null;
  return dims;
}

// --- byte helpers (all bounds-checked by the callers) ---

function u16be(b: Uint8Array, i: number): number {
  return (b[i] << 8) | b[i + 1];
}

function u32be(b: Uint8Array, i: number): number {
  // `>>> 0` keeps values with the top bit set positive.
  return ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
}

function u24le(b: Uint8Array, i: number): number {
  return b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
}

function ascii(b: Uint8Array, i: number, n: number): string {
  if (i + n > b.length) return "";
  return String.fromCharCode(...b.subarray(i, i + n));
}

function startsWith(b: Uint8Array, magic: number[]): boolean {
  return b.length >= magic.length && magic.every((v, i) => b[i] === v);
}

// --- JPEG ---

function probeJpeg(b: Uint8Array): ImageInfo | null {
  if (!startsWith(b, [0xff, 0xd8, 0xff])) return null;
  let i = 2;
  while (i + 1 < b.length) {
    if (b[i] !== 0xff) return null; // segments must follow each other exactly
    // A marker may be preceded by any number of 0xFF fill bytes.
    while (i < b.length && b[i] === 0xff) i++;
    if (i >= b.length) return null;
    const marker = b[i++];
    // Standalone markers carry no length.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    // End of image or start of scan before any frame header: no size to be had.
    if (marker === 0xd9 || marker === 0xda) return null;
    if (i + 2 > b.length) return null;
    const length = u16be(b, i); // includes the two length bytes themselves
    if (length < 2) return null;
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 7 > b.length) return null;
      // length(2) precision(1) height(2) width(2)
      return { type: "image/jpeg", height: u16be(b, i + 3), width: u16be(b, i + 5) };
    }
    i += length; // skip APPn/EXIF/DQT/... by their declared length
  }
  return null;
}

// --- PNG ---

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function probePng(b: Uint8Array): ImageInfo | null {
  if (!startsWith(b, PNG_SIGNATURE)) return null;
  // IHDR must be the first chunk: length(4) "IHDR" width(4) height(4).
  if (b.length < 24 || ascii(b, 12, 4) !== "IHDR") return null;
  return { type: "image/png", width: u32be(b, 16), height: u32be(b, 20) };
}

// --- WebP ---

function probeWebp(b: Uint8Array): ImageInfo | null {
  if (b.length < 30 || ascii(b, 0, 4) !== "RIFF" || ascii(b, 8, 4) !== "WEBP") return null;
  const chunk = ascii(b, 12, 4);
  const data = 20; // after the chunk's fourcc and 32-bit size
  if (chunk === "VP8 ") {
    // Lossy: 3-byte frame tag, start code 9D 01 2A, then 14-bit width and height (2 scale bits each).
    if (b[data + 3] !== 0x9d || b[data + 4] !== 0x01 || b[data + 5] !== 0x2a) return null;
    const width = (b[data + 6] | (b[data + 7] << 8)) & 0x3fff;
    const height = (b[data + 8] | (b[data + 9] << 8)) & 0x3fff;
    return { type: "image/webp", width, height };
  }
  if (chunk === "VP8L") {
    // Lossless: signature 0x2F, then width-1 and height-1 packed as 14 bits each, little-endian.
    if (b[data] !== 0x2f) return null;
    const bits = (b[data + 1] | (b[data + 2] << 8) | (b[data + 3] << 16) | (b[data + 4] << 24)) >>> 0;
    return { type: "image/webp", width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    // Extended: flags(1) reserved(3), then canvas width-1 and height-1 as 24-bit little-endian.
    return { type: "image/webp", width: u24le(b, data + 4) + 1, height: u24le(b, data + 7) + 1 };
  }
  return null;
}

// --- HEIC / HEIF (ISO base media file format) ---

/** Brands that name HEVC-coded still images. */
const HEVC_BRANDS = new Set(["heic", "heix", "hevc", "heim", "heis", "hevm", "hevs"]);
/** Generic HEIF brands; AVIF files carry them too, so they only count when no AV1 brand is present. */
const GENERIC_HEIF_BRANDS = new Set(["mif1", "msf1"]);
const AVIF_BRANDS = new Set(["avif", "avis"]);

interface Box {
  type: string;
  /** Start of the box's payload (after size, type and any 64-bit size). */
  body: number;
  /** End of the box, clamped to the bytes we have. */
  end: number;
  /** False when the box runs past the bytes we were given. */
  complete: boolean;
}

/** Iterates the boxes laid end to end in b[start, end). Stops at the first malformed one. */
function* boxes(b: Uint8Array, start: number, end: number): Generator<Box> {
  let i = start;
  while (i + 8 <= end) {
    let size = u32be(b, i);
    const type = ascii(b, i + 4, 4);
    let body = i + 8;
    if (size === 1) {
      // 64-bit size; anything past 2^53 is nonsense for a photo.
      if (i + 16 > end) return;
      const high = u32be(b, i + 8);
      size = high * 2 ** 32 + u32be(b, i + 12);
      body = i + 16;
    } else if (size === 0) {
      size = end - i; // box extends to the end of its container
    }
    if (size < body - i) return;
    const boxEnd = i + size;
    yield { type, body, end: Math.min(boxEnd, end), complete: boxEnd <= end };
    i = boxEnd;
  }
}

function findBox(b: Uint8Array, start: number, end: number, type: string): Box | null {
  for (const box of boxes(b, start, end)) if (box.type === type) return box;
  return null;
}

function probeHeic(b: Uint8Array): ImageInfo | null {
  if (b.length < 16 || ascii(b, 4, 4) !== "ftyp") return null;
  const ftyp = boxes(b, 0, b.length).next().value;
  if (!ftyp || !ftyp.complete) return null;
  const brands: string[] = [ascii(b, ftyp.body, 4)]; // major brand; then minor version(4)
  for (let i = ftyp.body + 8; i + 4 <= ftyp.end; i += 4) brands.push(ascii(b, i, 4));
  const isHeic = brands.some((x) => HEVC_BRANDS.has(x)) ||
    (brands.some((x) => GENERIC_HEIF_BRANDS.has(x)) && !brands.some((x) => AVIF_BRANDS.has(x)));
  if (!isHeic) return null;

  // meta is a FullBox (4 bytes version+flags before its children); iprp/ipco are plain boxes.
  const meta = findBox(b, ftyp.end, b.length, "meta");
  if (!meta) return null;
  const iprp = findBox(b, meta.body + 4, meta.end, "iprp");
  if (!iprp) return null;
  const ipco = findBox(b, iprp.body, iprp.end, "ipco");
  // A cut-off ipco may hide the full-size ispe behind the tiles' ones: better no answer than a tile's.
  if (!ipco || !ipco.complete) return null;

  // Grid photos (iPhone) list an ispe per 512x512 tile plus one for the whole image: take the largest.
  let best: ImageInfo | null = null;
  for (const box of boxes(b, ipco.body, ipco.end)) {
    if (box.type !== "ispe" || !box.complete || box.body + 12 > box.end) continue;
    // FullBox header(4) width(4) height(4)
    const width = u32be(b, box.body + 4);
    const height = u32be(b, box.body + 8);
    if (!best || width * height > best.width * best.height) best = { type: "image/heic", width, height };
  }
  return best;
}
