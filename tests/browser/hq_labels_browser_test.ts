/**
 * Label sheets in Chromium (docs/labels.md): parts ticked on the parts list print as labels; each label's QR
 * code, rendered as printed (print media, the label's real size in millimetres), decodes to the code the
 * label shows in text; the 62 mm sheet prints to a PDF of one 62 × 29 mm page per label, the A4 sheet to A4
 * pages of 24; the Print button opens the print dialog; a live refresh of the parts list keeps the ticks.
 */
import assert from "node:assert/strict";
import { notifyChange } from "@/db/queries/changes.ts";
import { labelCode } from "@/lib/labels/code.ts";
import { ensureAssets } from "@/render/assets.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import { buildTestApp } from "@/testkit/app.ts";
import { launchBrowser, type Page, screenshot, serveApp } from "@/testkit/browser.ts";
import { freshDb } from "@/testkit/db.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { makeSession } from "@/tests/helpers/hq.ts";
import { decodeQr } from "@/tests/helpers/qr_decode.ts";

/** 1 mm in PDF points. */
const MM = 72 / 25.4;

/** A PDF's pages and the size of each, in points (Chromium writes one MediaBox per page). */
function pdfPages(pdf: Uint8Array): { count: number; sizes: [number, number][] } {
  const text = new TextDecoder("latin1").decode(pdf);
  assert.ok(text.startsWith("%PDF-"));
  const count = (text.match(/\/Type\s*\/Page\b/g) ?? []).length;
  const sizes = [...text.matchAll(/\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)]
    .map((m): [number, number] => [Number(m[1]), Number(m[2])]);
  return { count, sizes };
}

/** Each label's code in text and what its QR code, screenshot as printed, decodes to. */
async function readLabels(page: Page): Promise<{ shown: string; decoded: string[] }[]> {
  const labels = page.locator("article.label");
  const read = [];
  for (let i = 0; i < await labels.count(); i++) {
    const label = labels.nth(i);
    const png = await label.locator("svg.label-qr").screenshot();
    read.push({ shown: await label.getByTestId("label-code").innerText(), decoded: await decodeQr(png) });
  }
  return read;
}

Deno.test({
  name:
    "hq labels browser: ticked parts print as labels whose QR codes decode to their codes; one PDF page a 62 mm label",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await ensureAssets({ log: () => {} });
    const t = await freshDb("pglite");
    const a = await buildTestApp(t);
    const served = serveApp(a.app);
    const browser = await launchBrowser();
    try {
      const { parts } = await makeClaim(a.db, {
        registration: "QR 0042",
        claimNumber: "CLM-QR-1",
        parts: Array.from({ length: 25 }, (_, i) => ({
          status: "Arrived" as const,
          part_no: `52119-0K${String(i).padStart(3, "0")}`,
          description: i === 0
            ? "Bumper cover, front, with a description far too long for one label line"
            : "Clip",
        })),
      });
      const dispatcher = await makeUser(a.db, { role: "dispatcher" });
      const { token } = await makeSession(a.db, dispatcher.id, a.clock.now());
      // Twice the pixels of a plain screen: a phone camera or a 300 dpi print sees more than that.
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        deviceScaleFactor: 2,
      });
      await context.addCookies([{ name: sessionCookie(a.config).name, value: token, url: served.baseUrl }]);
      const page = await context.newPage();

      // The parts list: tick three parts, pick the 62 mm size, print their labels.
      assert.equal(
        (await page.goto(`${served.baseUrl}/hq/parts?claim=CLM-QR-1&sort=part_no&dir=asc`))?.status(),
        200,
      );
      await page.locator('body[data-live-state="listening"]').waitFor({ timeout: 10_000 });
      const ticks = parts.slice(0, 3).map((p) =>
        page.getByRole("checkbox", { name: `Label for part ${p.part_no}` })
      );
      for (const tick of ticks) await tick.check();
      // A live refresh of the list (a part changed meanwhile) keeps the ticks.
      await a.db.updateTable("parts_orders").set({ description: "Clip, changed" }).where(
        "id",
        "=",
        parts[1].id,
      )
        .execute();
      await notifyChange(a.db, "parts");
      await page.getByText("Clip, changed").waitFor({ timeout: 10_000 });
      for (const tick of ticks) assert.equal(await tick.isChecked(), true, "still ticked after the refresh");
      await page.getByLabel("Label size").selectOption("62mm");
      await page.getByRole("button", { name: "Print labels" }).click();
      await page.waitForURL((u) => u.pathname === "/hq/labels");
      await page.emulateMedia({ media: "print" });
      await screenshot(page, "hq-labels-62mm");
      const small = await readLabels(page);
      assert.deepEqual(small.map((l) => l.shown), parts.slice(0, 3).map((p) => labelCode(p.id)));
      for (const label of small) {
        assert.deepEqual(label.decoded, [label.shown], "the QR code reads as the code shown");
      }

      const pdf = pdfPages(await page.pdf({ preferCSSPageSize: true, printBackground: true }));
      assert.equal(pdf.count, 3, "one page a label");
      for (const [w, h] of pdf.sizes) {
        assert.ok(
          Math.abs(w - 62 * MM) < 1.5 && Math.abs(h - 29 * MM) < 1.5,
          `62 × 29 mm, not ${w} × ${h} pt`,
        );
      }
      await Deno.mkdir("test-output", { recursive: true });
      await Deno.writeFile("test-output/hq-labels-62mm.pdf", await page.pdf({ preferCSSPageSize: true }));

      // The claim's A4 sheet: 25 labels on two A4 pages; the first label's QR code reads.
      await page.emulateMedia({ media: "screen" });
      assert.equal((await page.goto(`${served.baseUrl}/hq/claims/CLM-QR-1`))?.status(), 200);
      await page.getByRole("link", { name: "Labels", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/hq/claims/CLM-QR-1/labels");
      await page.emulateMedia({ media: "print" });
      await screenshot(page, "hq-labels-a4");
      const first = page.locator("article.label").first();
      assert.deepEqual(await decodeQr(await first.locator("svg.label-qr").screenshot()), [
        labelCode(parts[0].id),
      ]);
      const a4 = pdfPages(await page.pdf({ preferCSSPageSize: true, printBackground: true }));
      assert.equal(a4.count, 2, "24 labels a page");
      for (const [w, h] of a4.sizes) {
        assert.ok(Math.abs(w - 595) < 2 && Math.abs(h - 842) < 2, `A4, not ${w} × ${h}`);
      }

      // The Print button opens the browser's print dialog (stubbed: headless Chromium has none).
      await page.emulateMedia({ media: "screen" });
      await page.locator('[data-island="PrintButton"][data-hydrated]').waitFor({ timeout: 10_000 });
      await page.evaluate(() => {
        globalThis.print = () => document.body.setAttribute("data-printed", "yes");
      });
      await page.getByRole("button", { name: "Print", exact: true }).click();
      await page.locator("body[data-printed=yes]").waitFor({ timeout: 5_000 });
    } finally {
      await browser.close();
      await served.close();
      await t.close();
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  },
});
