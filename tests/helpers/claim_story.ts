/**
 * Claims with a history for the claim page and evidence pack tests, each photo uploaded through the real
 * upload path (calls 2a and 2b of docs/protocol.md) with its own bytes, an hour between the steps.
 * `claimStory`: part A delivered directly to the repair shop, part B picked up from the shop and returned to
 * HQ. `twoLegClaim`: parts each delivered and then picked up again (two legs each), and parts never moved.
 */
import assert from "node:assert/strict";
import type { MovementStage, PartStatus } from "@/db/schema.ts";
import { changeStatusByDispatcher } from "@/lib/part_status.ts";
import type { TestApp } from "@/testkit/app.ts";
import { mintToken, uploadPhoto, viaApp } from "@/tests/helpers/driver_flow.ts";
import { makeClaim, makeHq, makeRepairer, makeUser, type PartSpec } from "@/testkit/factories.ts";
import { concat, enc } from "@/tests/helpers/multipart.ts";
import { confirmed, dropOffPayload, dropOffReversePayload, pickUpPayload } from "@/testkit/movements.ts";
import { jpegPhoto } from "@/testkit/photos.ts";

export const HOUR = 3_600_000;

/** A claim at a new repair shop and HQ, a driver and a dispatcher, and how the driver moves its parts. */
async function storyWorld(a: TestApp, claimNumber: string, parts: PartSpec[]) {
  const shop = await makeRepairer(a.db, "Evidence Panels");
  const hq = await makeHq(a.db, "Depot North");
  const driver = await makeUser(a.db, { role: "driver", name: "Dana Driver" });
  const dispatcher = await makeUser(a.db, { role: "dispatcher", name: "Pat Dispatch" });
  const made = await makeClaim(a.db, {
    claimNumber,
    registration: "EVI 001",
    management: shop.id,
    createdAt: a.clock.now(),
    parts,
  });
  const rego = made.claim.registration;
  const send = viaApp(a.app);
  const who = { email: driver.email, publicKey: a.config.publicKey };
  const photos = new Map<string, Uint8Array>();
  /** Uploads a photo of the part at that leg; its image id. */
  const upload = async (partId: number, stage: MovementStage) => {
    const m = await mintToken(send, who, rego, partId, stage);
    // Distinct bytes per leg (content-addressed photos would otherwise share one file).
    const bytes = concat(await jpegPhoto(), enc(`leg ${partId} ${stage}`));
    const res = await uploadPhoto(send, m, bytes);
    assert.equal(res.status, 200, await res.text());
    photos.set(`${partId}:${stage}`, bytes);
    return m.record_id;
  };
  /** Submits one movement of these parts, each with its photo of the leg, an hour after the last step. */
  const move = async (stage: MovementStage, partIds: number[], trip?: number) => {
    a.clock.advance(HOUR);
    const items = [];
    for (const part of partIds) items.push({ part, image: await upload(part, stage) });
    const parts = confirmed(items);
    const res = await a.call(
      stage === "direct_dropoff"
        ? dropOffPayload(driver.email, rego, shop, parts)
        : stage === "reverse_pickup"
        ? pickUpPayload(driver.email, rego, parts)
        : dropOffReversePayload(driver.email, rego, trip!, parts),
    );
    assert.equal(res.result.status, "success", JSON.stringify(res));
    return res.result.data!.parts_movement_id as number;
  };
  /** The dispatcher sends a delivered part back: it waits for a pick-up at the shop. */
  const sendBack = async (partId: number, reason: string) => {
    a.clock.advance(HOUR);
    await changeStatusByDispatcher(a.db, a.clock, {
      partId,
      from: "Delivered to Repair Shop directly",
      to: "Pending Repair Shop Pick-Up",
      reason,
      userId: dispatcher.id,
    });
  };
  return { ...made, shop, hq, driver, dispatcher, photos, move, sendBack };
}

export async function claimStory(a: TestApp, claimNumber = "CLM-EV/1") {
  const w = await storyWorld(a, claimNumber, [{ status: "Arrived", part_no: "PN-A" }, {
    status: "Delivered to Repair Shop directly",
    part_no: "PN/B",
  }]);
  const [partA, partB] = w.parts;
  const direct = await w.move("direct_dropoff", [partA.id]);
  await w.sendBack(partB.id, "Wrong colour, goes back");
  const trip = await w.move("reverse_pickup", [partB.id]);
  await w.move("reverse_dropoff", [partB.id], trip);
  const { shop, hq, driver, dispatcher, claim, photos } = w;
  return { shop, hq, driver, dispatcher, claim, partA, partB, direct, trip, photos };
}

/**
 * A claim of `moved` parts, each delivered to the shop on its own movement, sent back by the dispatcher
 * with a reason, then all picked up again on one return trip (two legs each), and `unmoved` parts still
 * on order.
 */
export async function twoLegClaim(
  a: TestApp,
  opts: { moved: number; unmoved: number; claimNumber?: string },
) {
  const spec = (status: PartStatus, i: number): PartSpec => ({
    status,
    part_no: `PN-${i + 1}`,
    description: `Front bumper bracket, left, number ${i + 1}`,
  });
  const w = await storyWorld(a, opts.claimNumber ?? "CLM-PRINT/3", [
    ...Array.from({ length: opts.moved }, (_, i) => spec("Arrived", i)),
    ...Array.from({ length: opts.unmoved }, (_, i) => spec("Ordered", opts.moved + i)),
  ]);
  const moved = w.parts.slice(0, opts.moved);
  for (const p of moved) await w.move("direct_dropoff", [p.id]);
  for (const p of moved) await w.sendBack(p.id, "Wrong colour, goes back to HQ");
  // A claim has one open return trip at a time (docs/submissions-and-announcements.md, check 13).
  await w.move("reverse_pickup", moved.map((p) => p.id));
  return { claim: w.claim, moved, unmoved: w.parts.slice(opts.moved) };
}
