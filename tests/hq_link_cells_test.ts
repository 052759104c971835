/**
 * The dashboard lists' cells that name things are links: part → its page, rego → the
 * parts of that rego, claim → its claim page, movement → its page, driver → the movements filtered by
 * them; and the parts and movements lists show a lazy-loaded, sized thumbnail of a photo.
 */
import assert from "node:assert/strict";
import { appTest } from "@/testkit/app.ts";
import { signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";

appTest("hq lists: rego, claim, part, movement and driver cells link, with photo thumbnails", async (a) => {
  const s = await flowSetup(a, {
    count: 1,
    status: "Arrived",
    stage: "direct_dropoff",
    registration: "LNK 1",
  });
  const res = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(res.result.status, "success", JSON.stringify(res));
  const movementId = res.result.data!.parts_movement_id as number;
  const part = s.parts[0];
  const claim = encodeURIComponent(s.claim.claim_number);
  const d = await signedIn(a, "dispatcher");

  const parts = await (await d.get("/hq/parts")).text();
  assert.match(parts, new RegExp(`href="/hq/parts/${part.id}"`));
  assert.match(parts, new RegExp(`href="/hq/claims/${claim}"`));
  assert.match(parts, /href="\/hq\/parts\?rego=LNK\+1"/);
  const thumb =
    /<img src="\/photos\/(\d+)\/thumb" alt="Latest photo of part [^"]+" loading="lazy" width="48" height="48"/;
  assert.match(parts, thumb);
  assert.equal(Number(parts.match(thumb)![1]), await photoIdOf(a, part.id), "the delivery photo");

  const movements = await (await d.get("/hq/movements")).text();
  assert.match(movements, new RegExp(`href="/hq/movements/${movementId}"`));
  assert.match(movements, new RegExp(`href="/hq/movements\\?driver=${s.user.id}"`));
  assert.match(movements, new RegExp(`href="/hq/claims/${claim}"`));
  assert.match(movements, /href="\/hq\/parts\?rego=LNK\+1"/);
  assert.match(
    movements,
    /<img src="\/photos\/\d+\/thumb" alt="Photo of movement \d+" loading="lazy" width="48"/,
  );
  // The part's and the movement's own pages link the same way.
  const partPage = await (await d.get(`/hq/parts/${part.id}`)).text();
  assert.match(partPage, new RegExp(`href="/hq/claims/${claim}"`));
  assert.match(partPage, /href="\/hq\/parts\?rego=LNK\+1"/);
  const movementPage = await (await d.get(`/hq/movements/${movementId}`)).text();
  assert.match(movementPage, new RegExp(`href="/hq/claims/${claim}"`));
  assert.match(movementPage, new RegExp(`href="/hq/movements\\?driver=${s.user.id}"`));
  // The driver link leads to a list that filters by that driver.
  assert.equal((await d.get(`/hq/movements?driver=${s.user.id}`)).status, 200);
});

/** The photo recorded for the part's delivery. */
async function photoIdOf(a: { db: import("@/db/client.ts").Db }, partId: number): Promise<number> {
  const row = await a.db.selectFrom("deliver_parts").select("delivery_photo_id").where("part_id", "=", partId)
    .executeTakeFirstOrThrow();
  return row.delivery_photo_id!;
}
