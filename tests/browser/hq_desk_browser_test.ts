/**
 * The desk at 1440×900 in Chromium (docs/live-rows.md, docs/import.md): a movement made while the list is
 * open arrives highlighted and is announced, then the highlight goes; no table is cut; a CSV template filled
 * in imports through the page.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
import { DEMO, driverDelivers, hqWorld, signInAs } from "./hq_setup.ts";

const DESK = { viewport: { width: 1440, height: 900 } };

/** Waits for a condition of the test's own side (a bound, polled each 20 ms). */
async function waitFor(ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function listening(page: Page): Promise<void> {
  await page.locator('body[data-live-state="listening"]').waitFor({ timeout: 10_000 });
}

/**
 * Every table of the page: its right edge within the viewport, or inside a labelled, focusable region that
 * scrolls it into view; and the page itself never wider than the viewport. Returns the tables that need
 * their region's scrolling (none wanted at 1440).
 */
async function tablesWhole(page: Page): Promise<string[]> {
  const report = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const problems: string[] = [];
    const scrolled: string[] = [];
    const tables = [...document.querySelectorAll("main table")] as HTMLElement[];
    for (const table of tables) {
      const name = table.getAttribute("aria-label") ?? table.getAttribute("aria-labelledby") ?? "table";
      const right = table.getBoundingClientRect().right;
      // The nearest box that clips it sideways: the table must fit there, or that box must be its region.
      let clip = table.parentElement;
      while (clip && getComputedStyle(clip).overflowX === "visible") clip = clip.parentElement;
      const clipRight = clip && clip !== document.body && clip !== document.documentElement
        ? clip.getBoundingClientRect().left + clip.clientLeft + clip.clientWidth
        : width;
      if (right <= Math.min(width, clipRight) + 0.5) continue;
      const box = clip as HTMLElement | null;
      const style = box ? getComputedStyle(box) : null;
      const ok = box && style && box.getAttribute("role") === "region" &&
        ["auto", "scroll"].includes(style.overflowX) && box.getAttribute("aria-label") &&
        box.tabIndex === 0 && box.getBoundingClientRect().right <= width + 0.5 &&
        box.scrollWidth >= table.getBoundingClientRect().width - 1;
      if (ok) scrolled.push(`${name} (${Math.round(right - clipRight)} px)`);
      else {problems.push(
          `${name}: right edge ${Math.round(right)} > ${Math.round(clipRight)}, no scroll region`,
        );}
    }
    return {
      count: tables.length,
      problems,
      scrolled,
      pageWidth: document.documentElement.scrollWidth,
    };
  });
  assert.deepEqual(report.problems, [], page.url());
  assert.ok(report.pageWidth <= 1440, `${page.url()}: the page is ${report.pageWidth} px wide`);
  return report.scrolled;
}

Deno.test({
  name: "hq desk: at 1440×900 every dashboard table shows whole (or scrolls in its own labelled region)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const world = await hqWorld();
    try {
      const { a } = world;
      const part = await a.db.selectFrom("parts_orders").select(["id", "claim_id"]).orderBy("id")
        .executeTakeFirstOrThrow();
      const claim = await a.db.selectFrom("claims").select("claim_number").where("id", "=", part.claim_id)
        .executeTakeFirstOrThrow();
      const page = await signInAs(world, DEMO.admin, "/hq/parts", DESK);
      const pages = [
        "/hq/parts",
        "/hq/movements",
        "/hq/trips",
        "/hq/runs",
        "/hq/return-requests",
        "/hq/problem-reports",
        "/hq/announcements",
        "/hq/admin/users",
        "/hq/admin/places",
        "/hq/admin/tablets",
        "/hq/admin/audit",
        "/hq/admin/import",
        `/hq/labels?part=${part.id}`,
        `/hq/claims/${encodeURIComponent(claim.claim_number)}`,
        `/hq/parts/${part.id}`,
        `/hq/movements/${world.tripId}`,
        `/hq/movements/${world.directId}`,
      ];
      const scrolled: string[] = [];
      let tables = 0;
      for (const path of pages) {
        const res = await page.goto(world.url(path));
        assert.equal(res?.status(), 200, path);
        tables += await page.locator("main table").count();
        scrolled.push(...(await tablesWhole(page)).map((t) => `${path}: ${t}`));
      }
      assert.ok(tables >= 15, `tables checked: ${tables}`);
      // The layout fits them all at 1440: nothing needs its region's scrolling.
      assert.deepEqual(scrolled, []);

      // Narrower, a wide table scrolls in its region (reachable, not cut) and the page does not widen.
      await page.setViewportSize({ width: 900, height: 900 });
      await page.goto(world.url("/hq/movements"));
      const narrow = await tablesWhole(page);
      assert.ok(narrow.length > 0, "at 900 px the movements table scrolls in its region");
      const region = page.getByRole("region", { name: /^Movements/ });
      await region.focus();
      for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowRight");
      await page.waitForFunction(
        () => {
          const box = document.querySelector("[role=region][aria-label^=Movements]")!;
          return box.scrollLeft > 0;
        },
        undefined,
        { timeout: 2000 },
      );
    } finally {
      await world.close();
    }
  },
});

