/**
 * The action queue in Chromium (docs/action-queue.md): `/hq/queue` passes axe-core; a driver's return
 * request arriving while the page is open shows in the queue and in the header's count without a reload,
 * and the same count updates on another dashboard page (the header's own live region).
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import axe from "npm:axe-core@4.14.1";
import { requestReturn } from "@/lib/return_requests.ts";
import { makeClaim } from "@/testkit/factories.ts";
import { DEMO, type HqWorld, hqWorld, signInAs } from "./hq_setup.ts";

/** The change shows within this long of the commit (NOTIFY at commit, 200 ms settle, one page fetch). */
const LIVE_BOUND_MS = 2000;
const AXE_SOURCE = (axe as unknown as { source: string }).source;

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const result = await (globalThis as any).axe.run(document);
    return result.violations.map((v: { id: string; nodes: { target: string[] }[] }) =>
      `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`
    );
  });
}

/** A fresh claim at a shop with one part there, and a driver's return request for it (now). */
async function driverAsks(world: HqWorld, rego: string) {
  const { a } = world;
  const shop = await a.db.selectFrom("repairers").select("id").orderBy("id").executeTakeFirstOrThrow();
  const { parts } = await makeClaim(a.db, {
    registration: rego,
    management: shop.id,
    parts: [{ status: "Delivered to Repair Shop directly", part_no: `${rego}-P1` }],
  });
  await a.db.updateTable("parts_orders").set({ updated_at: a.clock.now() }).where("id", "=", parts[0].id)
    .execute();
  const driver = await a.db.selectFrom("users").selectAll().where("email", "=", DEMO.driver.email)
    .executeTakeFirstOrThrow();
  const { request } = await requestReturn(a, driver, {
    rego,
    partIds: [parts[0].id],
    clientKey: crypto.randomUUID(),
  });
  return request;
}

const headerCount = async (page: Page) =>
  Number(await page.locator('[data-testid="queue-count"]').getAttribute("data-count"));

Deno.test({
  name: "action queue browser: axe clean; a return request arriving shows in the queue and the header live",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const world = await hqWorld();
    try {
      const page = await signInAs(world, DEMO.dispatcher, "/hq/queue", { bypassCSP: true });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));

      await t.step("the queue page passes axe-core, with a request and its forms on it", async () => {
        await driverAsks(world, "AXE001");
        await page.goto(world.url("/hq/queue"));
        await page.locator('[data-testid="action-queue"] [data-kind="return_request"]').first().waitFor();
        assert.deepEqual(await axeViolations(page), []);
      });

      await t.step("a request arriving: queue and header count update without a reload", async () => {
        await page.goto(world.url("/hq/queue"));
        await page.locator('body[data-live-state="listening"]').waitFor({ timeout: 10_000 });
        await page.evaluate(() => document.documentElement.setAttribute("data-test-mark", "same"));
        const before = await headerCount(page);
        const link = page.getByRole("link", { name: `Action queue, ${before} waiting` });
        assert.equal(await link.count(), 1);
        const request = await driverAsks(world, "LIVE42");
        await page.locator(`[data-queue-item="return-request-${request.id}"]`).waitFor({
          timeout: LIVE_BOUND_MS,
        });
        await page.getByRole("link", { name: `Action queue, ${before + 1} waiting` })
          .waitFor({ timeout: LIVE_BOUND_MS });
        assert.equal(
          await page.evaluate(() => document.documentElement.getAttribute("data-test-mark")),
          "same",
          "updated in place, not reloaded",
        );
      });

      await t.step("a reason half typed stays, with the caret in it, when the queue refreshes", async () => {
        await page.goto(world.url("/hq/queue"));
        await page.locator('body[data-live-state="listening"]').waitFor({ timeout: 10_000 });
        const first = await driverAsks(world, "TYPE01");
        const reason = page.getByLabel(`Reason for declining request #${first.id}`);
        await reason.waitFor({ timeout: LIVE_BOUND_MS });
        await reason.fill("Parts still on the");
        const second = await driverAsks(world, "TYPE02");
        await page.locator(`[data-queue-item="return-request-${second.id}"]`).waitFor({
          timeout: LIVE_BOUND_MS,
        });
        assert.equal(await reason.inputValue(), "Parts still on the");
        assert.equal(
          await page.evaluate(() =>
            (document.activeElement as HTMLInputElement | null)?.getAttribute("aria-label")
          ),
          `Reason for declining request #${first.id}`,
        );
        await page.keyboard.type(" hoist");
        assert.equal(await reason.inputValue(), "Parts still on the hoist");
      });

      await t.step("another page's header count follows too", async () => {
        await page.goto(world.url("/hq/trips"));
        await page.locator('body[data-live-state="listening"]').waitFor({ timeout: 10_000 });
        const before = await headerCount(page);
        await driverAsks(world, "LIVE43");
        await page.getByRole("link", { name: `Action queue, ${before + 1} waiting` })
          .waitFor({ timeout: LIVE_BOUND_MS });
      });
      assert.deepEqual(errors, []);
    } finally {
      await world.close();
    }
  },
});
