/**
 * Bytes against quality of the tablet's photo shrink (islands/_tablet_net.ts `preparePhoto`), in Chromium
 * itself: the camera photo drawn on a canvas at most MAX_PHOTO_EDGE px on its long edge, exactly as the
 * tablet does, is the reference; each candidate (JPEG or WebP at a quality) is what `canvas.toBlob` makes of
 * it, decoded again by the browser and compared with the reference by SSIM (mean SSIM of the luma over 8×8
 * windows every 4 px; 1 is identical). Docs: docs/uplink.md "Photo encoding".
 */
import { Buffer } from "node:buffer";
import type { Page } from "@/testkit/browser.ts";
import { MAX_PHOTO_EDGE } from "@/islands/_tablet_net.ts";

export interface Encoded {
  type: "image/jpeg" | "image/webp";
  quality: number;
  /** What the browser made (a browser that cannot encode WebP gives a PNG). */
  madeType: string;
  bytes: number;
  /** ms the browser took to encode it (`canvas.toBlob`). */
  encodeMs: number;
  ssim: number;
}

const PHOTO_URL = "/__bench/camera.jpg";

/** Encodes `photo` (a camera JPEG) as the tablet would, at each of `candidates`; in the page's browser. */
export async function encodingStudy(
  page: Page,
  baseUrl: string,
  photo: Uint8Array,
  candidates: { type: Encoded["type"]; quality: number }[],
): Promise<Encoded[]> {
  await page.route(
    `${baseUrl}${PHOTO_URL}`,
    (route) => route.fulfill({ body: Buffer.from(photo), contentType: "image/jpeg" }),
  );
  try {
    return await page.evaluate(async ({ url, edge, candidates }) => {
      const source = await createImageBitmap(await (await fetch(url)).blob(), {
        imageOrientation: "from-image",
      });
      const scale = Math.min(1, edge / Math.max(source.width, source.height));
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(source.width * scale);
      canvas.height = Math.round(source.height * scale);
      const ctx = canvas.getContext("2d", { willReadFrequently: true })!;
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(source, 0, 0, canvas.width, canvas.height);
      const { width, height } = canvas;
      const luma = (data: Uint8ClampedArray) => {
        const y = new Float32Array(width * height);
        for (let i = 0; i < y.length; i++) {
          y[i] = 0.299 * data[i * 4] + 0.587 * data[i * 4 + 1] + 0.114 * data[i * 4 + 2];
        }
        return y;
      };
      const reference = luma(ctx.getImageData(0, 0, width, height).data);
      const ssim = (a: Float32Array, b: Float32Array) => {
        const c1 = (0.01 * 255) ** 2, c2 = (0.03 * 255) ** 2, n = 64;
        let total = 0, windows = 0;
        for (let y0 = 0; y0 + 8 <= height; y0 += 4) {
          for (let x0 = 0; x0 + 8 <= width; x0 += 4) {
            let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
            for (let y = y0; y < y0 + 8; y++) {
              for (let x = x0; x < x0 + 8; x++) {
                const p = a[y * width + x], q = b[y * width + x];
                sa += p, sb += q, saa += p * p, sbb += q * q, sab += p * q;
              }
            }
            const ma = sa / n, mb = sb / n;
            const va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb;
            total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
            windows++;
          }
        }
        return total / windows;
      };
      const results = [];
      for (const c of candidates) {
        const t0 = performance.now();
        const blob = await new Promise<Blob>((r) => canvas.toBlob((b) => r(b!), c.type, c.quality));
        const encodeMs = performance.now() - t0;
        const decoded = await createImageBitmap(blob);
        const back = document.createElement("canvas");
        back.width = width;
        back.height = height;
        const bctx = back.getContext("2d", { willReadFrequently: true })!;
        bctx.drawImage(decoded, 0, 0);
        decoded.close();
        const score = ssim(reference, luma(bctx.getImageData(0, 0, width, height).data));
        results.push({ ...c, madeType: blob.type, bytes: blob.size, encodeMs, ssim: score });
      }
      source.close();
      return results;
    }, { url: `${baseUrl}${PHOTO_URL}`, edge: MAX_PHOTO_EDGE, candidates });
  } finally {
    await page.unroute(`${baseUrl}${PHOTO_URL}`);
  }
}
