/**
 * The tablet's photos on a poor uplink, in real Chromium on the demo data (docs/uplink.md): a photo being
 * saved on the tablet while the page redraws (an upload's progress, another tab's news) stays on its part,
 * so a Review waiting for it opens; photos go as PHOTO_TYPE where the browser encodes it, and the server
 * stores and thumbnails them; a browser whose canvas cannot encode it sends JPEG.
 */
import assert from "node:assert/strict";
import { ensureAssets } from "@/render/assets.ts";
import { launchBrowser } from "@/testkit/browser.ts";
import { PHOTO_TYPE } from "@/islands/_tablet_net.ts";
import {
  chooseJob,
  confirmAndWaitForReceipt,
  onDemo,
  openPage,
  PHOTO,
  photograph,
  PNG,
  signIn,
  thumbnailsLoaded,
} from "./tablet_setup.ts";

type Hooks = { releasePhoto: () => void; releaseRoom?: () => void; armRoom?: boolean };

Deno.test({
  name: "tablet in Chromium: photos on a poor uplink",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await t.step(
        "a photo still being saved keeps its part through a redraw; the Review waiting for it opens",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            // Holds the photo's shrinking until the test lets it go, then holds its room check (the step
            // between the shrink and the record on the device) while another tab's news makes the page
            // read its queue again and redraw, as an upload's progress does on a slow uplink.
            await page.addInitScript(() => {
              const w = globalThis as unknown as Hooks;
              const decode = globalThis.createImageBitmap.bind(globalThis);
              const held = new Promise<void>((resolve) => w.releasePhoto = resolve);
              globalThis.createImageBitmap = ((...args: Parameters<typeof decode>) =>
                held.then(() => decode(...args))) as typeof decode;
              const estimate = navigator.storage.estimate.bind(navigator.storage);
              let calls = 0;
              navigator.storage.estimate = async () => {
                if (!w.armRoom) return await estimate();
                if (++calls > 1) return { quota: 10e6, usage: 0 }; // the redraw's: room is low, shown
                const props = document.querySelector<HTMLElement>('[data-island="TabletIdle"]')!.dataset;
                const userId = JSON.parse(props.islandProps!).userId;
                new BroadcastChannel("pm-tablet-queue").postMessage({ userId, event: { type: "changed" } });
                await new Promise<void>((resolve) => w.releaseRoom = resolve);
                return { quota: 1e12, usage: 0 };
              };
            });
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            const card = page.getByTestId("part-52119-0K040");
            await photograph(page, "52119-0K040", PHOTO, false);
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByTestId("wait-notice").waitFor();
            await page.evaluate(() => {
              const w = globalThis as unknown as Hooks;
              w.armRoom = true;
              w.releasePhoto();
            });
            await page.getByTestId("storage-low").waitFor();
            assert.equal(await card.getByText("Photograph this part.").count(), 0, "the photo stays shown");
            assert.equal(await card.getByText("Preparing the photo…").count(), 1);
            assert.equal(await page.getByTestId("part-error").count(), 0);
            await page.evaluate(() => (globalThis as unknown as Hooks).releaseRoom!());
            await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
            assert.equal(await page.getByTestId("part-error").count(), 0);
            assert.deepEqual(p.errors, []);
          });
        },
      );

      await t.step(`photos go as ${PHOTO_TYPE}; the receipt's thumbnails show them`, async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await chooseJob(page, "Deliver to a repair shop", "ABC123");
          await photograph(page, "52119-0K040");
          await photograph(page, "81110-0K530", PNG);
          await confirmAndWaitForReceipt(page, "Confirm delivery");
          assert.equal(await thumbnailsLoaded(page), 3, "both parts' photos and the signature");
          const types = await d.a.db.selectFrom("photos").select("content_type").orderBy("content_type")
            .execute();
          assert.deepEqual(
            types.map((x) => x.content_type).sort(),
            [PHOTO_TYPE, PHOTO_TYPE, "image/png"].sort(),
          );
          assert.deepEqual(p.errors, []);
        });
      });

      await t.step("a canvas that cannot encode it (it makes a PNG instead) sends JPEG", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          // As Safari before 17 does: toBlob answers an unknown type with a PNG.
          await page.addInitScript(() => {
            const toBlob = HTMLCanvasElement.prototype.toBlob;
            HTMLCanvasElement.prototype.toBlob = function (callback, type, quality) {
              const known = type === "image/jpeg" || type === "image/png";
              toBlob.call(this, callback, known ? type : "image/png", quality);
            };
          });
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await chooseJob(page, "Deliver to a repair shop", "ABC123");
          await photograph(page, "52119-0K040");
          await confirmAndWaitForReceipt(page, "Confirm delivery");
          assert.equal(await thumbnailsLoaded(page), 2, "the part's photo and the signature");
          const types = await d.a.db.selectFrom("photos").select("content_type").orderBy("content_type")
            .execute();
          assert.deepEqual(types.map((x) => x.content_type), ["image/jpeg", "image/png"]);
          assert.deepEqual(p.errors, []);
        });
      });
    } finally {
      await browser.close();
    }
  },
});
