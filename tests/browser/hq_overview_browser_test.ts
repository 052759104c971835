/**
 * The overview at `/hq` in Chromium (docs/overview.md), on the demo data: axe-core reports no violation (its
 * default rules, none turned off, as tests/browser/hq_ergonomics_test.ts runs it) on the overview and on the
 * thresholds' admin page; a driver's delivery moves "Ready to deliver" and "At repair shops" within 2 s,
 * without a reload.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import axe from "npm:axe-core@4.14.1";
import { screenshot } from "@/testkit/browser.ts";
import { DEMO, driverDelivers, hqWorld, signInAs } from "./hq_setup.ts";

const AXE_SOURCE = (axe as unknown as { source: string }).source;
const LIVE_BOUND_MS = 2000;

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const result = await (globalThis as any).axe.run(document);
    return result.violations.map((v: { id: string; nodes: { target: string[] }[] }) =>
      `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`
    );
  });
}

const figure = async (page: Page, name: string) =>
  Number((await page.locator(`[data-figure="${name}"]`).first().textContent())!.replace(/\D+.*$/s, ""));

Deno.test({
  name: "hq browser: the overview passes axe-core, and its counts follow a driver's delivery live",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const world = await hqWorld();
    try {
      const page = await signInAs(world, DEMO.admin, "/hq", { bypassCSP: true });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));

      await t.step("axe-core: no violation on the overview and the thresholds page", async () => {
        assert.equal(await page.getByRole("heading", { level: 1, name: "Today" }).count(), 1);
        assert.deepEqual(await axeViolations(page), [], "/hq");
        await screenshot(page, "hq_overview");
        await page.goto(world.url("/hq/admin/ageing"));
        assert.deepEqual(await axeViolations(page), [], "/hq/admin/ageing");
        await screenshot(page, "hq_admin_ageing");
      });

      await t.step("a delivery moves the counts in place", async () => {
        await page.goto(world.url("/hq"));
        const ready = await figure(page, "ready");
        const atShops = await figure(page, "at-shops");
        await page.locator('body[data-live-state="listening"]').waitFor({ timeout: 10_000 });
        await page.evaluate(() => document.documentElement.setAttribute("data-test-mark", "same"));
        const delivered = await driverDelivers(world.a, "52119-0K040");
        assert.equal(delivered.result.status, "success", JSON.stringify(delivered));
        await page.locator(`[data-figure="at-shops"]`).filter({ hasText: new RegExp(`^${atShops + 1}\\b`) })
          .waitFor({ timeout: LIVE_BOUND_MS });
        assert.equal(await figure(page, "ready"), ready - 1);
        assert.equal(
          await page.evaluate(() => document.documentElement.getAttribute("data-test-mark")),
          "same",
          "updated in place, not reloaded",
        );
      });
      assert.deepEqual(errors, []);
    } finally {
      await world.close();
    }
  },
});