Deno.test({
  name: "hq desk: a movement made while the list is open arrives highlighted, announced once, then plain",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const world = await hqWorld();
    try {
      const { a } = world;
      const page = await signInAs(world, DEMO.dispatcher, "/hq/movements", DESK);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await listening(page);
      // A shorter highlight for the test (docs/live-rows.md).
      await page.evaluate(() => document.body.setAttribute("data-live-highlight-ms", "1500"));
      const news = page.getByTestId("live-news");
      assert.equal(await news.getAttribute("aria-live"), "polite");
      assert.equal(await page.locator("[aria-live]").count(), 1, "one live region on the page");
      assert.equal((await news.textContent())?.trim(), "", "nothing announced on load");
      assert.equal(await page.locator("tr.live-new").count(), 0, "rows there on load are not new");

      const delivered = await driverDelivers(a, "52119-0K040");
      assert.equal(delivered.result.status, "success", JSON.stringify(delivered));
      const id = (delivered.result as { data?: { parts_movement_id: number } }).data!.parts_movement_id;
      const row = page.locator(`tr[data-movement="${id}"]`);
      await page.locator(`tr.live-new[data-movement="${id}"]`).waitFor({ timeout: 2000 });
      assert.equal(await page.locator("tr.live-new").count(), 1, "only the new row");
      assert.equal(
        await row.evaluate((r) => getComputedStyle(r).animationName),
        "live-new",
        "the highlight fades (an animation)",
      );
      const claim = await a.db.selectFrom("parts_orders").innerJoin("claims", "claims.id", "claim_id")
        .select("registration").where("part_no", "=", "52119-0K040").executeTakeFirstOrThrow();
      assert.equal(await news.textContent(), `New movement #${id}: Direct, ${claim.registration}`);

      // The highlight goes after its time; the row stays.
      await page.locator("tr.live-new").waitFor({ state: "detached", timeout: 5000 });
      assert.equal(await row.count(), 1);

      // Under prefers-reduced-motion: no animation, a static marker instead.
      await page.emulateMedia({ reducedMotion: "reduce" });
      await page.evaluate(() => document.body.setAttribute("data-live-highlight-ms", "60000"));
      const second = await driverDelivers(a, "81150-0K530");
      assert.equal(second.result.status, "success", JSON.stringify(second));
      const id2 = (second.result as { data?: { parts_movement_id: number } }).data!.parts_movement_id;
      const marked = page.locator(`tr.live-new[data-movement="${id2}"]`);
      await marked.waitFor({ timeout: 2000 });
      const style = await marked.evaluate((r) => {
        const s = getComputedStyle(r);
        return { animation: s.animationName, marker: s.boxShadow };
      });
      assert.equal(style.animation, "none");
      assert.notEqual(style.marker, "none");
      assert.match((await news.textContent())!, new RegExp(`^New movement #${id2}: Direct, `));
      assert.equal(
        await page.locator("tr.live-new").count(),
        1,
        "the earlier row is not re-announced or lit",
      );

      // Two arriving in one refresh are announced in one message: the page's refresh is held until both
      // are committed.
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let held = 0;
      await page.route("**/hq/movements", async (route) => {
        if (route.request().headers()["x-hq-live"] === "1") {
          held++;
          await gate;
        }
        await route.continue();
      });
      const both = [await driverDelivers(a, "68101-0K010"), await driverDelivers(a, "53812-0K050")];
      const ids = both.map((d) =>
        (d.result as { data?: { parts_movement_id: number } }).data!.parts_movement_id
      );
      await waitFor(() => held > 0, 2000);
      release();
      await page.locator(`tr.live-new[data-movement="${ids[1]}"]`).waitFor({ timeout: 3000 });
      const message = (await news.textContent())!;
      assert.match(message, /^2 new: movement #\d+: Direct, [^;]+; movement #\d+: Direct, /);
      for (const id of ids) assert.ok(message.includes(`movement #${id}:`), message);
      await page.unroute("**/hq/movements");
      assert.deepEqual(errors, []);
    } finally {
      await world.close();
    }
  },
});

Deno.test({
  name: "hq desk: the users CSV template, downloaded and filled in, imports through the page",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const world = await hqWorld();
    try {
      const page = await signInAs(world, DEMO.admin, "/hq/admin/import", DESK);
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: /Download the template \(users\.csv\)/ }).click(),
      ]);
      assert.equal(download.suggestedFilename(), "users.csv");
      const template = await Deno.readTextFile((await download.path())!);
      const [header] = template.split("\r\n");
      assert.equal(header, "email,name,role,pin,password,active");
      const filled = `${header}\r\nsam@depot.example,Sam Driver,driver,2468,,true\r\n` +
        "kim@depot.example,Kim Dispatch,dispatcher,,a-long-enough-passphrase-42,\r\n";
      const file = `${await Deno.makeTempDir({ prefix: "pm-desk-" })}/users.csv`;
      await Deno.writeTextFile(file, filled);
      await page.getByLabel("The file holds").selectOption("users");
      await page.getByLabel(/^File \(/).setInputFiles(file);
      await page.getByRole("button", { name: "Import" }).click();
      await page.getByText("Imported users.csv").waitFor({ timeout: 10_000 });
      const users = await world.a.db.selectFrom("users").select(["email", "role"])
        .where("email", "in", ["sam@depot.example", "kim@depot.example"]).orderBy("email").execute();
      assert.deepEqual(users, [
        { email: "kim@depot.example", role: "dispatcher" },
        { email: "sam@depot.example", role: "driver" },
      ]);

      // The same file chosen as claims: a clear message, nothing written.
      await page.getByLabel("The file holds").selectOption("claims");
      await page.getByLabel(/^File \(/).setInputFiles(file);
      await page.getByRole("button", { name: "Import" }).click();
      await page.getByText(/users\.csv is a CSV of users/).waitFor({ timeout: 10_000 });
    } finally {
      await world.close();
    }
  },
});
