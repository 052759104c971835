/**
 * The claim page printed in Chromium (docs/claim-page.md): print media on an
 * A4-wide page hides the dashboard's header, cuts no table off and shows one thumbnail per leg; the Print
 * button prints; `page.pdf()` of a three-part claim with two legs each fits three A4 pages, every page
 * carrying the claim number, the rego, the print time and "Page N of M", the parts never moved listed
 * together, no internal name anywhere; the evidence pack's claim.html prints with the same header and footer.
 * Photos come through the real upload path (tests/helpers/claim_story.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { ensureAssets } from "@/render/assets.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import { buildTestApp, type TestApp } from "@/testkit/app.ts";
import { claimStory, twoLegClaim } from "@/tests/helpers/claim_story.ts";
import { freshDb } from "@/testkit/db.ts";
import { makeUser } from "@/testkit/factories.ts";
import { makeSession } from "@/tests/helpers/hq.ts";
import { pdfPageTexts } from "@/tests/helpers/pdf_text.ts";
import { type Browser, launchBrowser, type Page, screenshot, serveApp } from "@/testkit/browser.ts";

/** A4 (210 mm) less the 12 mm margins each side, in CSS pixels (96 per inch). */
const A4_CONTENT_PX = Math.floor(((210 - 24) / 25.4) * 96);

/**
 * Names from the code that must never reach a reader: every stored enum value holds an underscore
 * (movement stages, chat channels, announcement states), and a movement's type is "direct" or "reverse".
 */
const INTERNAL_NAME = /_|\bdirect\b|\breverse\b|\bfeed only\b/;

/** The app on a fresh PGlite database, served, with Chromium and a dispatcher's signed-in context. */
async function printWorld(
  fn: (w: { a: TestApp; browser: Browser; open(path: string): Promise<Page> }) => Promise<void>,
) {
  await ensureAssets({ log: () => {} });
  const t = await freshDb("pglite");
  const a = await buildTestApp(t, { depotTimeZone: "Australia/Sydney" });
  const served = serveApp(a.app);
  const browser = await launchBrowser();
  try {
    const dispatcher = await makeUser(a.db, { role: "dispatcher" });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const open = async (path: string) => {
      const { token } = await makeSession(a.db, dispatcher.id, a.clock.now());
      await context.addCookies([{ name: sessionCookie(a.config).name, value: token, url: served.baseUrl }]);
      const page = await context.newPage();
      const res = await page.goto(served.baseUrl + path);
      assert.equal(res?.status(), 200);
      await allImagesLoaded(page);
      return page;
    };
    await fn({ a, browser, open });
  } finally {
    await browser.close();
    await served.close();
    await t.close();
    await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
  }
}

const allImagesLoaded = (page: Page) =>
  page.waitForFunction(() => [...document.images].every((img) => img.complete && img.naturalWidth > 0));

const claimPath = (n: string) => `/hq/claims/${encodeURIComponent(n)}`;

/** The PDF's pages: A4 each, their text. */
function a4Pages(pdf: Uint8Array): string[] {
  const text = new TextDecoder("latin1").decode(pdf);
  assert.ok(text.startsWith("%PDF-"));
  for (const [, w, h] of text.matchAll(/\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)) {
    // A4 is 595 × 842 pt; Chromium rounds its 8.27 × 11.7 in to 596 × 843.
    assert.ok(Math.abs(Number(w) - 595) < 2 && Math.abs(Number(h) - 842) < 2, `A4, not ${w} × ${h} pt`);
  }
  const pages = pdfPageTexts(pdf);
  assert.equal(pages.length, (text.match(/\/Type\s*\/Page\b/g) ?? []).length, "every page object read");
  return pages;
}

/** Every page carries the claim number, the rego, the stamp and its own "Page N of M". */
function assertPageMargins(pages: string[], claimNumber: string, stamp: string | RegExp) {
  for (const [i, text] of pages.entries()) {
    const where = `page ${i + 1}: ${text.slice(0, 300)}`;
    assert.ok(text.includes(`Claim ${claimNumber} · Vehicle EVI 001`), where);
    assert.ok(typeof stamp === "string" ? text.includes(stamp) : stamp.test(text), where);
    assert.ok(text.includes(`Page ${i + 1} of ${pages.length}`), where);
    assert.doesNotMatch(text, INTERNAL_NAME, where);
  }
}

