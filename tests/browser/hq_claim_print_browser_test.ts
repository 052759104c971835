/**
 * The claim page printed in Chromium: print media on an A4-wide page shows one photo per leg of
 * every part, cuts no table off at the page's edge, hides the dashboard's header, and `page.pdf()` gives an
 * A4 document with a page per part. Photos come through the real upload path (tests/helpers/claim_story.ts).
 */
import assert from "node:assert/strict";
import { ensureAssets } from "@/render/assets.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import { buildTestApp } from "@/testkit/app.ts";
import { claimStory } from "@/tests/helpers/claim_story.ts";
import { freshDb } from "@/testkit/db.ts";
import { makeUser } from "@/testkit/factories.ts";
import { makeSession } from "@/tests/helpers/hq.ts";
import { launchBrowser, screenshot, serveApp } from "@/testkit/browser.ts";

/** A4 (210 mm) less the 12 mm margins each side, in CSS pixels (96 per inch). */
const A4_CONTENT_PX = Math.floor(((210 - 24) / 25.4) * 96);

Deno.test({
  name: "hq claim browser: the printable page prints to an A4 PDF, one photo per part leg, no table cut off",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await ensureAssets({ log: () => {} });
    const t = await freshDb("pglite");
    const a = await buildTestApp(t, { depotTimeZone: "Australia/Sydney" });
    const served = serveApp(a.app);
    const browser = await launchBrowser();
    try {
      const s = await claimStory(a);
      const dispatcher = await makeUser(a.db, { role: "dispatcher" });
      const { token } = await makeSession(a.db, dispatcher.id, a.clock.now());
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies([{ name: sessionCookie(a.config).name, value: token, url: served.baseUrl }]);
      const page = await context.newPage();
      const res = await page.goto(`${served.baseUrl}/hq/claims/${encodeURIComponent(s.claim.claim_number)}`);
      assert.equal(res?.status(), 200);
      await page.waitForFunction(() =>
        [...document.images].every((img) => img.complete && img.naturalWidth > 0)
      );
      await screenshot(page, "hq-claim");

      await page.emulateMedia({ media: "print" });
      await page.setViewportSize({ width: A4_CONTENT_PX, height: 1100 });
      await screenshot(page, "hq-claim-print");
      const layout = await page.evaluate(() => ({
        headerShown: [...document.querySelectorAll("body > header")].some((h) =>
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
          breakBefore: getComputedStyle(p).breakBefore,
          legs: [...p.querySelectorAll("tr[data-leg]")].map((r) =>
            r.querySelectorAll("img.claim-photo").length
          ),
          photoMm: [...p.querySelectorAll("img.claim-photo")].map((i) =>
            Math.round(i.getBoundingClientRect().width / 96 * 25.4)
          ),
        })),
      }));
      assert.equal(layout.headerShown, false, "the dashboard's header is not printed");
      assert.equal(layout.tables.length, 4, "parts, timeline, and the legs of each of the two parts");
      for (const table of layout.tables) {
        assert.ok(
          table.right <= layout.width + 0.5,
          `${table.label} ends at ${table.right} > ${layout.width}`,
        );
        assert.ok(table.overflow <= 0, `${table.label} scrolls by ${table.overflow} px`);
      }
      assert.deepEqual(layout.parts.map((p) => [p.part, p.breakBefore, p.legs]), [
        ["PN-A", "page", [1]],
        ["PN/B", "page", [1, 1]],
      ]);
      for (const p of layout.parts) {
        for (const mm of p.photoMm) assert.equal(mm, 50, "photos print 5 cm wide");
      }

      const pdf = await page.pdf({ format: "A4", printBackground: true });
      const text = new TextDecoder("latin1").decode(pdf);
      assert.ok(text.startsWith("%PDF-"));
      const pages = (text.match(/\/Type\s*\/Page\b/g) ?? []).length;
      assert.ok(pages >= 3, `a first page, then a page per part: ${pages} pages`);
      const mediaBox = /\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/.exec(text);
      assert.ok(mediaBox, "the PDF names its page size");
      // A4 is 595 × 842 pt; Chromium rounds its 8.27 × 11.7 in to 596 × 843.
      const [w, h] = [Number(mediaBox[1]), Number(mediaBox[2])];
      assert.ok(Math.abs(w - 595) < 2 && Math.abs(h - 842) < 2, `A4, not ${w} × ${h} pt`);
      await Deno.mkdir("test-output", { recursive: true });
      await Deno.writeFile("test-output/hq-claim.pdf", pdf);
    } finally {
      await browser.close();
      await served.close();
      await t.close();
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  },
});
