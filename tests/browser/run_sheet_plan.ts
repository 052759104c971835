/**
 * HQ's plan for the run sheet's browser test: a dispatcher signs in to the dashboard, gives stops to a
 * driver on /hq/runs and orders them with the keyboard-usable up/down buttons (docs/dashboard.md).
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "@/testkit/browser.ts";
import type { Demo } from "./tablet_setup.ts";

const DISPATCHER = { email: "priya@depot.example", password: "dispatcher-demo-2468" };

const stopOf = (page: Page, shop: string) => page.locator("li[data-stop]").filter({ hasText: shop });

/**
 * Gives `shops` to `driver` for the depot's today and puts them in that order: each is assigned (a new
 * stop goes last of the run), then the last one is moved up until it is first, so the order is HQ's doing
 * and not the assignment's. Returns the order the dashboard shows.
 */
export async function planTwoStops(d: Demo, browser: Browser, driver: string, shops: [string, string]) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await signInToRuns(page, d);
    // Assigned in the reverse of the wanted order: the second shop first.
    for (const shop of [shops[1], shops[0]]) {
      await stopOf(page, shop).getByLabel(`Driver for ${shop}`).selectOption({ label: driver });
      await stopOf(page, shop).getByRole("button", { name: /^Assign/ }).click();
      await page.waitForURL(/done=assign/);
    }
    await page.getByRole("button", { name: `Move ${shops[0]} up` }).click();
    await page.waitForURL(/done=move/);
    const run = page.getByRole("list", { name: `${driver}'s stops` }).locator(":scope > li");
    const order = (await run.allTextContents()).map((t) => shops.find((s) => t.includes(s)));
    assert.deepEqual(order, shops, "the dashboard shows the run in the dispatcher's order");
    return order;
  } finally {
    await context.close();
  }
}

/** Gives one more shop to `driver` for the depot's today, as a dispatcher on /hq/runs. */
export async function assignStop(d: Demo, browser: Browser, driver: string, shop: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await signInToRuns(page, d);
    await stopOf(page, shop).getByLabel(`Driver for ${shop}`).selectOption({ label: driver });
    await stopOf(page, shop).getByRole("button", { name: /^Assign/ }).click();
    await page.waitForURL(/done=assign/);
  } finally {
    await context.close();
  }
}

async function signInToRuns(page: Page, d: Demo): Promise<void> {
  await page.goto(`${d.served.baseUrl}/hq/runs`);
  await page.getByLabel("E-mail").fill(DISPATCHER.email);
  await page.getByLabel("Password").fill(DISPATCHER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => u.pathname === "/hq/runs");
}