Deno.test({
  name:
    "hq claim browser: printed, the page hides the header, cuts no table off, shows one thumbnail per leg",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    printWorld(async ({ a, open }) => {
      const s = await claimStory(a);
      const page = await open(claimPath(s.claim.claim_number));
      await screenshot(page, "hq-claim");

      await page.emulateMedia({ media: "print" });
      await page.setViewportSize({ width: A4_CONTENT_PX, height: 1100 });
      await screenshot(page, "hq-claim-print");
      const layout = await page.evaluate(() => ({
        headerShown: [...document.querySelectorAll("body > header, .print-hidden")].some((h) =>
          h.getBoundingClientRect().height > 0
        ),
        width: document.documentElement.clientWidth,
        tables: [...document.querySelectorAll(".claim-page table")].map((t) => ({
          label: t.getAttribute("aria-label"),
          right: t.getBoundingClientRect().right,
          overflow: t.parentElement!.scrollWidth - t.parentElement!.clientWidth,
        })),
        parts: [...document.querySelectorAll("section.claim-part")].map((p) => ({
          part: p.getAttribute("data-part"),
          breaks: `${getComputedStyle(p).breakBefore} ${getComputedStyle(p).breakInside}`,
          legs: [...p.querySelectorAll("tr[data-leg]")].map((
            r,
          ) => [
            r.querySelectorAll("img.claim-photo").length,
            r.querySelectorAll("td[data-receiver]").length,
          ]),
          photoMm: [...p.querySelectorAll("img.claim-photo")].map((i) =>
            Math.round(i.getBoundingClientRect().width / 96 * 25.4)
          ),
        })),
      }));
      assert.equal(layout.headerShown, false, "neither the dashboard's header nor the page's links print");
      assert.equal(layout.tables.length, 4, "parts, timeline, and the legs of each of the two parts");
      for (const table of layout.tables) {
        assert.ok(
          table.right <= layout.width + 0.5,
          `${table.label} ends at ${table.right} > ${layout.width}`,
        );
        assert.ok(table.overflow <= 0, `${table.label} scrolls by ${table.overflow} px`);
      }
      // Parts flow one after the other (no page each), each kept whole; each leg a photo and a receiver cell.
      assert.deepEqual(layout.parts.map((p) => [p.part, p.breaks, p.legs]), [
        ["PN-A", "auto avoid", [[1, 1]]],
        ["PN/B", "auto avoid", [[1, 1], [1, 1]]],
      ]);
      for (const p of layout.parts) {
        for (const mm of p.photoMm) assert.equal(mm, 22, "photos print as 22 mm thumbnails");
      }
    }),
});

Deno.test({
  name:
    "hq claim browser: a 3-part claim with 2 legs each prints on 3 A4 pages at most, each with the claim, rego, print time and page N of M",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () =>
    printWorld(async ({ a, open }) => {
      // Quotes, a backslash and markup in the claim number reach the margins exactly (print_margins.ts).
      const { claim, unmoved } = await twoLegClaim(a, {
        moved: 3,
        unmoved: 2,
        claimNumber: `CLM-"3"\\'x <b>`,
      });
      const page = await open(claimPath(claim.claim_number));

      // The Print button (an island: the CSP allows no inline handler) opens the browser's print.
      await page.waitForSelector("[data-island='ClaimPrint'][data-hydrated]");
      await page.evaluate(() => {
        globalThis.print = () => document.body.setAttribute("data-printed", "yes");
      });
      await page.getByRole("button", { name: "Print" }).click();
      await page.waitForSelector("body[data-printed='yes']", { timeout: 5000 });

      // Parts never moved: one list, not a block each.
      const notMoved = page.getByTestId("claim-not-moved");
      assert.equal(
        (await notMoved.innerText()).replace(/\s+/g, " ").trim(),
        `Not moved yet: ${unmoved.map((p) => `${p.part_no} (${p.description})`).join(", ")}`,
      );
      assert.equal(await page.locator("section.claim-part").count(), 3, "a block per moved part only");

      await page.emulateMedia({ media: "print" });
      const printed = await page.evaluate(() => document.body.innerText);
      assert.doesNotMatch(printed, INTERNAL_NAME, "no internal name on the printed page");
      assert.doesNotMatch(printed, /not been moved/);

      // The server stamps the page with its (fake) clock; as the browser prints, the island stamps the real
      // time of printing.
      const stampNow = () =>
        page.evaluate(() => document.documentElement.style.getPropertyValue("--print-stamp").slice(1, -1));
      const rendered = await stampNow();
      assert.match(rendered, /^Printed 22 Nov 2026 03:00 AE[DS]T$/);
      const pdf = await page.pdf({ format: "A4", printBackground: true });
      const printedAt = await stampNow();
      assert.notEqual(printedAt, rendered, "stamped again as the browser printed");
      await Deno.mkdir("test-output", { recursive: true });
      await Deno.writeFile("test-output/hq-claim-3-parts.pdf", pdf);
      const pages = a4Pages(pdf);
      assert.ok(pages.length <= 3, `${pages.length} pages:\n${pages.join("\n---\n")}`);
      assertPageMargins(pages, claim.claim_number, printedAt);
      assert.match(printedAt, /^Printed \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2} AE[DS]T$/);
      const all = pages.join(" ");
      for (const part of ["PN-1", "PN-2", "PN-3", "PN-4", "PN-5"]) assert.ok(all.includes(part), part);

      // The evidence pack's claim.html, opened from disk, prints with the same header and footer.
      const zip = await page.context().request.get(page.url() + "/evidence.zip");
      assert.equal(zip.status(), 200);
      const dir = await Deno.makeTempDir();
      try {
        for (const [name, bytes] of Object.entries(unzipSync(new Uint8Array(await zip.body())))) {
          await Deno.writeFile(join(dir, name), bytes);
        }
        const copy = await page.context().newPage();
        await copy.goto(`file://${join(dir, "claim.html")}`);
        await allImagesLoaded(copy);
        const copyPages = a4Pages(await copy.pdf({ format: "A4", printBackground: true }));
        assert.ok(copyPages.length <= 3, `the pack's copy: ${copyPages.length} pages`);
        assertPageMargins(
          copyPages,
          claim.claim_number,
          /Pack made \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2} AE[DS]T/,
        );
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
});
