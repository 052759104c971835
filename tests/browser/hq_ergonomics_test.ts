/**
 * The dashboard is comfortable all day, measured in Chromium on the demo data, on every
 * dashboard page (the search box's results included, and the styled 403 and 404 pages): axe-core reports no violations (every rule it runs by
 * default, none turned off); no visible control (a, button, input, select, textarea, summary) is under 40 px
 * tall; the base text is 16 px; at 800 px wide the page never scrolls sideways (a wide table scrolls inside
 * its own box). Screenshots: test-output/screenshots/hq_*.png.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import axe from "npm:axe-core@4.14.1";
import { screenshot } from "@/testkit/browser.ts";
import { DEMO, type HqWorld, hqWorld, signInAs } from "./hq_setup.ts";
import { requestReturn } from "@/lib/return_requests.ts";

/** axe-core's own source, injected into each page (the context bypasses the CSP for this script only). */
const AXE_SOURCE = (axe as unknown as { source: string }).source;

interface Measured {
  violations: { id: string; impact: string | null; nodes: string[] }[];
  shortControls: string[];
  fontSize: string;
  overflow: number;
}

/** Runs axe and measures the page as it is now. */
async function measure(page: Page): Promise<Measured> {
  await page.addScriptTag({ content: AXE_SOURCE });
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const result = await (globalThis as any).axe.run(document);
    const violations = result.violations.map((
      v: { id: string; impact: string | null; nodes: { target: string[] }[] },
    ) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
    const shortControls: string[] = [];
    for (const el of document.querySelectorAll("a, button, input, select, textarea, summary")) {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const visible = box.width > 0 && box.height > 0 && style.visibility !== "hidden" &&
        !(el instanceof HTMLInputElement && el.type === "hidden");
      if (visible && box.height < 40) {
        shortControls.push(
          `${el.tagName.toLowerCase()} "${
            (el.textContent || el.getAttribute("name") || "").trim().slice(0, 40)
          }" ${box.height.toFixed(1)} px`,
        );
      }
    }
    const root = document.documentElement;
    return {
      violations,
      shortControls,
      fontSize: getComputedStyle(document.body).fontSize,
      overflow: root.scrollWidth - root.clientWidth,
    };
  });
}

async function checkPage(world: HqWorld, page: Page, path: string, name: string, status = 200) {
  const wide = await page.goto(world.url(path));
  assert.equal(wide?.status(), status, path);
  await page.setViewportSize({ width: 1280, height: 900 });
  const m = await measure(page);
  assert.deepEqual(m.violations, [], `${path}: axe-core violations`);
  assert.deepEqual(m.shortControls, [], `${path}: controls under 40 px tall`);
  assert.equal(m.fontSize, "16px", `${path}: base font size`);
  await screenshot(page, `hq_${name}`);
  await page.setViewportSize({ width: 800, height: 1000 });
  const narrow = await page.evaluate(() =>
    document.documentElement.scrollWidth - document.documentElement.clientWidth
  );
  assert.equal(narrow, 0, `${path}: the page scrolls sideways at 800 px`);
  if (name === "parts") {
    // The parts table is wider than 800 px: it scrolls inside its own box instead.
    const box = await page.evaluate(() => {
      const wrap = document.querySelector("table")!.parentElement!;
      return {
        scroll: wrap.scrollWidth,
        client: wrap.clientWidth,
        overflowX: getComputedStyle(wrap).overflowX,
      };
    });
    assert.ok(box.scroll > box.client, `the parts table is wider than its box: ${JSON.stringify(box)}`);
    assert.equal(box.overflowX, "auto");
  }
  await screenshot(page, `hq_${name}_800`);
}

Deno.test({
  name:
    "hq ergonomics: every dashboard page passes axe-core, 40 px controls, 16 px text, no overflow at 800 px",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const world = await hqWorld();
    try {
      const part = await world.a.db.selectFrom("parts_orders").select("id").where(
        "part_no",
        "=",
        "81110-0K530",
      )
        .executeTakeFirstOrThrow();
      const claim = await world.a.db.selectFrom("claims").select("claim_number").orderBy("id")
        .executeTakeFirstOrThrow();
      await t.step("sign-in page", async () => {
        const context = await world.browser.newContext({ bypassCSP: true });
        await checkPage(world, await context.newPage(), "/hq/sign-in", "sign_in");
        await context.close();
      });
      // An open return request, so its queue shows a request with its forms.
      const driver = await world.a.db.selectFrom("users").selectAll().where("email", "=", DEMO.driver.email)
        .executeTakeFirstOrThrow();
      await requestReturn(world.a, driver, {
        rego: "ABC123",
        partIds: [part.id],
        note: "Shop has finished with it",
        clientKey: crypto.randomUUID(),
      });
      const admin = await signInAs(world, DEMO.admin, "/hq/parts", { bypassCSP: true });
      const pages: [string, string, number?][] = [
        ["/hq/parts", "parts"],
        [`/hq/parts/${part.id}`, "part"],
        ["/hq/movements", "movements"],
        [`/hq/movements/${world.directId}`, "movement"],
        [`/hq/movements/${world.tripId}`, "trip_movement"],
        ["/hq/trips", "trips"],
        ["/hq/return-requests", "return_requests"],
        [`/hq/claims/${encodeURIComponent(claim.claim_number)}`, "claim"],
        ["/hq/admin/audit", "admin_audit"],
        ["/hq/announcements", "announcements"],
        ["/hq/exports", "exports"],
        ["/hq/search?q=81110", "search"],
        ["/hq/search?q=a", "search_too_short"],
        ["/hq/admin/users", "admin_users"],
        ["/hq/admin/places", "admin_places"],
        ["/hq/admin/tablets", "admin_tablets"],
        ["/hq/admin/import", "admin_import"],
        ["/hq/parts/999999", "not_found", 404],
        ["/hq/parts?sort=nope", "refused_query", 400],
      ];
      for (const [path, name, status] of pages) {
        await t.step(path, () => checkPage(world, admin, path, name, status));
      }
      const dispatcher = await signInAs(world, DEMO.dispatcher, "/hq/parts", { bypassCSP: true });
      await t.step("403 page", () => checkPage(world, dispatcher, "/hq/admin/users", "forbidden", 403));
    } finally {
      await world.close();
    }
  },
});
