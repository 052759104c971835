/**
 * The search box in Chromium (docs/search-box.md): a searchbox named "Search" in the header of the
 * dashboard's pages; a part number typed and Enter shows the results page, whose part links to the part's
 * page. The results page's axe-core check is with every other page's (hq_ergonomics_test.ts).
 */
import assert from "node:assert/strict";
import { DEMO, hqWorld, signInAs } from "./hq_setup.ts";

Deno.test({
  name: "hq search box: in every page's header; a part number and Enter, then its link, open the part",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const world = await hqWorld();
    try {
      const part = await world.a.db.selectFrom("parts_orders").select(["id", "description"])
        .where("part_no", "=", "81110-0K530").executeTakeFirstOrThrow();
      const page = await signInAs(world, DEMO.dispatcher, "/hq/parts");
      for (const path of ["/hq/parts", "/hq/movements", "/hq/trips", "/hq/exports", `/hq/parts/${part.id}`]) {
        await page.goto(world.url(path));
        const box = page.locator("header").getByRole("searchbox", { name: "Search" });
        assert.equal(await box.count(), 1, path);
        assert.equal(await box.getAttribute("name"), "q", path);
      }
      // Typed as a dispatcher would, lower case, from the movements page.
      await page.goto(world.url("/hq/movements"));
      const box = page.getByRole("searchbox", { name: "Search" });
      await box.fill("81110-0k530");
      await box.press("Enter");
      await page.waitForURL((u) => u.pathname === "/hq/search", { timeout: 5000 });
      assert.equal(new URL(page.url()).searchParams.get("q"), "81110-0k530");
      assert.equal(await page.getByRole("searchbox", { name: "Search" }).inputValue(), "81110-0k530");
      const parts = page.getByRole("region", { name: /^Parts \(/ });
      assert.equal(await parts.getByRole("heading").textContent(), "Parts (1)");
      await parts.getByRole("link", { name: "81110-0K530" }).click();
      await page.waitForURL((u) => u.pathname === `/hq/parts/${part.id}`, { timeout: 5000 });
      assert.match(await page.locator("main").textContent() ?? "", new RegExp(part.description));
    } finally {
      await world.close();
    }
  },
});
