/**
 * The proof of handover on the tablet, in real Chromium on the demo data (docs/handover.md, docs/tablet.md
 * "Handover"): the receiver's name and signature drawn with a finger (touch events) and with the mouse, the
 * confirm button held until the policy is met, a signature that survives the tablet turning, a lost answer
 * resent identically, a movement confirmed in a dead spot and sent with its signature when the network is
 * back, and "Nobody to sign" with a reason and a photo under an optional policy.
 */
import assert from "node:assert/strict";
import type { Page } from "@/testkit/browser.ts";
import { ensureAssets } from "@/render/assets.ts";
import { launchBrowser } from "@/testkit/browser.ts";
import { setHandoverPolicies } from "@/lib/handover/policy.ts";
import type { MovementStage } from "@/db/schema.ts";
import {
  chooseJob,
  type Demo,
  drawSignature,
  hydrated,
  LANDSCAPE,
  offline,
  offlineReady,
  onDemo,
  online,
  openPage,
  PHOTO,
  photograph,
  shoot,
  sign,
  signaturePad,
  signIn,
} from "./tablet_setup.ts";

const PORTRAIT = { width: 800, height: 1280 };

/** Pixels of the signature pad with ink on them (the canvas's own bitmap). */
const inkedPixels = (page: Page) =>
  page.getByLabel("Signature", { exact: true }).evaluate((c: HTMLCanvasElement) => {
    const data = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 128) n++;
    return n;
  });

async function handoversOf(d: Demo) {
  return await d.a.db.selectFrom("handovers").selectAll().orderBy("movement_id").execute();
}

async function contentType(d: Demo, photoId: number | null) {
  assert.ok(photoId !== null);
  const photo = await d.a.db.selectFrom("photos").select("content_type").where("id", "=", photoId)
    .executeTakeFirstOrThrow();
  return photo.content_type;
}

async function setPolicy(d: Demo, leg: MovementStage, policy: "required" | "optional" | "off") {
  const admin = await d.a.db.selectFrom("users").select("id").where("email", "=", "admin@depot.example")
    .executeTakeFirstOrThrow();
  await setHandoverPolicies(d.a, admin, { [leg]: policy });
}

/** The offline pages' failed loads are the point of a dead spot; anything else is a fault. */
const realErrors = (errors: string[]) => errors.filter((e) => !/net::ERR_/.test(e));

