/**
 * The tablet's field rough edges in real Chromium on the demo data: the rego field
 * has focus on arrival, a rego matching several vehicles offers each as a button, "not found" says what
 * to do next, recent regos are one tap (and survive a reload), each part shows its quantity and the
 * claim's parts not ready yet are listed greyed with their status, a waiting photo is never shown as an
 * error, a rule failure scrolls to and focuses the part it names, and the sticky header and action bar
 * take at most a fifth of a 1280×800 landscape screen.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
import { ensureAssets } from "@/render/assets.ts";
import { launchBrowser } from "@/testkit/browser.ts";
import {
  chooseJob,
  hydrated,
  LANDSCAPE,
  onDemo,
  openPage,
  PHOTO,
  photograph,
  shoot,
  sign,
  signIn,
} from "./tablet_setup.ts";

/** Heights of the sticky header and the flow's action bar, in CSS px. */
function stickyHeights(page: Page): Promise<{ header: number; bar: number }> {
  return page.evaluate(() => ({
    header: document.querySelector("header")!.getBoundingClientRect().height,
    bar: document.querySelector('[data-testid="action-bar"]')!.getBoundingClientRect().height,
  }));
}

/** The focused element's part card (its data-part-id), if focus is inside one. */
const focusedPartId = (page: Page) =>
  page.evaluate(() => document.activeElement?.closest<HTMLElement>("[data-part-id]")?.dataset.partId ?? null);

/** Whether the element lies wholly between the bottom of the sticky header and the top of the bar. */
function clearOfStickyBars(page: Page, testId: string, within: string): Promise<boolean> {
  return page.evaluate(([card, id]) => {
    const el = document.querySelector(`[data-testid="${card}"] [data-testid="${id}"]`)!
      .getBoundingClientRect();
    const header = document.querySelector("header")!.getBoundingClientRect();
    const bar = document.querySelector('[data-testid="action-bar"]')!.getBoundingClientRect();
    return el.top >= header.bottom && el.bottom <= bar.top;
  }, [within, testId]);
}

