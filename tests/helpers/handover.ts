/**
 * Handover test data (docs/handover.md): signature pads as the tablet sends them (a PNG with strokes, a blank
 * one) and the policy per leg, set as an admin would.
 */
import sharp from "sharp";
import type { HandoverPolicy, MovementStage } from "@/db/schema.ts";
import { setHandoverPolicy } from "@/lib/handover/policy.ts";
import type { TestApp } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";

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
  const admin = await makeUser(a.db, { role: "admin" });
  for (const [leg, policy] of Object.entries(policies)) {
    await setHandoverPolicy(a, admin, leg as MovementStage, policy);
  }
}

/** No handover step on any leg: for tests about something else. */
export const handoversOff = (a: TestApp) =>
  setPolicies(a, { direct_dropoff: "off", reverse_pickup: "off", reverse_dropoff: "off" });
