/**
 * Handover test data (docs/handover.md): signature pads as the tablet sends them (a PNG with strokes, a blank
 * one) and the policy per leg, set as an admin would.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { HandoverPolicy, MovementStage } from "@/db/schema.ts";
import { setHandoverPolicies } from "@/lib/handover/policy.ts";
import type { TestApp } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";
import { jpegPhoto } from "@/testkit/photos.ts";
import type { Tablet } from "@/tests/helpers/tablet.ts";
import { concat, enc } from "@/tests/helpers/multipart.ts";

/**
 * A signature pad's PNG: transparent, with a dark stroke of `strokes` diagonal lines unless blank. `noise`
 * adds random opaque pixels (PNG compresses them badly) to make a large file.
 */
export async function signaturePng(
  opts: { strokes?: number; width?: number; height?: number; noise?: boolean } = {},
): Promise<Uint8Array> {
  const width = opts.width ?? 400, height = opts.height ?? 150, strokes = opts.strokes ?? 3;
  const rgba = new Uint8Array(width * height * 4);
  // getRandomValues fills at most 65,536 bytes a call.
  for (let i = 0; opts.noise && i < rgba.length; i += 65536) {
    crypto.getRandomValues(rgba.subarray(i, Math.min(i + 65536, rgba.length)));
  }
  for (let s = 0; s < strokes; s++) {
    for (let x = 10; x < width - 10; x++) {
      const y = Math.floor(20 + s * 30 + (x / width) * 60) % height;
      for (let dy = 0; dy < 3; dy++) rgba.set([20, 20, 40, 255], (((y + dy) % height) * width + x) * 4);
    }
  }
  const png = await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
  return new Uint8Array(png);
}

/** Sets each leg's policy as an admin on /hq/admin/handover would. */
export async function setPolicies(a: TestApp, policies: Partial<Record<MovementStage, HandoverPolicy>>) {
  await setHandoverPolicies(a, await makeUser(a.db, { role: "admin" }), policies);
}

/** No handover step on any leg: for tests about something else. */
export const handoversOff = (a: TestApp) =>
  setPolicies(a, { direct_dropoff: "off", reverse_pickup: "off", reverse_dropoff: "off" });

/** A JSON answer of the tablet API, asserting its status and type. */
export async function json(res: Response, status = 200) {
  assert.equal(res.status, status, await res.clone().text());
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

/** Photographs each part for the job (distinct bytes per part and job); the submission's parts[]. */
export async function photographed(t: Tablet, job: string, rego: string, ids: number[]) {
  const items = [];
  for (const id of ids) {
    const res = await t.uploadPhoto(
      { job, rego, part_id: id },
      concat(await jpegPhoto(), enc(`${job} ${id}`)),
    );
    items.push({ parts_order_id: id, confirm: true, image_id: (await json(res)).image_id });
  }
  return items;
}

/** Sends a signature (strokes on a transparent pad); its staged image id. */
export const signature = async (t: Tablet, strokes = 3) =>
  (await json(await t.uploadHandoverImage("signature", await signaturePng({ strokes })))).image_id as number;

/** Sends a photo of where the parts were left; its staged image id. */
export const leftPhoto = async (t: Tablet) =>
  (await json(await t.uploadHandoverImage("left", await jpegPhoto(), "image/jpeg"))).image_id as number;
