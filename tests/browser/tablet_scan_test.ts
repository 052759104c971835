/**
 * Scanning labels on the tablet in real Chromium, on the demo data (docs/tablet.md "Scanning"): a
 * keyboard-wedge scanner types a label's code and Enter into "Scan or type a code". On the rego step it
 * opens the claim's job with the part ticked; on the parts step it ticks the part (a supplier's part number
 * too); each refusal (another claim's part, a part not ready, an unknown code, a wrong check symbol) shows
 * the server's message and ticks nothing; offline it says to tick by hand.
 */
import assert from "node:assert/strict";
import { encode } from "uqr";
import type { Page } from "@/testkit/browser.ts";
import { ensureAssets } from "@/render/assets.ts";
import { CROCKFORD, labelCode } from "@/lib/labels/code.ts";
import { launchBrowser } from "@/testkit/browser.ts";
import { chooseJob, type Demo, hydrated, onDemo, openPage, signIn } from "./tablet_setup.ts";

/** The label code of the demo part with this part number. */
async function codeOf(d: Demo, partNo: string): Promise<string> {
  const part = await d.a.db.selectFrom("parts_orders").select("id").where("part_no", "=", partNo)
    .executeTakeFirstOrThrow();
  return labelCode(part.id);
}

/** What a hand scanner does: types the code into the focused scan field, then Enter. */
async function wedge(page: Page, code: string): Promise<void> {
  await page.getByLabel("Scan or type a code").focus();
  await page.keyboard.type(code);
  await page.keyboard.press("Enter");
}

const ticked = (page: Page, partNo: string) =>
  page.locator(`[data-testid="part-${partNo}"] input[type="checkbox"]:checked`).waitFor({ timeout: 15_000 });

const checkedCount = (page: Page) => page.locator('input[type="checkbox"]:checked').count();

/** Waits for the scan's refusal to say `message`; returns it. */
async function refusal(page: Page, message: RegExp): Promise<string> {
  const note = page.getByTestId("scan-error").filter({ hasText: message });
  await note.waitFor({ timeout: 15_000 }).catch(async (error) => {
    const shown = await page.getByTestId("scan-error").textContent({ timeout: 1000 }).catch(() => null);
    throw new Error(`no scan message ${message} (shown: ${shown})`, { cause: error });
  });
  return (await note.textContent())!;
}

/** Waits for the scan's success line to say `text`. */
async function success(page: Page, text: string): Promise<void> {
  await page.getByTestId("scan-ok").filter({ hasText: text }).waitFor({ timeout: 15_000 }).catch(
    async (error) => {
      const shown = await page.getByTestId("scan").innerText({ timeout: 1000 }).catch(() => null);
      throw new Error(`no scan success "${text}" (shown: ${shown})`, { cause: error });
    },
  );
}

const scanFocused = (page: Page) =>
  page.waitForFunction(() => document.activeElement?.id === "scan-code", undefined, { timeout: 5_000 });

Deno.test({
  name: "tablet in Chromium: keyboard-wedge scanning on the rego and parts steps",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await t.step("rego step: a label's code and Enter opens its claim with the part ticked", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await hydrated(page, "TabletIdle");
          await p.jsSince();
          await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
          await hydrated(page, "TabletFlow");
          const jobJs = await p.jsSince();

          await wedge(page, "PM-ZZZZ0");
          assert.match(await refusal(page, /label code/), /PM-ZZZZ0/);
          assert.equal(await page.locator("[data-part-id]").count(), 0, "still on the rego step");

          await wedge(page, (await codeOf(d, "81110-0K530")).toLowerCase());
          await ticked(page, "81110-0K530");
          assert.equal(await page.getByTestId("found-rego").textContent(), "ABC123");
          assert.equal(await checkedCount(page), 1, "only the scanned part is ticked");
          assert.equal(await page.getByTestId("scan-ok").textContent(), "✓ 81110-0K530 ticked");
          await scanFocused(page);

          // The scanner goes on reading on the parts step, the field still focused.
          await page.keyboard.type(await codeOf(d, "52119-0K040"));
          await page.keyboard.press("Enter");
          await ticked(page, "52119-0K040");
          assert.equal(await checkedCount(page), 2);
          await scanFocused(page);
          console.info(`tablet scan: job page JS ${jobJs} B gzipped (without the camera's decoder)`);
          assert.ok(jobJs > 0 && jobJs < 30_000, `job page JS is ${jobJs} bytes gzipped`);
        });
      });

      await t.step("parts step: ticks by code and by part number; every refusal ticks nothing", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await chooseJob(page, "Deliver to a repair shop", "ABC123");
          await page.getByTestId("part-52119-0K040").waitFor();

          // Another claim's part (CLM-1004's), a part not ready (ordered, not at HQ), a code of no part,
          // a wrong check symbol: the server's message, word for word, and no tick.
          await wedge(page, await codeOf(d, "90919-01253"));
          assert.match(
            await refusal(page, /CLM-1004/),
            /^90919-01253 is a part of claim CLM-1004 .*not of this claim\.$/,
          );
          await wedge(page, await codeOf(d, "53301-0K100"));
          assert.match(await refusal(page, /not ready/), /^53301-0K100 is not ready to deliver: /);
          const unknown = labelCode(999_999);
          await wedge(page, unknown);
          assert.equal(await refusal(page, /No part has/), `No part has the label code ${unknown}.`);
          const good = await codeOf(d, "52119-0K040");
          const last = CROCKFORD.indexOf(good.at(-1)!);
          const wrong = good.slice(0, -1) + CROCKFORD[(last + 1) % 32];
          await wedge(page, wrong);
          assert.match(
            await refusal(page, /does not match/),
            new RegExp(`^${wrong} is not a valid label code: its last character does not match the rest`),
          );
          assert.equal(await checkedCount(page), 0, "no refusal ticked a part");
          await scanFocused(page);

          // Two labels read back to back (the second before the first is answered), the second a supplier's
          // label: the plain part number, unique on this claim. Both count.
          await wedge(page, good);
          await wedge(page, " 81110-0k530 ");
          await ticked(page, "52119-0K040");
          await ticked(page, "81110-0K530");
          assert.equal(await checkedCount(page), 2);

          await page.context().setOffline(true);
          await wedge(page, good);
          await refusal(page, /needs the network/);
          assert.equal(
            await page.getByTestId("scan-error").textContent(),
            "Scanning needs the network; tick the part by hand.",
          );
          await page.context().setOffline(false);
        });
      });
    } finally {
      await browser.close();
    }
  },
});

