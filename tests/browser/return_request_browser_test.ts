/**
 * No dead end at a shop, in real Chromium on the demo data (docs/return-requests.md): the driver on
 * Collect finds nothing flagged for return on ABC123 (its headlamp was delivered to North Smash Repairs),
 * asks HQ to return it with a note and a photo while the tablet is offline (both kept, then sent when the
 * network is back: the request, then its photo), a dispatcher sees the request counted in the navigation and approves it with one click, and the driver's
 * open screen turns into the collect job with the headlamp to pick up, which the driver then collects.
 * Screens are saved in test-output/screenshots/return_request_*.png.
 */
import assert from "node:assert/strict";
import { screenshot } from "@/testkit/browser.ts";
import { DEMO, hqWorld, signInAs } from "./hq_setup.ts";
import { chooseJob, confirmAndWaitForReceipt, openPage, PHOTO, photograph, signIn } from "./tablet_setup.ts";

const PART = "81110-0K530";

Deno.test({
  name:
    "return request in Chromium: the driver asks offline, a dispatcher approves, the part becomes collectable",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const world = await hqWorld();
    const tablet = await openPage(world.browser);
    try {
      // The set-up delivered the headlamp to the claim's shop; nothing on the claim is flagged for return.
      const part = await world.a.db.selectFrom("parts_orders").selectAll().where("part_no", "=", PART)
        .executeTakeFirstOrThrow();
      assert.equal(part.status, "Delivered to Repair Shop directly");
      const flagged = await world.a.db.selectFrom("parts_orders").select("id")
        .where("claim_id", "=", part.claim_id).where("status", "=", "Pending Repair Shop Pick-Up").execute();
      assert.equal(flagged.length, 0);

      const { page } = tablet;
      await signIn(page, world.served.baseUrl, DEMO.driver.name, DEMO.driver.pin);
      await chooseJob(page, "Collect from a repair shop", "ABC123");
      await page.getByTestId("search-error").waitFor();
      const panel = page.getByTestId("return-request");
      await panel.getByRole("heading", { name: "Ask HQ to return parts" }).waitFor();
      const choice = panel.getByTestId(`return-part-${PART}`);
      assert.equal(await choice.getByRole("checkbox").isChecked(), true, "every part listed is ticked");
      await panel.getByLabel("Note for HQ (optional)").fill("Shop has finished with the headlamp");
      await panel.getByLabel("Photo for HQ (optional)").setInputFiles(PHOTO);
      await panel.getByRole("img", { name: "Photo for HQ" }).waitFor();
      await screenshot(page, "return_request_01_offer");

      // A dead spot: the request is kept and retried; back online, it is sent at once.
      await page.context().setOffline(true);
      await panel.getByRole("button", { name: /^Ask HQ to return these/ }).click();
      await panel.getByTestId("return-request-waiting").waitFor();
      await screenshot(page, "return_request_02_offline");
      await page.context().setOffline(false);
      await panel.locator('[data-testid="return-request-state"][data-state="open"]', {
        hasText: "with a photo",
      })
        .waitFor({ timeout: 20_000 });
      const request = await world.a.db.selectFrom("return_requests").select(["id", "photo_id"])
        .executeTakeFirstOrThrow();
      assert.ok(request.photo_id, "the photo followed the request");
      await screenshot(page, "return_request_03_waiting_for_hq");

      // The dispatcher's queue, counted in the navigation; one click approves.
      const hq = await signInAs(world, DEMO.dispatcher, "/hq/parts");
      const nav = hq.getByRole("navigation", { name: "Dashboard" });
      assert.equal(
        (await nav.getByRole("link", { name: /Return requests/ }).textContent())?.replace(/\s+/g, " ").trim(),
        "Return requests1 open",
      );
      await nav.getByRole("link", { name: /Return requests/ }).click();
      const card = hq.getByRole("listitem", { name: /Return request #\d+, ABC123/ });
      await card.getByText("Shop has finished with the headlamp").waitFor();
      await card.getByRole("img", { name: `The driver's photo for request #${request.id}` }).waitFor();
      await screenshot(hq, "return_request_04_queue");
      await card.getByRole("button", { name: "Approve: flag 1 part for pick-up" }).click();
      await hq.getByText(/approved: 81110-0K530 flagged for pick-up\./).waitFor();
      await screenshot(hq, "return_request_05_approved");

      // The driver's open screen learns of it at its next poll and shows the part to collect.
      await page.getByTestId(`part-${PART}`).waitFor({ timeout: 20_000 });
      await screenshot(page, "return_request_06_collectable");
      await photograph(page, PART);
      const movementId = await confirmAndWaitForReceipt(page, "Confirm pickup");
      assert.ok(movementId > 0);
      const after = await world.a.db.selectFrom("parts_orders").select("status").where("id", "=", part.id)
        .executeTakeFirstOrThrow();
      assert.equal(after.status, "Picked Up from Repair Shop");
      assert.deepEqual(tablet.errors, []);
    } finally {
      await tablet.close();
      await world.close();
    }
  },
});
