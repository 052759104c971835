/**
 * claims.has_shop (20261219T0900_claim_shop_flag) follows the claim's management record through every
 * change, so the parts list's shop sort finds the parts without a shop through claims_without_shop alone.
 */
import assert from "node:assert/strict";
import { dbTest } from "@/testkit/db.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import type { Db } from "@/db/client.ts";

async function hasShop(db: Db, claimId: number): Promise<boolean> {
  const row = await db.selectFrom("claims").select("has_shop").where("id", "=", claimId)
    .executeTakeFirstOrThrow();
  return row.has_shop;
}

dbTest("claims.has_shop: set and cleared with the management record's shop", async ({ db }) => {
  const shop = await makeRepairer(db);
  const none = await makeClaim(db, { management: false });
  const unnamed = await makeClaim(db, { management: null });
  const named = await makeClaim(db, { management: shop.id });
  assert.deepEqual(
    [
      await hasShop(db, none.claim.id),
      await hasShop(db, unnamed.claim.id),
      await hasShop(db, named.claim.id),
    ],
    [false, false, true],
  );

  const management = (claimId: number) => db.updateTable("claim_management").where("claim_id", "=", claimId);
  await management(unnamed.claim.id).set({ repairer_id: shop.id }).execute();
  assert.equal(await hasShop(db, unnamed.claim.id), true, "a shop named later");
  await management(named.claim.id).set({ repairer_id: null }).execute();
  assert.equal(await hasShop(db, named.claim.id), false, "the shop taken away");
  // The record moved to the claim that had none: the one it left has no shop, the other has one.
  await management(unnamed.claim.id).set({ claim_id: none.claim.id }).execute();
  assert.deepEqual([await hasShop(db, unnamed.claim.id), await hasShop(db, none.claim.id)], [false, true]);
  await db.deleteFrom("claim_management").where("claim_id", "=", none.claim.id).execute();
  assert.equal(await hasShop(db, none.claim.id), false, "the record removed");
});
