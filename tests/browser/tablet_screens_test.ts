/**
 * The tablet's screens as a driver reads them, in real Chromium on the demo data (docs/tablet.md "Using
 * it"): the receipt's way on ("Another job", "Finish and sign out") in the first screen at 1280×800, the
 * collect screen naming the shop, the review with quantities, the header one row in portrait (800×1280),
 * a submission saved offline said so once, and "No answer from the server" gone when the network is back.
 * "No network" is the server stopped plus the browser's offline mode, as in tablet_offline_test.ts.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
import { ensureAssets } from "@/render/assets.ts";
import { launchBrowser, screenshot } from "@/testkit/browser.ts";
import {
  chooseJob,
  hydrated,
  LANDSCAPE,
  offline,
  onDemo,
  online,
  openPage,
  photograph,
  shoot,
  sign,
  signIn,
} from "./tablet_setup.ts";

const PORTRAIT = { width: 800, height: 1280 };

type Locator = ReturnType<Page["locator"]>;

/** The element's box against the viewport, with the page scrolled to the top (what the driver sees first). */
async function firstScreenBox(page: Page, target: Locator) {
  await page.evaluate(() => scrollTo(0, 0));
  return await target.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return { top: box.top, bottom: box.bottom, height: innerHeight, scrollY };
  });
}

/** Both ways on from a receipt lie wholly inside the first screen. */
async function assertWayOnInFirstScreen(page: Page, what: string): Promise<void> {
  for (
    const target of [
      page.getByRole("link", { name: "Another job" }),
      page.getByRole("button", { name: "Finish and sign out" }),
    ]
  ) {
    const box = await firstScreenBox(page, target);
    assert.equal(box.scrollY, 0);
    assert.ok(
      box.top >= 0 && box.bottom <= box.height,
      `${what}: ${await target.textContent()} at ${box.top}–${box.bottom} px of a ${box.height} px screen`,
    );
  }
}

/**
 * The boxes of the header's first row (app name, page title, signed-in name, Sign out): one row when every
 * box overlaps every other vertically, i.e. the lowest top is above the highest bottom.
 */
function headerRow(page: Page) {
  return page.evaluate(() => {
    const row = document.querySelector("header > div")!;
    const items = [...row.querySelectorAll<HTMLElement>(":scope > a, :scope > span, strong, button")];
    const boxes = items.map((el) => el.getBoundingClientRect());
    const title = row.querySelector<HTMLElement>(":scope > span");
    return {
      items: items.length,
      /** The page title is cut with an ellipsis (allowed for a long one; none of today's is). */
      titleCut: title !== null && title.scrollWidth > title.clientWidth,
      lowestTop: Math.max(...boxes.map((b) => b.top)),
      highestBottom: Math.min(...boxes.map((b) => b.bottom)),
      rowHeight: row.getBoundingClientRect().height,
    };
  });
}

/** How many times the visible text of the page says "Saved on this tablet" (any case). */
const savedSaid = (page: Page) =>
  page.evaluate(() => document.body.innerText.match(/saved on this tablet/gi)?.length ?? 0);