Deno.test({
  name: "tablet in Chromium: the load check on the run sheet marks scanned parts loaded, warns off the sheet",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await onDemo(() => openPage(browser), async (d, p) => {
        const { page } = p;
        await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
        await page.locator('[data-testid="run-sheet"][data-ready]').waitFor({ timeout: 15_000 });
        await page.getByRole("button", { name: "Load check" }).click();
        const abc = page.getByTestId("loaded-ABC123");
        assert.equal(await abc.textContent(), "ABC123: 0 of 2 loaded");

        await wedge(page, await codeOf(d, "52119-0K040"));
        await success(page, "✓ 52119-0K040 loaded");
        assert.equal(await abc.textContent(), "ABC123: 1 of 2 loaded");
        // A part of a claim the sheet does not list (FLT 900 has no repair shop: Needs HQ) is a warning.
        await wedge(page, await codeOf(d, "90919-01253"));
        assert.match(
          await refusal(page, /not on today's run sheet/),
          /^90919-01253 \(claim CLM-1004, rego FLT 900\) is not on today's run sheet/,
        );
        // One not ready to deliver: the server's refusal.
        await wedge(page, await codeOf(d, "53301-0K100"));
        await refusal(page, /^53301-0K100 is not ready to deliver/);
        await wedge(page, "81110-0K530");
        await refusal(page, /Open the claim first/);
        await wedge(page, await codeOf(d, "81110-0K530"));
        await success(page, "✓ 81110-0K530 loaded");
        assert.equal(await abc.textContent(), "ABC123: 2 of 2 loaded ✓");

        // The marks are kept on this tablet.
        await page.reload();
        await page.locator('[data-testid="run-sheet"][data-ready]').waitFor({ timeout: 15_000 });
        await page.getByRole("button", { name: "Load check" }).click();
        assert.equal(await page.getByTestId("loaded-ABC123").textContent(), "ABC123: 2 of 2 loaded ✓");
        assert.deepEqual(p.errors, []);
      });
    } finally {
      await browser.close();
    }
  },
});

/**
 * A fake camera's video (YUV4MPEG2, 4:2:0) of a label's QR code: black modules of 10 px on white, in the
 * middle of a 640×480 frame, a few identical frames (Chromium loops the file).
 */
async function labelVideo(code: string): Promise<string> {
  const { size, data } = encode(code, { ecc: "Q", border: 4 });
  const [w, h, scale] = [640, 480, 10];
  const luma = new Uint8Array(w * h).fill(235);
  const left = (w - size * scale) / 2, top = (h - size * scale) / 2;
  for (let y = 0; y < size * scale; y++) {
    for (let x = 0; x < size * scale; x++) {
      if (data[Math.floor(y / scale)][Math.floor(x / scale)]) luma[(top + y) * w + left + x] = 16;
    }
  }
  const chroma = new Uint8Array((w / 2) * (h / 2) * 2).fill(128);
  const frame = [new TextEncoder().encode("FRAME\n"), luma, chroma];
  const parts = [new TextEncoder().encode(`YUV4MPEG2 W${w} H${h} F10:1 Ip A1:1 C420jpeg\n`)];
  for (let i = 0; i < 5; i++) parts.push(...frame);
  const path = await Deno.makeTempFile({ suffix: ".y4m" });
  await Deno.writeFile(path, new Uint8Array(await new Blob(parts).arrayBuffer()));
  return path;
}