Deno.test({
  name: "tablet in Chromium: the field rough edges on the demo data",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await t.step(
        "rego focused on arrival; several vehicles as buttons; not found says what next; recent regos",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
            await hydrated(page, "TabletFlow");
            await page.waitForFunction(() => document.activeElement?.id === "rego");
            assert.equal(await page.getByTestId("recent-regos").count(), 0, "nothing searched yet");

            await page.keyboard.type("ZZZ999");
            await page.keyboard.press("Enter");
            await page.getByTestId("search-error").waitFor();
            assert.equal(
              await page.getByTestId("search-error").locator("p").first().textContent(),
              "Rego not found",
            );
            assert.match(
              (await page.getByTestId("search-next-step").textContent())!,
              /^Check the rego on the vehicle/,
            );
            await page.getByLabel("Vehicle rego").fill("FLT 900");
            await page.getByRole("button", { name: "Find parts" }).click();
            await page.getByText("Record not found", { exact: true }).waitFor();
            assert.match((await page.getByTestId("search-next-step").textContent())!, /call HQ/);

            await page.getByLabel("Vehicle rego").fill("456");
            await page.getByRole("button", { name: "Find parts" }).click();
            const matching = page.getByTestId("matching-regos");
            await matching.waitFor();
            assert.deepEqual(
              await matching.getByRole("button").allTextContents(),
              ["DEF 456", "GHJ4567", "KLM-456"],
            );
            await shoot(page, "16_several_vehicles");
            await matching.getByRole("button", { name: "KLM-456" }).click();

            // Each part shows its quantity; the claim's other parts are listed greyed with their status.
            const part = page.getByTestId("part-68101-0K010");
            await part.waitFor();
            assert.equal(await part.getByTestId("part-qty").textContent(), "· Qty 1");
            const notReady = page.getByTestId("not-ready");
            assert.deepEqual(await notReady.getByTestId("not-ready-status").allTextContents(), [
              "On the truck back to HQ",
              "Back at HQ",
            ]);
            assert.match(
              (await notReady.getByTestId("not-ready-61111-0K900").textContent())!,
              /Left quarter panel/,
            );
            assert.equal(await notReady.getByRole("checkbox").count(), 0, "not selectable");
            const grey = await notReady.evaluate((el) => getComputedStyle(el).backgroundColor);
            assert.notEqual(grey, "rgb(255, 255, 255)", "greyed, unlike the white part cards");
            await shoot(page, "17_parts_with_not_ready");

            // The vehicle is now one tap away on this tablet, even after a reload, newest first. ("Another
            // rego" drops the job on screen: the job page otherwise picks up the driver's draft.)
            await page.getByRole("button", { name: "Another rego" }).click();
            await page.getByLabel("Vehicle rego").fill("abc123");
            await page.getByRole("button", { name: "Find parts" }).click();
            await page.getByTestId("part-52119-0K040").waitFor();
            await page.getByRole("button", { name: "Another rego" }).click();
            await page.getByLabel("Vehicle rego").waitFor();
            await page.reload();
            await hydrated(page, "TabletFlow");
            const recent = page.getByTestId("recent-regos");
            await recent.waitFor();
            assert.deepEqual(await recent.getByRole("button").allTextContents(), ["ABC123", "KLM-456"]);
            await shoot(page, "18_recent_regos");
            await recent.getByRole("button", { name: "KLM-456" }).click();
            await page.getByTestId("part-68101-0K010").waitFor();
            assert.equal(await page.getByTestId("found-rego").textContent(), "KLM-456");
            assert.deepEqual(p.errors, []);
          });
        },
      );

      await t.step(
        "a photo waiting for the network is amber, never an error; Review goes on (the queue sends it)",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            const bumper = page.getByTestId("part-52119-0K040");
            await bumper.waitFor();
            await page.context().setOffline(true);
            await bumper.getByRole("checkbox").check();
            await bumper.getByLabel("Take photo of 52119-0K040").setInputFiles(PHOTO);
            await bumper.getByText(/Not uploaded yet: no connection/).waitFor();
            assert.equal(await page.getByTestId("part-error").count(), 0);
            assert.equal(await page.getByTestId("form-error").count(), 0);
            assert.equal(
              await page.locator(".msg-error, .text-red-800, .border-red-800").count(),
              0,
              "no red",
            );
            await shoot(page, "19_waiting_not_red");
            // Kept on the tablet, the photo does not hold up the review (finish offline).
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
            assert.equal(await page.locator(".msg-error").count(), 0, "no red on the review either");
            await page.context().setOffline(false);
            await page.getByRole("button", { name: "Back to parts" }).click();
            await bumper.getByTestId("photo-done").waitFor({ timeout: 15_000 });
            assert.deepEqual(p.errors.filter((e) => !e.includes("net::")), []);
          });
        },
      );

      await t.step(
        "Review asked while a photo is still being saved says so, then opens the review by itself",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            // Holds the photo's shrinking (islands/_tablet_net.ts preparePhoto) until the test lets it go.
            await page.addInitScript(() => {
              const decode = globalThis.createImageBitmap.bind(globalThis);
              const w = globalThis as unknown as { releasePhoto?: () => void };
              const held = new Promise<void>((resolve) => w.releasePhoto = resolve);
              globalThis.createImageBitmap = ((...args: Parameters<typeof decode>) =>
                held.then(() => decode(...args))) as typeof decode;
            });
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            const bumper = page.getByTestId("part-52119-0K040");
            await bumper.waitFor();
            await bumper.getByRole("checkbox").check();
            await bumper.getByLabel("Take photo of 52119-0K040").setInputFiles(PHOTO);
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByTestId("wait-notice").getByText(/being saved on this tablet/).waitFor();
            assert.equal(await page.getByRole("heading", { name: "Check and confirm" }).count(), 0);
            await page.evaluate(() => (globalThis as unknown as { releasePhoto: () => void }).releasePhoto());
            await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
            assert.deepEqual(p.errors, []);
          });
        },
      );

      await t.step(
        "a rule failure scrolls to and focuses its part, clear of the sticky header and bar (≤ 1/5 of 1280×800)",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await page.setViewportSize(LANDSCAPE);
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            await photograph(page, "52119-0K040");
            await photograph(page, "81110-0K530");
            const parts = await stickyHeights(page);
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
            const review = await stickyHeights(page);
            console.info(
              `tablet 1280×800: header ${parts.header} px; action bar ${parts.bar} px (parts), ` +
                `${review.bar} px (review); a fifth is ${LANDSCAPE.height / 5} px`,
            );
            for (const h of [parts, review]) {
              assert.ok(h.header + h.bar <= LANDSCAPE.height / 5, `header ${h.header} + bar ${h.bar} px`);
            }

            await sign(page);
            // The dashboard takes the headlamp (the lower part) back before the confirmation.
            await d.a.db.updateTable("parts_orders").set({ status: "Ordered" })
              .where("part_no", "=", "81110-0K530").execute();
            await page.getByRole("button", { name: "Confirm delivery" }).click();
            const headlamp = page.getByTestId("part-81110-0K530");
            await headlamp.getByTestId("part-error").waitFor();
            const id = await headlamp.getAttribute("data-part-id");
            await page.waitForFunction(
              (want) =>
                document.activeElement?.closest<HTMLElement>("[data-part-id]")?.dataset.partId === want,
              id,
            );
            assert.equal(await focusedPartId(page), id);
            assert.equal(
              await page.evaluate(() => (document.activeElement as HTMLInputElement).type),
              "checkbox",
              "the part's toggle, which its message describes",
            );
            assert.ok(await clearOfStickyBars(page, "part-error", "part-81110-0K530"), "message in view");
            await page.setViewportSize(LANDSCAPE);
            await page.screenshot({ path: "test-output/screenshots/tablet_20_rule_failure_in_view.png" });
            assert.deepEqual(p.errors, []);
          });
        },
      );
    } finally {
      await browser.close();
    }
  },
});