Deno.test({
  name: "handover on the tablet in Chromium: sign, confirm online and offline, nobody to sign",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await t.step(
        "deliver, signed with a finger: confirm held until name and signature; kept when turned; a lost answer resent",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await hydrated(page, "TabletRunSheet");
            await p.jsSince();
            await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
            await hydrated(page, "TabletFlow");
            const pageJs = await p.jsSince();
            await page.getByLabel("Vehicle rego").fill("ABC123");
            await page.getByRole("button", { name: "Find parts" }).click();
            await photograph(page, "52119-0K040");
            await photograph(page, "81110-0K530");
            await page.getByRole("button", { name: /^Review/ }).click();
            await signaturePad(page);
            // The handover's own chunk (with the pad), loaded once a claim asking for a handover is found.
            const handoverJs = await p.jsSince();
            console.info(
              `handover: JS gzipped: job page ${pageJs} B, then the handover step ${handoverJs} B`,
            );
            assert.ok(pageJs > 0 && pageJs < 30_000, `job page JS is ${pageJs} bytes gzipped`);
            assert.ok(handoverJs > 0, "the handover step is a chunk of its own");

            const confirm = page.getByRole("button", { name: "Confirm delivery" });
            assert.ok(await confirm.isDisabled(), "nothing yet");
            assert.equal(await page.getByTestId("confirm-needs").textContent(), "Type the receiver's name.");
            await page.getByLabel("Receiver's name").fill("Pat Receiver");
            assert.ok(await confirm.isDisabled(), "a name, no signature");
            await drawSignature(page, "touch");
            await confirm.and(page.locator(":enabled")).waitFor();
            await page.getByRole("button", { name: "Clear", exact: true }).click();
            assert.ok(await confirm.isDisabled(), "cleared");
            assert.equal(await inkedPixels(page), 0);
            await drawSignature(page, "touch");
            await confirm.and(page.locator(":enabled")).waitFor();
            const ink = await inkedPixels(page);
            assert.ok(ink > 100, `ink: ${ink} pixels`);

            // Turned to portrait on a sharper screen (pixel ratio 2): the canvas follows both, the strokes
            // drawn again (shrunk to fit where they would fall outside).
            const cdp = await page.context().newCDPSession(page);
            await cdp.send("Emulation.setDeviceMetricsOverride", {
              ...PORTRAIT,
              deviceScaleFactor: 2,
              mobile: false,
            });
            await page.waitForFunction(
              () => {
                const c = document.querySelector<HTMLCanvasElement>('canvas[aria-label="Signature"]')!;
                return devicePixelRatio === 2 && c.width === c.offsetWidth * 2 && c.offsetWidth < 800;
              },
              undefined,
              { timeout: 15_000 },
            );
            assert.ok(await inkedPixels(page) > 100, "the signature is still there");
            assert.equal(await page.getByTestId("pad-cleared").count(), 0);
            assert.ok(await confirm.isEnabled());
            await cdp.send("Emulation.clearDeviceMetricsOverride");
            await cdp.detach();
            await page.setViewportSize(LANDSCAPE);
            await shoot(page, "30_handover_signed");

            // The first answer is lost on the way back: the queue sends the same submission again.
            const bodies: unknown[] = [];
            let calls = 0;
            await page.route("**/tablet/api/movements", async (route) => {
              bodies.push(route.request().postDataJSON());
              if (++calls === 1) {
                await route.fetch();
                return await route.abort("timedout");
              }
              await route.continue();
            });
            await confirm.click();
            await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
            assert.equal(bodies.length, 2);
            assert.deepEqual(bodies[1], bodies[0], "the resend is the same submission");
            const sent = (bodies[0] as { handover: { receiver_name: string; signature_image_id: number } })
              .handover;
            assert.equal(sent.receiver_name, "Pat Receiver");
            assert.equal(typeof sent.signature_image_id, "number");

            const receipt = page.getByTestId("receipt-handover");
            await receipt.getByText(/Signed by Pat Receiver/).waitFor();
            const drawn = await receipt.getByRole("img", { name: "Signature of Pat Receiver" })
              .evaluate((img: HTMLImageElement) =>
                img.decode().then(() => img.naturalWidth > 0, () => false)
              );
            assert.ok(drawn, "the receipt shows the signature");
            await shoot(page, "31_receipt_signed");
            const [handover, ...more] = await handoversOf(d);
            assert.equal(more.length, 0, "recorded once");
            assert.equal(handover.leg, "direct_dropoff");
            assert.equal(handover.receiver_name, "Pat Receiver");
            assert.equal(await contentType(d, handover.signature_photo_id), "image/png");
            assert.equal(handover.unsigned_reason, null);
            assert.deepEqual(p.errors, []);
          });
        },
      );

      await t.step(
        "collect, signed with the mouse in a dead spot: queued with its signature, sent when the network is back",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            const context = page.context();
            await signIn(page, d.served.baseUrl, "Sam Lorry", "1357");
            await offlineReady(page);
            await chooseJob(page, "Collect from a repair shop", "XYZ 789");
            await photograph(page, "87940-0K010");
            await offline(d, context);
            await page.getByRole("button", { name: /^Review/ }).click();
            await sign(page, "Lee at Southside", "mouse");
            await page.getByRole("button", { name: "Confirm pickup" }).click();
            await page.getByText("Movement waiting for the network.").waitFor();
            await page.getByTestId("review-handover").getByText("Lee at Southside").waitFor();
            // The signature waits on the device with its movement, as a PNG.
            const kept = await page.evaluate(async () => {
              const db = await new Promise<IDBDatabase>((resolve, reject) => {
                const open = indexedDB.open("pm-tablet-queue");
                open.onsuccess = () => resolve(open.result);
                open.onerror = () => reject(open.error);
              });
              const photos = await new Promise<{ kind?: string; blob?: Blob }[]>((resolve) => {
                const get = db.transaction("photos").objectStore("photos").getAll();
                get.onsuccess = () => resolve(get.result);
              });
              db.close();
              return photos.filter((x) => x.kind === "signature").map((x) => x.blob?.type);
            });
            assert.deepEqual(kept, ["image/png"]);
            // A reload in the dead spot changes nothing: the movement is rebuilt from what the tablet kept.
            await page.reload();
            await page.getByTestId("saved-on-tablet").waitFor({ timeout: 15_000 });
            assert.deepEqual(await handoversOf(d), []);

            await online(d, context);
            await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
            await page.getByTestId("receipt-handover").getByText(/Signed by Lee at Southside/).waitFor();
            const [handover, ...more] = await handoversOf(d);
            assert.equal(more.length, 0);
            assert.equal(handover.leg, "reverse_pickup");
            assert.equal(handover.receiver_name, "Lee at Southside");
            assert.equal(await contentType(d, handover.signature_photo_id), "image/png");
            assert.deepEqual(realErrors(p.errors), []);
          });
        },
      );

      await t.step(
        "optional policy: Nobody to sign with a reason and a photo of where the parts were left",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await setPolicy(d, "direct_dropoff", "optional");
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            await photograph(page, "52119-0K040");
            await page.getByRole("button", { name: /^Review/ }).click();
            await signaturePad(page);
            const confirm = page.getByRole("button", { name: "Confirm delivery" });
            assert.ok(await confirm.isDisabled());

            await page.getByRole("checkbox", { name: "Nobody to sign" }).check();
            assert.equal(await page.getByLabel("Receiver's name").count(), 0, "no name asked");
            assert.ok(await confirm.isDisabled(), "no reason, no photo");
            const reasons = page.getByRole("group", { name: "Why nobody signs" }).getByRole("radio");
            assert.equal(await reasons.count(), 3);
            await page.getByRole("radio", { name: "Shop closed" }).check();
            assert.ok(await confirm.isDisabled(), "a reason, no photo");
            assert.equal(
              await page.getByTestId("confirm-needs").textContent(),
              "Take a photo of where the parts were left.",
            );
            await page.getByLabel("Take photo of where the parts were left").setInputFiles(PHOTO);
            await page.getByTestId("left-photo").getByTestId("photo-done").waitFor({ timeout: 15_000 });
            await confirm.and(page.locator(":enabled")).waitFor();
            await shoot(page, "32_handover_nobody_to_sign");
            await confirm.click();
            await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
            await page.getByTestId("receipt-handover").getByText(/Nobody to sign: Shop closed/).waitFor();
            const [handover] = await handoversOf(d);
            assert.equal(handover.unsigned_reason, "shop_closed");
            assert.equal(handover.receiver_name, null);
            assert.equal(handover.signature_photo_id, null);
            assert.equal(await contentType(d, handover.left_photo_id), "image/webp"); // docs/uplink.md
            assert.deepEqual(p.errors, []);
          });
        },
      );

      await t.step("policy off: no handover step, confirmed at once", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await setPolicy(d, "reverse_pickup", "off");
          await signIn(page, d.served.baseUrl, "Sam Lorry", "1357");
          await chooseJob(page, "Collect from a repair shop", "XYZ 789");
          await photograph(page, "87940-0K010");
          await page.getByRole("button", { name: /^Review/ }).click();
          await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
          assert.equal(await page.getByTestId("handover").count(), 0);
          await page.getByRole("button", { name: "Confirm pickup" }).click();
          await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
          assert.deepEqual(await handoversOf(d), []);
          assert.deepEqual(p.errors, []);
        });
      });
    } finally {
      await browser.close();
    }
  },
});
