/**
 * The repair shop's side in real Chromium on the demo data (docs/shop-page.md): an admin finds the shop's
 * private link on the places page; a signed-out phone opens it, sees the headlamp delivered this morning and
 * marks it ready for collection; the mobile app's reverse search then lists it and the dashboard's part page
 * names the shop in its history. The shop's page passes axe-core at a phone's width with no sideways scroll.
 * Screens: test-output/screenshots/shop_*.png.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import axe from "npm:axe-core@4.14.1";
import { screenshot } from "@/testkit/browser.ts";
import { DEMO, hqWorld, signInAs } from "./hq_setup.ts";

const PART = "81110-0K530";
const SHOP = "North Smash Repairs";
const AXE_SOURCE = (axe as unknown as { source: string }).source;

Deno.test({
  name: "shop page in Chromium: the admin's link opens it signed out; ready for collection reaches the desk",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const world = await hqWorld();
    try {
      const admin = await signInAs(world, DEMO.admin, "/hq/admin/places");
      const row = admin.locator(`tr[data-repairer="${SHOP}"]`);
      const href = await row.locator('a[href*="/shop/"]').getAttribute("href");
      assert.ok(href, "the shop's row shows its private link");
      await screenshot(admin, "shop_01_admin_link");
      await admin.context().close();

      // A phone with no session at all.
      const phone = await world.browser.newContext({
        viewport: { width: 390, height: 844 },
        bypassCSP: true,
      });
      const page = await phone.newPage();
      await page.goto(world.url(new URL(href).pathname));
      await page.getByRole("heading", { level: 1, name: SHOP }).waitFor();
      const card = page.getByTestId(`shop-part-${PART}`);
      await card.getByText(/Delivered .* by Dana Driver/).waitFor();
      assert.equal(await card.getByRole("img", { name: `Delivery photo of ${PART}` }).count(), 1);

      await page.addScriptTag({ content: AXE_SOURCE });
      const check = await page.evaluate(async () => {
        // deno-lint-ignore no-explicit-any
        const result = await (globalThis as any).axe.run(document);
        return {
          violations: result.violations.map((v: { id: string }) => v.id),
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        };
      });
      assert.deepEqual(check.violations, [], "axe-core violations on the shop's page");
      assert.ok(check.overflow <= 0, `no sideways scroll at 390 px (${check.overflow} px)`);
      await screenshot(page, "shop_02_page");

      await card.getByLabel(PART).check();
      await page.getByRole("button", { name: "Ready for collection" }).click();
      await page.getByText(`${PART} is ready for collection`).waitFor();
      await page.getByTestId(`shop-flagged-${PART}`).waitFor();
      await screenshot(page, "shop_03_ready");
      await phone.close();

      // The mobile app's reverse search (docs/protocol.md 1) now lists the part.
      const part = await world.a.db.selectFrom("parts_orders").select(["id", "claim_id", "status"])
        .where("part_no", "=", PART).executeTakeFirstOrThrow();
      assert.equal(part.status, "Pending Repair Shop Pick-Up");
      const claim = await world.a.db.selectFrom("claims").select("registration").where(
        "id",
        "=",
        part.claim_id,
      )
        .executeTakeFirstOrThrow();
      const search = await world.a.call({
        event_type: "Parts_search_details",
        user_email: DEMO.driver.email,
        details: { rego: claim.registration, movement_type: "reverse" },
      });
      assert.match(JSON.stringify(search), new RegExp(PART));

      // The dashboard's part page names the shop in the part's history.
      const desk = await signInAs(world, DEMO.dispatcher, `/hq/parts/${part.id}`);
      await desk.getByText(`${SHOP} (shop page)`).first().waitFor();
      await screenshot(desk, "shop_04_history");
      await desk.context().close();
    } finally {
      await world.close();
    }
  },
});