Deno.test({
  name:
    "tablet in Chromium: the camera reads a label (the decoder and its WebAssembly from this server only)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await ensureAssets({ log: () => {} });
    // The fake camera is the browser's: one browser (and one demo) for this test alone.
    await onDemo(() => Promise.resolve({ close: () => Promise.resolve() }), async (d) => {
      const video = await labelVideo(await codeOf(d, "81110-0K530"));
      const browser = await launchBrowser({
        args: [
          "--use-fake-device-for-media-stream",
          "--use-fake-ui-for-media-stream",
          `--use-file-for-fake-video-capture=${video}`,
        ],
      });
      try {
        const p = await openPage(browser);
        const { page } = p;
        const requests: string[] = [];
        page.on("request", (r) => requests.push(r.url()));
        await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
        await page.context().grantPermissions(["camera"], { origin: d.served.baseUrl });
        await hydrated(page, "TabletIdle");
        await p.jsSince();
        await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
        await hydrated(page, "TabletFlow");
        const jobJs = await p.jsSince();
        assert.deepEqual(requests.filter((u) => u.endsWith(".wasm")), [], "no decoder before Scan");
        const native = await page.evaluate(() => "BarcodeDetector" in globalThis);

        // The first read is held at the server's door until the scripts Scan fetched are measured: after
        // it, the claim found fetches the handover's chunk, which is not the decoder's.
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        let scanned = () => {};
        const read = new Promise<void>((resolve) => (scanned = resolve));
        await page.route("**/tablet/api/scan", async (route) => {
          scanned();
          await held;
          await route.continue();
        });
        await page.getByRole("button", { name: "Scan", exact: true }).click();
        await page.getByTestId("camera").waitFor();
        await read;
        const decoderJs = await p.jsSince();
        release();
        // The label in front of the camera opens its claim with the part ticked, and the camera stays open.
        await ticked(page, "81110-0K530");
        assert.equal(await page.getByTestId("found-rego").textContent(), "ABC123");
        assert.equal(await checkedCount(page), 1);
        await page.getByTestId("camera").waitFor();

        const wasm = requests.filter((u) => u.endsWith(".wasm"));
        console.info(
          `tablet camera scan: native BarcodeDetector ${native}; job page JS ${jobJs} B gzipped, ` +
            `camera and decoder JS ${decoderJs} B gzipped, WebAssembly ${wasm.join(", ")}`,
        );
        if (!native) {
          assert.equal(wasm.length, 1, "the polyfill fetched its WebAssembly");
          assert.match(
            wasm[0],
            new RegExp(`^${d.served.baseUrl}/static/dist/zxing_reader-[0-9a-f]+\\.wasm$`),
          );
          // Deno's fetch undoes the gzip: the decoder's own size, and the type browsers compile streaming.
          const served = await fetch(wasm[0], { headers: { "accept-encoding": "gzip" } });
          assert.equal(served.headers.get("content-type"), "application/wasm");
          console.info(`tablet camera scan: WebAssembly ${(await served.arrayBuffer()).byteLength} B`);
        }
        const elsewhere = requests.filter((u) => new URL(u).origin !== d.served.baseUrl);
        assert.deepEqual(elsewhere, [], "every request went to this server");

        // The label stays in view for a second more of video on the parts step: read again and again, it
        // counts once (a read every 150 ms would otherwise send a dozen). At most one more for a camera
        // restarted by the step change slower than the 2 s window.
        await page.locator('[data-testid="camera"][data-state="reading"]').waitFor({ timeout: 15_000 });
        const at = await page.evaluate(() => document.querySelector("video")!.currentTime);
        await page.waitForFunction((t) => document.querySelector("video")!.currentTime > t + 1, at, {
          timeout: 15_000,
        });
        await page.getByRole("button", { name: "Stop" }).click();
        await page.getByTestId("camera").waitFor({ state: "detached" });
        const scans = requests.filter((u) => u.endsWith("/tablet/api/scan")).length;
        assert.ok(scans >= 1 && scans <= 2, `${scans} scan requests for one label in view`);
        assert.equal(await page.evaluate(() => document.querySelectorAll("video").length), 0);
        assert.deepEqual(p.errors, []);
        await p.close();
      } finally {
        await browser.close();
        await Deno.remove(video);
      }
    });
  },
});
