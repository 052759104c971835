/**
 * A stand-in for a depot camera photo (bench only): 4032×3024, JPEG at quality 92 as phones save them, of
 * a made-up scene with the statistics that decide how well a photo compresses: detail at every scale
 * (octaves of smooth noise, about the 1/f spectrum of natural scenes), hard-edged objects, and sensor
 * noise. No photo of a real depot is in the repository; the encoder study (bench/photo_encoding.ts) says so.
 */
import { Buffer } from "node:buffer";
import sharp from "sharp";

const WIDTH = 4032;
const HEIGHT = 3024;

/** A small seeded generator (mulberry32): the same seed gives the same photo in every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One octave: a coarse grid of random colours (luma and a weaker chroma) smoothly enlarged to w×h. */
async function octave(next: () => number, gw: number, gh: number, w: number, h: number): Promise<Uint8Array> {
  const grid = new Uint8Array(gw * gh * 3);
  for (let i = 0; i < gw * gh; i++) {
    const luma = next() * 255;
    for (let c = 0; c < 3; c++) grid[i * 3 + c] = Math.max(0, Math.min(255, luma + (next() - 0.5) * 60));
  }
  return new Uint8Array(
    await sharp(grid, { raw: { width: gw, height: gh, channels: 3 } })
      .resize(w, h, { kernel: "cubic", fit: "fill" }).raw().toBuffer(),
  );
}

/** The camera JPEG for `seed`. */
export async function cameraPhoto(seed: number): Promise<Uint8Array> {
  const next = random(seed);
  // The scene is built at half size, then enlarged: a lens and demosaicing soften the finest detail.
  const w = WIDTH / 2, h = HEIGHT / 2;
  const sum = new Float32Array(w * h * 3).fill(128);
  for (let k = 0, gw = 4, gh = 3; gw <= w / 2; k++, gw *= 2, gh *= 2) {
    const layer = await octave(next, gw, gh, w, h);
    const weight = 0.42 * 0.88 ** k;
    for (let i = 0; i < sum.length; i++) sum[i] += (layer[i] - 128) * weight;
  }
  const scene = new Uint8Array(sum.length);
  for (let i = 0; i < sum.length; i++) scene[i] = Math.max(0, Math.min(255, sum[i]));
  // Objects with hard edges (parts, boxes, labels) over the textured background.
  const shapes: string[] = [];
  for (let i = 0; i < 14; i++) {
    const [x, y, s] = [next() * w, next() * h, 80 + next() * 400];
    const fill = `rgb(${(next() * 255) | 0},${(next() * 255) | 0},${(next() * 255) | 0})`;
    shapes.push(
      i % 2
        ? `<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${fill}" fill-opacity="0.85"/>`
        : `<rect x="${x}" y="${y}" width="${s}" height="${s * 0.6}" fill="${fill}" fill-opacity="0.85"/>`,
    );
  }
  shapes.push(`<text x="${w * 0.3}" y="${h * 0.5}" font-size="90" fill="#111">52119-0K040 CLM-1001</text>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${shapes.join("")}</svg>`;
  const composed = await sharp(scene, { raw: { width: w, height: h, channels: 3 } })
    .composite([{ input: Buffer.from(svg) }])
    .resize(WIDTH, HEIGHT, { kernel: "lanczos3" }).raw().toBuffer();
  const pixels = new Uint8Array(composed);
  // Sensor noise, about σ 3 per pixel.
  for (let i = 0; i < pixels.length; i++) {
    pixels[i] = Math.max(0, Math.min(255, pixels[i] + (next() + next() + next() - 1.5) * 6));
  }
  return new Uint8Array(
    await sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).jpeg({ quality: 92 })
      .toBuffer(),
  );
}
