/**
 * The depot tablet in real Chromium, end to end on the demo data: sign-in with the PIN pad, a direct
 * delivery, a reverse pickup with a failed upload and a lost answer retried, the return to HQ in two
 * drops, a part raced away before the confirmation, the idle sign-out and a tablet HQ revoked. Every screen is saved at
 * 1280×800 and 800×1280 in test-output/screenshots/tablet_*.png.
 */
import assert from "node:assert/strict";
import { ensureAssets } from "@/render/assets.ts";
import { IDLE_TIMEOUT_MS } from "@/lib/sessions.ts";
import { revokeDevice } from "@/lib/devices.ts";
import { TABLET_REMOVED } from "@/routes/web/session.ts";
import { launchBrowser } from "@/testkit/browser.ts";
import {
  chooseJob,
  confirmAndWaitForReceipt,
  hydrated,
  onDemo,
  openPage,
  PHOTO,
  photograph,
  PNG,
  shoot,
  sign,
  signIn,
  thumbnailsLoaded,
} from "./tablet_setup.ts";

Deno.test({
  name: "tablet in Chromium: every flow end to end on the demo data",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    await ensureAssets({ log: () => {} });
    const browser = await launchBrowser();
    try {
      await t.step("direct delivery, with a wrong PIN first; JS under 30 KB gzipped", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          // The front page offers both doors (docs/tablet.md "The front page"); the demo enrols this browser
          // once the tablet door is chosen.
          await page.goto(`${d.served.baseUrl}/`);
          await page.getByRole("link", { name: /HQ dashboard/ }).waitFor();
          await shoot(page, "00_front_page");
          await page.getByRole("link", { name: /Depot tablet/ }).click();
          await hydrated(page, "TabletSignIn");
          const signInJs = await p.jsSince();
          await page.getByRole("button", { name: "Dana Driver" }).click();
          await page.getByLabel("Your PIN").fill("1111");
          await page.getByRole("button", { name: "Sign in" }).click();
          await page.getByTestId("sign-in-error").waitFor();
          assert.equal(
            await page.getByTestId("sign-in-error").textContent(),
            "Wrong PIN. 4 tries left before a 5-minute lock.",
          );
          await shoot(page, "03_wrong_pin");
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821", (step) => shoot(page, step));
          await hydrated(page, "TabletIdle");
          await shoot(page, "04_jobs");
          await p.jsSince();

          await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
          await hydrated(page, "TabletFlow");
          const flowJs = await p.jsSince();
          await shoot(page, "05_search");
          await page.getByLabel("Vehicle rego").fill("456");
          await page.getByRole("button", { name: "Find parts" }).click();
          const error = page.getByTestId("search-error");
          await error.waitFor();
          assert.match(
            (await error.locator("p").first().textContent())!,
            /^Several vehicles match 456: .+\. Enter the full rego\.$/,
          );
          await shoot(page, "06_search_error");

          await page.getByLabel("Vehicle rego").fill("abc123");
          await page.getByRole("button", { name: "Find parts" }).click();
          await page.getByTestId("part-52119-0K040").waitFor();
          assert.equal(
            await page.getByLabel("Repair shop", { exact: true }).locator("option:checked").textContent(),
            "North Smash Repairs",
          );
          await photograph(page, "52119-0K040");
          await photograph(page, "81110-0K530", PNG);
          assert.match((await page.getByTestId("pending").textContent())!, /Photos uploaded: 2 of 2/);
          await shoot(page, "07_parts_photographed");
          await page.getByRole("button", { name: /^Review/ }).click();
          await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
          await sign(page);
          await shoot(page, "08_review");
          await page.getByRole("button", { name: "Confirm delivery" }).click();
          await page.waitForURL(/\/tablet\/movements\/\d+/);
          assert.equal(await page.getByTestId("receipt-title").textContent(), "Delivered to the repair shop");
          assert.equal(await thumbnailsLoaded(page), 3, "both parts' photos and the signature");
          await shoot(page, "09_receipt");

          const parts = await d.a.db.selectFrom("parts_orders").select(["part_no", "status"])
            .where("part_no", "in", ["52119-0K040", "81110-0K530"]).orderBy("part_no").execute();
          assert.deepEqual(parts.map((x) => x.status), Array(2).fill("Delivered to Repair Shop directly"));
          // The uploaded photos were scaled in the browser and sent as WebP (docs/uplink.md); the signature
          // is a PNG.
          const types = await d.a.db.selectFrom("photos").select("content_type").orderBy("content_type")
            .execute();
          assert.deepEqual(types.map((x) => x.content_type), ["image/png", "image/webp", "image/webp"]);

          await page.getByRole("button", { name: "Finish and sign out" }).click();
          await page.waitForURL(/\/tablet\/sign-in\?reason=signed_out/);
          await page.getByText("You are signed out. The next driver can sign in.").waitFor();
          assert.equal((await d.a.db.selectFrom("sessions").selectAll().execute()).length, 0);
          assert.deepEqual(p.errors, []);
          console.info(`tablet: JS gzipped: sign-in page ${signInJs} B, flow page ${flowJs} B`);
          assert.ok(flowJs > 0 && flowJs < 30_000, `flow page JS is ${flowJs} bytes gzipped`);
          assert.ok(signInJs > 0 && signInJs < 30_000, `sign-in page JS is ${signInJs} bytes gzipped`);
        });
      });

      await t.step(
        "reverse pickup: a failed upload and a lost answer are retried; then return to HQ in two drops",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await signIn(page, d.served.baseUrl, "Sam Lorry", "1357");
            // The first photo upload dies on the way (patchy Wi-Fi).
            let photoCalls = 0;
            await page.route("**/tablet/api/photos?**", async (route) => {
              if (++photoCalls === 1) return await route.abort("internetdisconnected");
              await route.continue();
            });
            // The first submission reaches the server but its answer is lost.
            let submitCalls = 0;
            await page.route("**/tablet/api/movements", async (route) => {
              if (++submitCalls === 1) {
                await route.fetch();
                return await route.abort("timedout");
              }
              await route.continue();
            });
            await chooseJob(page, "Collect from a repair shop", "XYZ 789");
            const mirror = page.getByTestId("part-87940-0K010");
            await mirror.waitFor();
            await mirror.getByRole("checkbox").check();
            await mirror.getByLabel("Take photo of 87940-0K010").setInputFiles(PHOTO);
            await mirror.getByText(/Not uploaded yet: no connection/).waitFor();
            assert.match((await page.getByTestId("pending").textContent())!, /1 waiting for the network/);
            await shoot(page, "10_upload_retrying");
            await mirror.getByTestId("photo-done").waitFor({ timeout: 15_000 });
            assert.equal(photoCalls, 2);
            // The Wi-Fi drops: the next photo waits, retrying with backoff, and goes as soon as it is back.
            await page.context().setOffline(true);
            const grille = page.getByTestId("part-75310-0K020");
            await grille.getByRole("checkbox").check();
            await grille.getByLabel("Take photo of 75310-0K020").setInputFiles(PHOTO);
            await grille.getByText(/Not uploaded yet: no connection/).waitFor();
            // Wait until the next automatic try is at least 6 s away (the backoff's fourth step), then bring
            // the network back: the upload must START before that try was due, so it came from the online
            // event. An ordering with a margin of 5 s or more, not a speed claim.
            const countdown = grille.getByText(/Trying again in ([6-9]|[1-9]\d) s/);
            await countdown.waitFor({ timeout: 30_000 });
            const due = Number(/in (\d+) s/.exec((await countdown.textContent())!)![1]);
            const resumed = page.waitForRequest("**/tablet/api/photos?**", { timeout: 30_000 });
            await page.context().setOffline(false);
            const back = Date.now();
            await resumed;
            const waited = Date.now() - back;
            assert.ok(
              waited < (due - 1) * 1000,
              `the upload started ${waited} ms after the network came back`,
            );
            await grille.getByTestId("photo-done").waitFor({ timeout: 30_000 });
            const movementId = await confirmAndWaitForReceipt(page, "Confirm pickup");
            assert.equal(submitCalls, 2, "the lost answer was retried");
            assert.equal(
              await page.getByTestId("receipt-title").textContent(),
              "Collected from the repair shop",
            );
            const trips = await d.a.db.selectFrom("parts_movements").selectAll().execute();
            assert.equal(trips.length, 1, "the retry wrote nothing new (D16)");
            assert.equal(trips[0].id, movementId);
            await page.unrouteAll();

            // Collecting again says the trip must be returned first, and links there.
            await page.getByRole("link", { name: "Another job" }).click();
            await chooseJob(page, "Collect from a repair shop", "xyz789");
            await page.getByTestId("search-error").getByRole("link", { name: "Return to HQ" }).click();
            await hydrated(page, "TabletFlow");
            await page.getByText(`Return trip #${movementId}`).waitFor();
            await shoot(page, "11_return_parts");
            await photograph(page, "87940-0K010");
            await confirmAndWaitForReceipt(page, "Confirm return to HQ");
            await page.getByText("Parts still on the truck for this trip: 1.").waitFor();
            await shoot(page, "12_return_partial_receipt");

            await page.getByRole("link", { name: "Return to HQ" }).click();
            await hydrated(page, "TabletFlow");
            await page.getByTestId("part-75310-0K020").waitFor();
            assert.equal(
              await page.locator("[data-part-id]").count(),
              1,
              "only the part still on the truck",
            );
            await photograph(page, "75310-0K020");
            // The trip was signed for at HQ at its first drop (docs/handover.md "Policy").
            const again = await confirmAndWaitForReceipt(page, "Confirm return to HQ", null);
            assert.equal(again, movementId);
            await page.getByText(/· Trip finished, all parts back at HQ$/).waitFor();
            assert.equal(await page.getByText(/Delivered/).count(), 0, "a return is never Delivered");
            assert.equal(
              await thumbnailsLoaded(page),
              6,
              "pickup and drop-off photos of both parts, the signatures at the shop and at HQ",
            );
            const statuses = await d.a.db.selectFrom("parts_orders").select("status")
              .where("part_no", "in", ["87940-0K010", "75310-0K020"]).execute();
            assert.deepEqual(statuses.map((x) => x.status), ["Returned to HQ", "Returned to HQ"]);
            assert.deepEqual(p.errors.filter((e) => !e.includes("net::")), []);
          });
        },
      );

      await t.step(
        "a part raced away before the confirmation: its message next to it, nothing lost",
        async () => {
          await onDemo(() => openPage(browser), async (d, p) => {
            const { page } = p;
            await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
            await chooseJob(page, "Deliver to a repair shop", "ABC123");
            await photograph(page, "52119-0K040");
            await photograph(page, "81110-0K530");
            await page.getByLabel("Repair shop", { exact: true }).selectOption({
              label: "Eastern Panel & Paint",
            });
            await page.getByRole("button", { name: /^Review/ }).click();
            await page.getByRole("heading", { name: "Check and confirm" }).waitFor();
            // The dashboard takes the bumper back between the search and the confirmation.
            await d.a.db.updateTable("parts_orders").set({ status: "Ordered" }).where(
              "part_no",
              "=",
              "52119-0K040",
            )
              .execute();
            await sign(page);
            await page.getByRole("button", { name: "Confirm delivery" }).click();
            const bumper = page.getByTestId("part-52119-0K040");
            await bumper.getByTestId("part-error").waitFor();
            assert.equal(
              await bumper.getByTestId("part-error").textContent(),
              "52119-0K040 is no longer available for delivery.",
            );
            // Everything entered is still there: both selections, both photos, the chosen shop.
            assert.ok(await bumper.getByRole("checkbox").isChecked());
            assert.equal(await page.getByTestId("photo-done").count(), 2);
            assert.equal(
              await page.getByLabel("Repair shop", { exact: true }).locator("option:checked").textContent(),
              "Eastern Panel & Paint",
            );
            await shoot(page, "13_part_raced");
            await bumper.getByRole("checkbox").uncheck();
            await confirmAndWaitForReceipt(page, "Confirm delivery");
            await page.getByText("Eastern Panel & Paint").waitFor();
            assert.equal(await page.locator('[data-testid^="receipt-"]').count(), 3); // title + headlamp + handover
            assert.deepEqual(p.errors, []);
          });
        },
      );

      await t.step("idle sign-out: a warning in the last minute, then signed out", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await page.clock.install();
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await page.getByRole("link", { name: /Deliver to a repair shop/ }).click();
          await hydrated(page, "TabletFlow");
          await hydrated(page, "TabletIdle");
          // Nine minutes pass with nothing sent to the server.
          d.a.clock.advance(9 * 60_000 + 5_000);
          await page.clock.fastForward(9 * 60_000 + 5_000);
          const warning = page.getByRole("alertdialog", { name: "Still there?" });
          await warning.waitFor();
          assert.match((await page.getByTestId("idle-countdown").textContent())!, /^0:5\d$/);
          await shoot(page, "14_idle_warning");
          // "Stay signed in" reaches the server, which restarts the countdown.
          await page.getByRole("button", { name: "Stay signed in" }).click();
          await warning.waitFor({ state: "hidden" });

          // Ten quiet minutes: the server ends the session and the page signs out.
          d.a.clock.advance(IDLE_TIMEOUT_MS);
          await page.clock.fastForward(IDLE_TIMEOUT_MS);
          await page.waitForURL(/\/tablet\/sign-in\?reason=idle/);
          await page.getByText("You were signed out after 10 minutes without activity.").waitFor();
          await shoot(page, "15_signed_out_idle");
          assert.equal((await d.a.db.selectFrom("sessions").selectAll().execute()).length, 0);

          // A page left open past the timeout finds out at its next server call.
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await page.getByRole("link", { name: /Collect from a repair shop/ }).click();
          await hydrated(page, "TabletFlow");
          d.a.clock.advance(IDLE_TIMEOUT_MS);
          await page.getByLabel("Vehicle rego").fill("XYZ 789");
          await page.getByRole("button", { name: "Find parts" }).click();
          await page.getByTestId("signed-out").waitFor();
          assert.match((await page.getByTestId("signed-out").textContent())!, /You were signed out/);
          assert.deepEqual(p.errors, []);
        });
      });

      await t.step("revoked by HQ: the tablet's next call says it was removed", async () => {
        await onDemo(() => openPage(browser), async (d, p) => {
          const { page } = p;
          await signIn(page, d.served.baseUrl, "Dana Driver", "4821");
          await page.getByRole("link", { name: /Collect from a repair shop/ }).click();
          await hydrated(page, "TabletFlow");
          await hydrated(page, "TabletIdle");
          // HQ revokes this tablet (the demo enrolled it) while a driver is signed in on it.
          const device = await d.a.db.selectFrom("devices").select("id").executeTakeFirstOrThrow();
          const admin = await d.a.db.selectFrom("users").select("id").where("role", "=", "admin")
            .executeTakeFirstOrThrow();
          await revokeDevice(d.a.db, device.id, admin.id);
          await page.getByLabel("Vehicle rego").fill("XYZ 789");
          await page.getByRole("button", { name: "Find parts" }).click();
          const told = page.getByTestId("signed-out");
          await told.waitFor();
          assert.equal(await told.textContent(), TABLET_REMOVED);
          await shoot(page, "16_removed_by_hq");
          // A page opened afterwards says so too, with no driver list.
          const res = await page.goto(`${d.served.baseUrl}/tablet`);
          assert.equal(res?.status(), 401);
          await page.getByText(TABLET_REMOVED).waitFor();
          assert.equal(await page.getByText("Dana Driver").count(), 0);
          assert.deepEqual(p.errors, []);
        });
      });
    } finally {
      await browser.close();
    }
  },
});
