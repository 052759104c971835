/**
 * The driver's day in real Chromium on the demo data (docs/tablet.md "The run sheet"): HQ plans two stops
 * for a driver; the driver signs in and sees them in that order with their addresses, taps a rego and
 * delivers without typing, sees the stop's progress, then in a dead spot reloads the sheet, records a
 * collection from it and comes back online. "No network" is the server stopped plus the browser's offline
 * mode, as in tablet_offline_test.ts.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
import { ensureAssets } from "@/render/assets.ts";
import { launchBrowser } from "@/testkit/browser.ts";
import {
  confirmAndWaitForReceipt,
  hydrated,
  offline,
  onDemo,
  online,
  openPage,
  PHOTO,
  photograph,
  shoot,
  sign,
  signIn,
} from "./tablet_setup.ts";
import { assignStop, planTwoStops } from "./run_sheet_plan.ts";

const SOUTHSIDE = "Southside Collision Centre";
const NORTH = "North Smash Repairs";
const EASTERN = "Eastern Panel & Paint";

/** Waits (bounded) until `check` holds in the page. */
async function until(page: Page, what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let tries = 0;; tries++) {
    if (await page.evaluate(check)) return;
    if (tries > 120) throw new Error(`timed out waiting for: ${what}`);
    await page.waitForTimeout(250);
  }
}

const stopItems = (page: Page) => page.getByRole("list", { name: "Stops" }).locator(":scope > li");
const stopNamed = (page: Page, name: string) => stopItems(page).filter({ hasText: name });

Deno.test({
  name: "run sheet in Chromium: planned at HQ, worked through at the stops, through a dead spot",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await onDemo(() => openPage(browser), async (d, p) => {
        const { page, errors } = p;
        const context = page.context();
        // HQ plans: Southside first, then North Smash (not the order of their names).
        await planTwoStops(d, browser, "Dana Driver", [SOUTHSIDE, NORTH]);

        await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
        await hydrated(page, "TabletRunSheet");
        // The home's JavaScript alone (the sign-in page's counted apart), within the tablet's budget.
        await p.jsSince();
        await page.reload();
        await hydrated(page, "TabletRunSheet");
        const homeJs = await p.jsSince();
        console.info(`run sheet: the home's JS is ${homeJs} B gzipped`);
        assert.ok(homeJs > 0 && homeJs < 30_000, `home JS is ${homeJs} bytes gzipped`);
        await page.getByTestId("run-sheet").and(page.locator("[data-ready]")).waitFor();
        const first = await stopItems(page).nth(0).textContent();
        const second = await stopItems(page).nth(1).textContent();
        assert.ok(first?.includes(SOUTHSIDE) && first.includes("44 Bumper Rd, Southport"), first ?? "");
        assert.ok(second?.includes(NORTH) && second.includes("1 Panel St, Northgate"), second ?? "");
        assert.match(second!, /0 of 1 done/);
        // Live: HQ gives Dana one more stop while the home is open; it turns hers without a reload, before
        // the 30 s fallback read (the change feed, docs/runs.md).
        await page.locator("body[data-live-state=listening]").waitFor({ timeout: 15_000 });
        assert.match(await stopNamed(page, EASTERN).textContent() ?? "", /Not assigned to a driver yet/);
        await assignStop(d, browser, "Dana Driver", EASTERN);
        await stopNamed(page, EASTERN).getByText("Yours").waitFor({ timeout: 10_000 });
        // The jobs stay, under the sheet, for work off it.
        await page.getByRole("link", { name: /Deliver to a repair shop/ }).waitFor();
        await shoot(page, "20_run_sheet");

        // Ready for a dead spot: the worker keeps the pages, the home keeps the searches of its claims.
        await until(
          page,
          "the offline pages and the kept searches",
          async () =>
            navigator.serviceWorker.controller !== null &&
            await (await caches.open("pm-tablet-pages")).match("/tablet/collect") !== undefined &&
            await (await caches.open("pm-tablet-pages")).match("/tablet") !== undefined &&
            Object.keys(localStorage).some((k) =>
              k.startsWith("pm.runFound.") && (localStorage.getItem(k) ?? "").includes("87940-0K010")
            ),
        );

        // A rego tapped: the job page finds it by itself, nothing typed.
        await stopNamed(page, NORTH).getByRole("link", { name: /ABC123/ }).click();
        await hydrated(page, "TabletFlow");
        await page.getByTestId("part-52119-0K040").waitFor();
        assert.equal(await page.getByLabel("Vehicle rego").count(), 0, "searched already");
        await photograph(page, "52119-0K040");
        await photograph(page, "81110-0K530");
        await confirmAndWaitForReceipt(page, "Confirm delivery");
        const nav = page.getByTestId("stop-nav");
        await nav.getByText(`${NORTH}: 1 of 1 done · nothing else to do here`).waitFor();
        await shoot(page, "21_receipt_at_a_stop");
        await nav.getByRole("link", { name: "Back to today's run" }).click();
        await hydrated(page, "TabletRunSheet");
        await stopNamed(page, NORTH).getByTestId("stop-progress").getByText("1 of 1 done").waitFor();

        // A dead spot: the sheet reloads from the tablet, and a collection is recorded from it.
        await offline(d, context);
        await page.reload();
        await hydrated(page, "TabletRunSheet");
        await page.getByTestId("run-sheet-as-of").getByText(/^as of .*\d\d:\d\d · saved on this tablet/)
          .waitFor();
        await stopNamed(page, NORTH).getByTestId("stop-progress").getByText("1 of 1 done").waitFor();
        await stopNamed(page, SOUTHSIDE).getByRole("link", { name: /XYZ 789/ }).click();
        await hydrated(page, "TabletFlow");
        await page.getByTestId("part-87940-0K010").waitFor();
        await photograph(page, "87940-0K010", PHOTO, false);
        await photograph(page, "75310-0K020", PHOTO, false);
        await page.getByRole("button", { name: /^Review/ }).click();
        await sign(page);
        await page.getByRole("button", { name: "Confirm pickup" }).click();
        await page.getByTestId("saved-on-tablet").waitFor();
        // The stop goes on: its next claim, and the way back to the sheet.
        await nav.getByRole("link", { name: /Next claim: GHJ4567/ }).waitFor();
        await shoot(page, "22_next_claim_offline");
        await nav.getByRole("link", { name: "Back to today's run" }).click();
        await hydrated(page, "TabletRunSheet");
        const southside = stopNamed(page, SOUTHSIDE);
        await southside.getByRole("link", { name: /XYZ 789.*saved on this tablet/ }).waitFor();
        await southside.getByTestId("stop-progress").getByText("1 of 2 done").waitFor();
        const recorded = async () =>
          (await d.a.db.selectFrom("parts_orders").select("status")
            .where("part_no", "in", ["87940-0K010", "75310-0K020"]).execute()).map((p) => p.status);
        assert.deepEqual(await recorded(), Array(2).fill("Pending Repair Shop Pick-Up"));

        // Back online: the queue sends it and the sheet shows the server's count.
        await online(d, context);
        await page.getByTestId("run-sheet-as-of").getByText(/no network/).waitFor({
          state: "detached",
          timeout: 30_000,
        });
        await southside.getByRole("link", { name: /XYZ 789.*✓ done/ }).waitFor({ timeout: 30_000 });
        assert.deepEqual(await recorded(), Array(2).fill("Picked Up from Repair Shop"));
        await southside.getByTestId("stop-progress").getByText("1 of 2 done").waitFor();
        assert.deepEqual(errors, []);
      });
    } finally {
      await browser.close();
    }
  },
});

