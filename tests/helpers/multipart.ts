/** Multipart bodies laid out byte by byte, and streams that feed them in chosen chunks, for the parser tests. */

export const enc = (s: string) => new TextEncoder().encode(s);

export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface Part {
  headers: string[];
  body: Uint8Array;
}

export const filePart = (body: Uint8Array, filename = "IMG_0001.jpg", type = "image/jpeg"): Part => ({
  headers: [`Content-Disposition: form-data; name="file"; filename="${filename}"`, `Content-Type: ${type}`],
  body,
});
export const fieldPart = (name: string, value: string): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  body: enc(value),
});

/** A multipart body laid out by hand, so tests control every byte. */
export function multipart(
  boundary: string,
  parts: Part[],
  opts: { preamble?: string; epilogue?: string } = {},
) {
  const pieces: Uint8Array[] = [];
  if (opts.preamble) pieces.push(enc(`${opts.preamble}\r\n`));
  for (const part of parts) {
    pieces.push(
      enc(`--${boundary}\r\n${part.headers.map((h) => `${h}\r\n`).join("")}\r\n`),
      part.body,
      enc("\r\n"),
    );
  }
  pieces.push(enc(`--${boundary}--\r\n${opts.epilogue ?? ""}`));
  return concat(...pieces);
}

/** Feeds `bytes` as the given chunks (sizes cycle), counting what was pulled and noting cancellation. */
export function source(bytes: Uint8Array, sizes: number[]) {
  const stats = { pulled: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled >= bytes.length) return controller.close();
      const n = sizes[i++ % sizes.length];
      controller.enqueue(bytes.slice(stats.pulled, stats.pulled + n));
      stats.pulled = Math.min(bytes.length, stats.pulled + n);
    },
    cancel() {
      stats.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, stats };
}

/**
 * Like `source`, but a byte stream, as Deno.serve's request bodies are: the parser then reads it with a
 * BYOB reader into its own buffer. Each read gives at most the next size (and at most the reader's view).
 */
export function byteSource(bytes: Uint8Array, sizes: number[]) {
  const stats = { pulled: 0, cancelled: false };
  let i = 0;
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const byob = controller.byobRequest;
      if (stats.pulled >= bytes.length) {
        controller.close();
        byob?.respond(0);
        return;
      }
      const view = byob?.view;
      const n = Math.min(
        sizes[i++ % sizes.length],
        bytes.length - stats.pulled,
        view?.byteLength ?? Infinity,
      );
      const piece = bytes.subarray(stats.pulled, stats.pulled + n);
      if (byob && view) {
        new Uint8Array(view.buffer, view.byteOffset, n).set(piece);
        byob.respond(n);
      } else {
        controller.enqueue(piece.slice());
      }
      stats.pulled += n;
    },
    cancel() {
      stats.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, stats };
}

/** A large multipart upload generated lazily: headers, then `fileSize` bytes of filler, then the end. */
export function hugeUpload(boundary: string, fileSize: number, chunk: number, before: Part[] = []) {
  const head = multipart(boundary, [...before, filePart(new Uint8Array(0))]);
  const prefix = head.subarray(0, head.length - `\r\n--${boundary}--\r\n`.length);
  const tail = enc(`\r\n--${boundary}--\r\n`);
  const total = prefix.length + fileSize + tail.length;
  const stats = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled >= total) return controller.close();
      let piece: Uint8Array;
      if (stats.pulled === 0) piece = prefix;
      else if (stats.pulled + chunk < total - tail.length) piece = new Uint8Array(chunk).fill(0x61);
      else piece = concat(new Uint8Array(total - tail.length - stats.pulled).fill(0x61), tail);
      stats.pulled += piece.length;
      controller.enqueue(piece);
    },
    cancel() {
      stats.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, stats, total };
}

/**
 * A seeded pseudo-random source (mulberry32): the same seed gives the same numbers, so a failure found
 * with random content or chunking replays from its seed. Returns integers in [0, n).
 */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** `length` seeded random bytes. */
export function randomBytes(random: (n: number) => number, length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = random(256);
  return bytes;
}

/**
 * Plants `CRLF--boundary` minus its last byte at `at` in `content`, followed by a byte that is NOT that
 * last byte: a near-delimiter the parser must keep as content, which the next byte can never complete.
 * (Planting only the prefix in random content made a real delimiter once in 256 plants.)
 */
export function plantNearDelimiter(content: Uint8Array, boundary: string, at: number): void {
  const near = enc(`\r\n--${boundary}`);
  content.set(near.subarray(0, -1), at);
  content[at + near.length - 1] = near[near.length - 1] ^ 0x01;
}

/** Byte for byte equal (a plain loop: assert.deepEqual on megabytes is slow and prints them all). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
