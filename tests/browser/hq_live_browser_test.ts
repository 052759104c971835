/**
 * The live dashboard in Chromium: a movement submitted through the handler shows on an
 * open parts page, a part's page, a movement's page and the announcement feed, without a reload.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
import { confirmed, dropOffReversePayload, stageFor } from "@/testkit/movements.ts";
import { makeClaim } from "@/testkit/factories.ts";
import { screenshot } from "@/testkit/browser.ts";
import { DEMO, driverDelivers, hqWorld, signInAs } from "./hq_setup.ts";

/**
 * How long a step waits for the change before it fails: a bound that fails instead of hanging, not a speed
 * claim (on a loaded machine a page fetch can take seconds). What is asserted is the order: the change
 * shows after the submission, in the same document (no reload). How fast it shows is the bench's to measure.
 */
const LIVE_BOUND_MS = 30_000;

/** Marks the document, so a reload (a new document) would lose the mark. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(() => document.documentElement.setAttribute("data-test-mark", "same document"));
}

async function sameDocument(page: Page): Promise<boolean> {
  return await page.evaluate(() =>
    document.documentElement.getAttribute("data-test-mark") === "same document"
  );
}

async function listening(page: Page): Promise<void> {
  await page.locator('body[data-live-state="listening"]').waitFor({ timeout: 10_000 });
}

Deno.test({
  name: "hq browser: a driver's movement appears on the open dashboard pages without a reload",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const world = await hqWorld();
    const { a } = world;
    try {
      const page = await signInAs(world, DEMO.dispatcher, "/hq/parts?rego=ABC123");
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));

      await t.step("parts page: the delivered part changes status in place", async () => {
        const row = page.getByRole("row").filter({ hasText: "52119-0K040" });
        assert.match((await row.textContent())!, /Arrived/);
        await listening(page);
        await markDocument(page);
        const delivered = await driverDelivers(a, "52119-0K040");
        assert.equal(delivered.result.status, "success", JSON.stringify(delivered));
        await page.getByRole("row").filter({ hasText: "52119-0K040" })
          .filter({ hasText: "Delivered to Repair Shop directly" })
          .waitFor({ timeout: LIVE_BOUND_MS });
        assert.ok(await sameDocument(page), "updated in place, not reloaded");
      });

      await t.step("claim page: a part of the claim delivered meanwhile changes in place", async () => {
        // A claim of its own, with one Arrived part, at one of the demo's repair shops.
        const shop = await a.db.selectFrom("repairers").select("id").orderBy("id").executeTakeFirstOrThrow();
        const made = await makeClaim(a.db, {
          registration: "LIVE01",
          management: shop.id,
          parts: [{ status: "Arrived", part_no: "LIVE-PART-1" }],
        });
        const part = { part_no: "LIVE-PART-1", claim_number: made.claim.claim_number };
        await page.goto(world.url(`/hq/claims/${encodeURIComponent(part.claim_number)}`));
        const row = () => page.getByRole("row").filter({ hasText: part.part_no }).first();
        assert.match((await row().textContent())!, /Arrived/);
        await listening(page);
        await markDocument(page);
        const delivered = await driverDelivers(a, part.part_no);
        assert.equal(delivered.result.status, "success", JSON.stringify(delivered));
        await page.getByRole("row").filter({ hasText: part.part_no })
          .filter({ hasText: "Delivered to Repair Shop directly" }).first()
          .waitFor({ timeout: LIVE_BOUND_MS });
        assert.ok(await sameDocument(page), "updated in place, not reloaded");
      });

      await t.step("part page: the part a driver just delivered changes status and history", async () => {
        const part = await a.db.selectFrom("parts_orders").select("id").where("part_no", "=", "81150-0K530")
          .executeTakeFirstOrThrow();
        await page.goto(world.url(`/hq/parts/${part.id}`));
        assert.match((await page.getByTestId("part-status").textContent())!, /Arrived/);
        await listening(page);
        await markDocument(page);
        const delivered = await driverDelivers(a, "81150-0K530");
        assert.equal(delivered.result.status, "success", JSON.stringify(delivered));
        await page.getByTestId("part-status").filter({ hasText: "Delivered to Repair Shop directly" })
          .waitFor({ timeout: LIVE_BOUND_MS });
        const history = page.getByRole("table", { name: "Status history" });
        assert.match((await history.textContent())!, /Movement #\d+/);
        assert.ok(await sameDocument(page), "updated in place, not reloaded");
      });

      await t.step("movement page: an open return trip dropped off at HQ changes", async () => {
        await page.goto(world.url(`/hq/movements/${world.tripId}`));
        assert.equal(await page.getByTestId("movement-status").textContent(), "Parts Picked Up");
        await listening(page);
        await markDocument(page);
        const parts = await a.db.selectFrom("deliver_parts").innerJoin("parts_orders as p", "p.id", "part_id")
          .select(["p.id", "p.claim_id"]).where("movement_id", "=", world.tripId).execute();
        const claim = await a.db.selectFrom("claims").select("registration").where(
          "id",
          "=",
          parts[0].claim_id,
        )
          .executeTakeFirstOrThrow();
        const driver = await a.db.selectFrom("users").select(["id", "email"])
          .where("email", "=", DEMO.driver.email).executeTakeFirstOrThrow();
        const images = await stageFor(a, parts, "reverse_dropoff", driver.id);
        const pairs = parts.map((p, i) => ({ part: p.id, image: images[i] }));
        const done = await a.call(
          dropOffReversePayload(driver.email, claim.registration, world.tripId, confirmed(pairs)),
        );
        assert.equal(done.result.status, "success", JSON.stringify(done));
        await page.getByTestId("movement-status").filter({ hasText: "Parts Dropped off" })
          .waitFor({ timeout: LIVE_BOUND_MS });
        assert.ok(await sameDocument(page), "updated in place, not reloaded");
      });

      await t.step("announcements page: the next movement's announcement appears", async () => {
        // A feed with every chip state, for the screenshot (docs/dashboard.md).
        const rows = await a.db.selectFrom("announcements").select(["id"]).orderBy("id").execute();
        await a.db.updateTable("announcements")
          .set({ state: "delivered", attempts: 1, delivered_at: a.clock.now() })
          .where("id", "in", [rows[0].id, rows[2].id]).execute();
        await a.db.updateTable("announcements")
          .set({ state: "failed", attempts: 31, last_error: "HTTP 502 from the chat" })
          .where("id", "=", rows[1].id).execute();
        await page.goto(world.url("/hq/announcements"));
        await listening(page);
        await markDocument(page);
        const before = await page.locator("[data-entry]").count();
        const delivered = await driverDelivers(a, "68101-0K010");
        assert.equal(delivered.result.status, "success", JSON.stringify(delivered));
        await page.waitForFunction(
          (n) => document.querySelectorAll("[data-entry]").length === n + 1,
          before,
          { timeout: LIVE_BOUND_MS },
        );
        assert.ok(await sameDocument(page), "updated in place, not reloaded");
        await screenshot(page, "hq-announcements");
      });
      assert.deepEqual(errors, []);
    } finally {
      await world.close();
    }
  },
});