Deno.test({
  name: "tablet in Chromium: the screens a driver reads on the demo data",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await t.step(
        "receipts keep their way on in the first screen; collect names the shop; the review shows quantities",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await page.setViewportSize(LANDSCAPE);
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            await photograph(page, "52119-0K040");
            await photograph(page, "81110-0K530");
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
            assert.deepEqual(await page.getByTestId("review-qty").allTextContents(), ["· Qty 1", "· Qty 1"]);
            await sign(page);
            await page.getByRole("button", { name: "Confirm delivery" }).click();
            await page.waitForURL(/\/tablet\/movements\/\d+/);
            await assertWayOnInFirstScreen(page, "delivery receipt");

            await page.getByRole("link", { name: "Another job" }).click();
            await chooseJob(page, "Collect from a repair shop", "XYZ 789");
            await page.getByTestId("part-75310-0K020").waitFor();
            assert.equal(
              await page.getByTestId("collect-from").textContent(),
              "From Southside Collision Centre to HQ",
            );
            await shoot(page, "21_collect_names_shop");
            await photograph(page, "87940-0K010");
            await photograph(page, "75310-0K020");
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
            assert.equal(
              await page.getByTestId("review-place").textContent(),
              "Collect from a repair shop: Southside Collision Centre",
            );
            assert.equal(
              await page.getByTestId("review-75310-0K020").getByTestId("review-qty").textContent(),
              "· Qty 2",
            );
            await shoot(page, "22_review_quantities");
            await sign(page);
            await page.getByRole("button", { name: "Confirm pickup" }).click();
            await page.waitForURL(/\/tablet\/movements\/\d+/);
            await page.getByText("Southside Collision Centre").waitFor();
            await assertWayOnInFirstScreen(page, "collection receipt");
            await shoot(page, "23_collection_receipt");
            assert.deepEqual(p.errors, []);
          });
        },
      );

      await t.step("portrait 800×1280: the header keeps one row on every screen", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await page.setViewportSize(PORTRAIT);
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await hydrated(page, "TabletIdle");
          const seen: string[] = [];
          const check = async (screen: string) => {
            const row = await headerRow(page);
            seen.push(`${screen} ${row.rowHeight} px`);
            assert.ok(row.items >= 3, `${screen}: app name, (title,) name, Sign out`);
            assert.ok(row.lowestTop < row.highestBottom, `${screen}: header wraps (${JSON.stringify(row)})`);
            assert.equal(row.titleCut, false, `${screen}: title cut`);
          };
          await check("jobs");
          for (const job of ["Deliver to a repair shop", "Collect from a repair shop", "Return to HQ"]) {
            await page.goto(`${d.served.baseUrl}/tablet`);
            await page.getByRole("link", { name: new RegExp(job) }).click();
            await hydrated(page, "TabletFlow");
            await check(job);
          }
          await page.goto(`${d.served.baseUrl}/tablet`);
          await chooseJob(page, "Collect from a repair shop", "XYZ 789");
          await photograph(page, "87940-0K010");
          await page.getByRole("button", { name: /^Review/ }).click();
          await sign(page);
          await page.getByRole("button", { name: "Confirm pickup" }).click();
          await page.waitForURL(/\/tablet\/movements\/\d+/);
          await check("receipt");
          await page.setViewportSize(PORTRAIT);
          await screenshot(page, "tablet_24_receipt_portrait_header");
          console.info(`tablet 800×1280 header: ${seen.join(", ")}`);
          assert.deepEqual(p.errors, []);
        });
      });

      await t.step("a submission saved offline says so once", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await signIn(page, d.served.baseUrl, "Sam Lorry", "1357");
          await chooseJob(page, "Collect from a repair shop", "XYZ 789");
          await photograph(page, "87940-0K010");
          await offline(d, page.context());
          await page.getByRole("button", { name: /^Review/ }).click();
          await sign(page);
          await page.getByRole("button", { name: "Confirm pickup" }).click();
          await page.getByRole("heading", { name: "Saved on this tablet" }).waitFor();
          // Settled: the sender found no network and waits (Retry now), the header counts the movement.
          await page.getByRole("button", { name: "Retry now" }).waitFor({ timeout: 15_000 });
          await page.getByTestId("queue-count").getByText("1 movement").waitFor();
          await screenshot(page, "tablet_25_saved_offline_once");
          assert.equal(await savedSaid(page), 1, await page.evaluate(() => document.body.innerText));

          await online(d, page.context());
          await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
          assert.equal(
            await page.getByTestId("receipt-title").textContent(),
            "Collected from the repair shop",
          );
          assert.deepEqual(p.errors.filter((e) => !e.includes("net::")), []);
        });
      });

      await t.step('a stale "No answer from the server" goes when the network comes back', async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await signIn(page, d.served.baseUrl, "Sam Lorry", "1357");
          await page.getByRole("link", { name: /Collect from a repair shop/ }).click();
          await hydrated(page, "TabletFlow");
          await offline(d, page.context());
          await page.getByLabel("Vehicle rego").fill("XYZ 789");
          await page.getByRole("button", { name: "Find parts" }).click();
          const error = page.getByTestId("search-error");
          await error.getByText(/^No answer from the server/).waitFor();
          await online(d, page.context());
          await error.waitFor({ state: "detached", timeout: 10_000 });
          // The rego typed is kept: one tap searches again.
          assert.equal(await page.getByLabel("Vehicle rego").inputValue(), "XYZ 789");
          await page.getByRole("button", { name: "Find parts" }).click();
          await page.getByTestId("part-87940-0K010").waitFor();
          assert.deepEqual(p.errors.filter((e) => !e.includes("net::")), []);
        });
      });
    } finally {
      await browser.close();
    }
  },
});