Deno.test({
  name: "run sheet in Chromium: in a dead spot, Next claim opens the stop's next delivery, not the one saved",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await onDemo(() => openPage(browser), async (d, p) => {
        const { page, errors } = p;
        const context = page.context();
        await planTwoStops(d, browser, "Dana Driver", [EASTERN, SOUTHSIDE]);
        await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
        await hydrated(page, "TabletRunSheet");
        await until(
          page,
          "the offline pages and the kept searches of both deliveries",
          async () =>
            navigator.serviceWorker.controller !== null &&
            await (await caches.open("pm-tablet-pages")).match("/tablet/deliver") !== undefined &&
            Object.keys(localStorage).some((k) =>
              k.startsWith("pm.runFound.") && (localStorage.getItem(k) ?? "").includes("68101-0K010") &&
              (localStorage.getItem(k) ?? "").includes("81150-0K530")
            ),
        );
        await offline(d, context);
        await page.reload();
        await hydrated(page, "TabletRunSheet");
        await stopNamed(page, EASTERN).getByRole("link", { name: /KLM-456/ }).click();
        await hydrated(page, "TabletFlow");
        await photograph(page, "68101-0K010", PHOTO, false);
        await page.getByRole("button", { name: /^Review/ }).click();
        await sign(page);
        await page.getByRole("button", { name: "Confirm delivery" }).click();
        await page.getByTestId("saved-on-tablet").waitFor();

        // The stop's next delivery opens, though the last one still waits on this tablet for the network.
        await page.getByTestId("stop-nav").getByRole("link", { name: /Next claim: def-456 \(Deliver\)/ })
          .click();
        await hydrated(page, "TabletFlow");
        await page.getByTestId("part-81150-0K530").waitFor();
        assert.equal(await page.getByTestId("saved-on-tablet").count(), 0);
        await photograph(page, "81150-0K530", PHOTO, false);
        await page.getByRole("button", { name: /^Review/ }).click();
        await sign(page);
        await page.getByRole("button", { name: "Confirm delivery" }).click();
        await page.getByTestId("saved-on-tablet").waitFor();
        await page.getByTestId("stop-nav").getByRole("link", { name: "Back to today's run" }).click();
        await hydrated(page, "TabletRunSheet");
        await stopNamed(page, EASTERN).getByTestId("stop-progress").getByText("2 of 3 done").waitFor();

        await online(d, context);
        await stopNamed(page, EASTERN).getByRole("link", { name: /KLM-456.*✓ done/ }).waitFor({
          timeout: 30_000,
        });
        await stopNamed(page, EASTERN).getByRole("link", { name: /def-456.*✓ done/ }).first().waitFor({
          timeout: 30_000,
        });
        const delivered = await d.a.db.selectFrom("parts_orders").select("status")
          .where("part_no", "in", ["68101-0K010", "81150-0K530"]).execute();
        assert.deepEqual(delivered.map((x) => x.status), Array(2).fill("Delivered to Repair Shop directly"));
        assert.deepEqual(errors, []);
      });
    } finally {
      await browser.close();
    }
  },
});
