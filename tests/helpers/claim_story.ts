/**
 * A claim with a history for the claim page and evidence pack tests: part A delivered directly to the
 * repair shop, part B picked up from the shop and returned to HQ, each photo uploaded through the real
 * upload path (calls 2a and 2b of docs/protocol.md) with its own bytes, an hour between the steps.
 */
import assert from "node:assert/strict";
import type { MovementStage } from "@/db/schema.ts";
import { changeStatusByDispatcher } from "@/lib/part_status.ts";
import type { TestApp } from "@/testkit/app.ts";
import { mintToken, uploadPhoto, viaApp } from "@/tests/helpers/driver_flow.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { concat, enc } from "@/tests/helpers/multipart.ts";
import { confirmed, dropOffPayload, dropOffReversePayload, pickUpPayload } from "@/testkit/movements.ts";
import { jpegPhoto } from "@/testkit/photos.ts";

export const HOUR = 3_600_000;

export async function claimStory(a: TestApp, claimNumber = "CLM-EV/1") {
  const shop = await makeRepairer(a.db, "Evidence Panels");
  const hq = await makeHq(a.db, "Depot North");
  const driver = await makeUser(a.db, { role: "driver", name: "Dana Driver" });
  const dispatcher = await makeUser(a.db, { role: "dispatcher", name: "Pat Dispatch" });
  const { claim, parts } = await makeClaim(a.db, {
    claimNumber,
    registration: "EVI 001",
    management: shop.id,
    createdAt: a.clock.now(),
    parts: [{ status: "Arrived", part_no: "PN-A" }, {
      status: "Delivered to Repair Shop directly",
      part_no: "PN/B",
    }],
  });
  const [partA, partB] = parts;
  const send = viaApp(a.app);
  const who = { email: driver.email, publicKey: a.config.publicKey };
  const photos = new Map<string, Uint8Array>();
  const upload = async (partId: number, stage: MovementStage) => {
    const m = await mintToken(send, who, claim.registration, partId, stage);
    // Distinct bytes per leg (content-addressed photos would otherwise share one file).
    const bytes = concat(await jpegPhoto(), enc(`leg ${partId} ${stage}`));
    const res = await uploadPhoto(send, m, bytes);
    assert.equal(res.status, 200, await res.text());
    photos.set(`${partId}:${stage}`, bytes);
    return m.record_id;
  };
  const ok = (res: { result: { status: string; data?: Record<string, unknown> } }) => {
    assert.equal(res.result.status, "success", JSON.stringify(res));
    return res.result.data!.parts_movement_id as number;
  };

  a.clock.advance(HOUR);
  const direct = ok(
    await a.call(dropOffPayload(
      driver.email,
      claim.registration,
      shop,
      confirmed([
        { part: partA.id, image: await upload(partA.id, "direct_dropoff") },
      ]),
    )),
  );
  a.clock.advance(HOUR);
  await changeStatusByDispatcher(a.db, a.clock, {
    partId: partB.id,
    from: "Delivered to Repair Shop directly",
    to: "Pending Repair Shop Pick-Up",
    reason: "Wrong colour, goes back",
    userId: dispatcher.id,
  });
  a.clock.advance(HOUR);
  const trip = ok(
    await a.call(pickUpPayload(
      driver.email,
      claim.registration,
      confirmed([
        { part: partB.id, image: await upload(partB.id, "reverse_pickup") },
      ]),
    )),
  );
  a.clock.advance(HOUR);
  ok(
    await a.call(dropOffReversePayload(
      driver.email,
      claim.registration,
      trip,
      confirmed([
        { part: partB.id, image: await upload(partB.id, "reverse_dropoff") },
      ]),
    )),
  );
  return { shop, hq, driver, dispatcher, claim, partA, partB, direct, trip, photos };
}
