/**
 * The tablet in a dead spot, in real Chromium on the demo data: the durable queue (IndexedDB) and the
 * service worker. "No network" is the server stopped (nothing answers, as in a yard without Wi-Fi) plus
 * the browser's offline mode (Playwright's offline emulation alone does not reach a service worker's own
 * fetches); "back online" is the server started again on the same port.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "@/testkit/browser.ts";
import { IDLE_TIMEOUT_MS } from "@/lib/sessions.ts";
import { ensureAssets } from "@/render/assets.ts";
import { launchBrowser, screenshot } from "@/testkit/browser.ts";
import {
  chooseJob,
  type Demo,
  hydrated,
  offline,
  offlineReady,
  onDemo,
  online,
  photograph,
  sign,
  signIn,
} from "./tablet_setup.ts";

const LANDSCAPE = { width: 1280, height: 800 };

async function newContext(browser: Browser) {
  const context = await browser.newContext({ viewport: LANDSCAPE, hasTouch: true });
  const errors: string[] = [];
  const watch = (page: Page) => {
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      const text = m.text();
      // Failed requests while the server is down are the point of these tests.
      if (m.type() === "error" && !/Failed to load resource|net::ERR_/.test(text)) errors.push(text);
    });
  };
  context.on("page", watch);
  return { context, errors, page: await context.newPage(), close: () => context.close() };
}

const queueCount = (page: Page) => page.getByTestId("queue-count");

async function movementsOf(d: Demo) {
  return await d.a.db.selectFrom("parts_movements").select("id").execute();
}

async function uploadsBy(d: Demo, email: string) {
  return await d.a.db.selectFrom("uploaded_images").innerJoin(
    "users",
    "users.id",
    "uploaded_images.uploaded_by",
  )
    .select(["uploaded_images.id", "uploaded_images.photo_id"]).where("users.email", "=", email).execute();
}

Deno.test({
  name: "tablet offline in Chromium: durable queue and service worker on the demo data",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await t.step("the app shell loads with the network off after one visit", async () => {
        await onDemo(() => newContext(browser), async (d, { context, errors, page }) => {
          const worker = await page.request.get(`${d.served.baseUrl}/static/tablet-sw.js`);
          assert.equal(worker.status(), 200);
          assert.equal(worker.headers()["service-worker-allowed"], "/tablet");
          assert.equal(worker.headers()["cache-control"], "no-cache");
          const manifest = await (await page.request.get(`${d.served.baseUrl}/static/tablet.webmanifest`))
            .json();
          assert.equal(manifest.start_url, "/tablet");
          assert.equal(manifest.scope, "/tablet");

          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await hydrated(page, "TabletIdle");
          await offlineReady(page);
          await offline(d, context);
          await page.goto(`${d.served.baseUrl}/tablet/deliver`);
          await hydrated(page, "TabletFlow");
          await page.getByLabel("Vehicle rego").waitFor();
          assert.ok(await page.locator("html[data-offline-copy]").count(), "served from the kept copy");
          await screenshot(page, "tablet_offline_shell");
          await page.goto(`${d.served.baseUrl}/tablet`);
          await page.getByRole("link", { name: /Collect from a repair shop/ }).waitFor();
          assert.equal(await page.getByTestId("signed-in-user").textContent(), "Dana Driver");
          assert.deepEqual(errors, []);
        });
      });

      await t.step(
        "photos taken offline, page reloaded, confirmed offline: sent in order when back, recorded once",
        async () => {
          await onDemo(() => newContext(browser), async (d, { context, errors, page }) => {
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await offlineReady(page);
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            await page.getByTestId("part-52119-0K040").waitFor();
            await offline(d, context);
            await photograph(page, "52119-0K040", undefined, false);
            await queueCount(page).getByText("1 photo").waitFor();

            await page.reload();
            await hydrated(page, "TabletFlow");
            const bumper = page.getByTestId("part-52119-0K040");
            await bumper.getByRole("img", { name: "Photo of 52119-0K040" }).waitFor();
            assert.ok(await bumper.getByRole("checkbox").isChecked(), "the selection survived the reload");
            await photograph(page, "81110-0K530", undefined, false);
            await queueCount(page).getByText("2 photos").waitFor();
            await page.getByRole("button", { name: /^Review/ }).click();
            await sign(page);
            await page.getByRole("button", { name: "Confirm delivery" }).click();
            await page.getByText("Movement waiting for the network.").waitFor();
            await queueCount(page).getByText("2 photos and 1 movement").waitFor();
            await screenshot(page, "tablet_offline_saved");
            assert.equal((await movementsOf(d)).length, 0);

            await online(d, context);
            await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
            assert.equal(
              await page.getByTestId("receipt-title").textContent(),
              "Delivered to the repair shop",
            );
            assert.equal((await movementsOf(d)).length, 1, "recorded once");
            const uploads = await uploadsBy(d, "dana@depot.example");
            assert.equal(uploads.length, 2, "each photo uploaded once");
            assert.ok(uploads.every((u) => u.photo_id !== null));
            await queueCount(page).waitFor({ state: "detached" });
            assert.deepEqual(errors, []);
          });
        },
      );

      await t.step(
        "confirmed offline, tab closed and opened again: the receipt after reconnecting",
        async () => {
          await onDemo(() => newContext(browser), async (d, { context, errors, page }) => {
            await signIn(page, d.served.baseUrl, "Sam Lorry", "1357");
            await offlineReady(page);
            await chooseJob(page, "Collect from a repair shop", "XYZ 789");
            await photograph(page, "87940-0K010");
            await offline(d, context);
            await page.getByRole("button", { name: /^Review/ }).click();
            await sign(page);
            await page.getByRole("button", { name: "Confirm pickup" }).click();
            await page.getByTestId("saved-on-tablet").getByText(/as soon as the tablet is online/).waitFor();
            await page.close();

            const reopened = await context.newPage();
            await reopened.goto(`${d.served.baseUrl}/tablet/collect`);
            await hydrated(reopened, "TabletFlow");
            await reopened.getByTestId("saved-on-tablet").waitFor();
            await queueCount(reopened).getByText("1 movement").waitFor();
            await online(d, context);
            await reopened.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
            assert.equal(
              await reopened.getByTestId("receipt-title").textContent(),
              "Collected from the repair shop",
            );
            assert.equal((await movementsOf(d)).length, 1);
            assert.deepEqual(errors, []);
          });
        },
      );

      await t.step(
        "idle sign-out keeps a queued photo: another driver sees none of it, its driver's next sign-in sends it",
        async () => {
          await onDemo(() => newContext(browser), async (d, { context, errors, page }) => {
            await page.clock.install();
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await offlineReady(page);
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            await page.getByTestId("part-52119-0K040").waitFor();
            await offline(d, context);
            await photograph(page, "52119-0K040", undefined, false);
            await queueCount(page).getByText("1 photo").waitFor();

            // Signing out by hand with work unsent asks first.
            await page.getByRole("button", { name: "Sign out" }).click();
            const ask = page.getByRole("alertdialog", { name: "Work not sent yet" });
            await ask.getByText(/1 photo is saved on this tablet but not sent/).waitFor();
            await screenshot(page, "tablet_offline_sign_out_asks");
            await ask.getByRole("button", { name: "Stay signed in" }).click();
            await ask.waitFor({ state: "detached" });

            // Ten quiet minutes in the dead spot: the page signs out (the server's session ends too).
            d.a.clock.advance(IDLE_TIMEOUT_MS + 1000);
            await page.clock.fastForward(IDLE_TIMEOUT_MS + 1000);
            await page.waitForURL(/\/tablet\/sign-in\?reason=idle/);
            await online(d, context);

            // Another driver on the same tablet: nothing of Dana's is shown or sent.
            await signIn(page, d.served.baseUrl, "Sam Lorry", "1357");
            await hydrated(page, "TabletIdle");
            await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
            await hydrated(page, "TabletFlow");
            await page.getByLabel("Vehicle rego").waitFor();
            assert.equal(await page.getByTestId("queue").count(), 0);
            assert.equal(await page.locator('[data-testid^="part-"]').count(), 0);
            assert.equal((await uploadsBy(d, "sam@depot.example")).length, 0);
            assert.equal((await uploadsBy(d, "dana@depot.example")).length, 0);
            await page.getByRole("button", { name: "Sign out" }).click(); // nothing unsent: no question
            await page.waitForURL(/\/tablet\/sign-in\?reason=signed_out/);

            // Dana again: her photo goes, under her name, and her delivery is where she left it.
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await hydrated(page, "TabletIdle");
            await page.waitForFunction(() => !document.querySelector('[data-testid="queue-count"]'));
            const uploads = await uploadsBy(d, "dana@depot.example");
            assert.equal(uploads.length, 1);
            assert.ok(uploads[0].photo_id !== null);
            await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
            await hydrated(page, "TabletFlow");
            await page.getByTestId("part-52119-0K040").getByTestId("photo-done").waitFor();
            assert.deepEqual(errors, []);
          });
        },
      );

      await t.step(
        "a part raced away while the submission sat in the queue: its message next to it",
        async () => {
          await onDemo(() => newContext(browser), async (d, { context, errors, page }) => {
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await offlineReady(page);
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            await photograph(page, "52119-0K040");
            await photograph(page, "81110-0K530");
            await offline(d, context);
            await page.getByRole("button", { name: /^Review/ }).click();
            await sign(page);
            await page.getByRole("button", { name: "Confirm delivery" }).click();
            await page.getByTestId("saved-on-tablet").getByText(/as soon as the tablet is online/).waitFor();
            // The dashboard takes the bumper back while the tablet is out of reach.
            await d.a.db.updateTable("parts_orders").set({ status: "Ordered" })
              .where("part_no", "=", "52119-0K040").execute();
            await online(d, context);

            const bumper = page.getByTestId("part-52119-0K040");
            await bumper.getByTestId("part-error").waitFor({ timeout: 30_000 });
            assert.equal(
              await bumper.getByTestId("part-error").textContent(),
              "52119-0K040 is no longer available for delivery.",
            );
            assert.match(
              (await page.getByTestId("form-error").textContent())!,
              /see the message next to 52119-0K040\. Untick that part to send the others/,
            );
            assert.ok(await bumper.getByRole("checkbox").isChecked());
            assert.equal(await page.getByTestId("photo-done").count(), 2, "nothing else lost");
            await screenshot(page, "tablet_offline_part_raced");
            await bumper.getByRole("checkbox").uncheck();
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByRole("button", { name: "Confirm delivery" }).click();
            await page.waitForURL(/\/tablet\/movements\/\d+/, { timeout: 30_000 });
            assert.equal(await page.locator('[data-testid^="receipt-"]').count(), 3); // title + headlamp + handover
            assert.equal((await movementsOf(d)).length, 1);
            assert.deepEqual(errors, []);
          });
        },
      );
    } finally {
      await browser.close();
    }
  },
});
