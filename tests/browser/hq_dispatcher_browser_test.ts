import assert from "node:assert/strict";
import { parseCsv } from "@/io/csv.ts";
import { hashToken } from "@/io/tokens.ts";
import { screenshot } from "@/testkit/browser.ts";
import { assertNoScript, DEMO, driverDelivers, hqWorld, signInAs } from "./hq_setup.ts";

Deno.test({
  name: "hq browser: a dispatcher's day on the dashboard, in Chromium",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const world = await hqWorld();
    const { a } = world;
    try {
      const page = await signInAs(world, DEMO.dispatcher);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));

      await t.step("parts: search and filter, then open a part", async () => {
        assert.equal(new URL(page.url()).pathname, "/hq/parts");
        await assertNoScript(page);
        await page.getByLabel("Rego").fill("abc 123");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForURL(/rego=abc\+123/);
        const rows = page.getByRole("table", { name: "Parts" }).locator("tbody tr");
        assert.equal(await rows.count(), 3);
        await page.getByLabel("Status").selectOption("Ordered");
        await page.getByRole("button", { name: "Search" }).click();
        await page.waitForURL(/status=Ordered/);
        assert.equal(await rows.count(), 1);
        await page.goto(world.url("/hq/parts"));
        await screenshot(page, "hq-parts");
      });

      await t.step(
        "status change: Ordered → Arrived, then a correction with a reason, both in the history",
        async () => {
          await page.goto(world.url("/hq/parts?rego=ABC123&status=Ordered"));
          await page.getByRole("link", { name: "53301-0K100" }).click();
          await page.getByRole("button", { name: "Mark arrived at HQ" }).click();
          await page.getByText("Status changed to Arrived.").waitFor();
          assert.equal((await page.getByTestId("part-status").textContent())?.trim(), "Arrived");
          const history = page.getByRole("table", { name: "Status history" }).locator("tbody tr");
          assert.match((await history.first().textContent())!, /Ordered.*Arrived.*Priya Dispatch.*Dashboard/);

          await page.getByLabel("Reason: Correct: not arrived yet").fill("Wrong box scanned");
          await page.getByRole("button", { name: "Correct: not arrived yet" }).click();
          await page.getByText("Status changed to Ordered.").waitFor();
          assert.match(
            (await history.first().textContent())!,
            /Arrived.*Ordered.*Priya Dispatch.*Dashboard.*Wrong box scanned/,
          );
          await page.getByRole("button", { name: "Mark arrived at HQ" }).click();
          await page.getByText("Status changed to Arrived.").waitFor();
          await screenshot(page, "hq-part-history");
        },
      );

      await t.step(
        "race: a driver delivers the part while the dispatcher looks; nothing is overwritten",
        async () => {
          await page.goto(world.url("/hq/parts?rego=ABC123"));
          await page.getByRole("link", { name: "52119-0K040" }).click();
          assert.equal((await page.getByTestId("part-status").textContent())?.trim(), "Arrived");
          const url = page.url();
          const partId = Number(url.split("/").pop());
          // Between page load and submit, the driver's submission lands.
          const delivered = await driverDelivers(a, "52119-0K040");
          assert.equal(delivered.result.status, "success", JSON.stringify(delivered));
          await page.getByRole("button", { name: "Flag for pick-up" }).click();
          const alert = page.getByRole("alert");
          await alert.waitFor();
          assert.equal(
            (await alert.textContent())?.trim(),
            "52119-0K040 changed to Delivered to Repair Shop directly while you were looking; nothing was changed.",
          );
          assert.equal(
            (await page.getByTestId("part-status").textContent())?.trim(),
            "Delivered to Repair Shop directly",
          );
          const row = await a.db.selectFrom("parts_orders").select("status").where("id", "=", partId)
            .executeTakeFirstOrThrow();
          assert.equal(row.status, "Delivered to Repair Shop directly");
          const dashboard = await a.db.selectFrom("part_status_history").select("id")
            .where("part_id", "=", partId).where("via", "=", "dashboard").execute();
          assert.equal(dashboard.length, 0, "no dashboard change recorded");
          await screenshot(page, "hq-part-raced");
        },
      );

      await t.step("movements: list, a movement with thumbnails that open full size", async () => {
        await page.getByRole("link", { name: "Movements", exact: true }).click();
        await page.waitForURL(/\/hq\/movements$/);
        await assertNoScript(page);
        assert.ok(await page.getByRole("table", { name: "Movements" }).locator("tbody tr").count() >= 3);
        await page.getByRole("link", { name: `#${world.directId}`, exact: true }).click();
        await page.waitForURL(new RegExp(`/hq/movements/${world.directId}$`));
        const thumb = page.getByRole("img", { name: "Pickup photo of 81110-0K530" });
        await thumb.waitFor();
        await page.waitForFunction(
          () => [...document.images].every((img) => img.complete && img.naturalWidth > 0),
          undefined,
          { timeout: 15_000 },
        );
        assert.ok(await page.getByRole("img", { name: "Delivery photo of 81110-0K530" }).count() === 1);
        await screenshot(page, "hq-movement");
        const [photo] = await Promise.all([
          page.waitForResponse((r) => /\/photos\/\d+$/.test(new URL(r.url()).pathname)),
          thumb.click(),
        ]);
        assert.equal(photo.status(), 200);
        assert.equal(photo.headers()["content-type"], "image/jpeg");
        await page.goBack();
      });

      await t.step("open return trips: oldest first, with their age", async () => {
        await page.getByRole("link", { name: "Open return trips" }).click();
        const row = page.locator(`tr[data-trip="${world.tripId}"]`);
        await row.waitFor();
        assert.match((await row.textContent())!, /^1 d 3 h/);
        assert.match((await row.textContent())!, /XYZ 789.*Dana Driver.*2 of 2/);
        await screenshot(page, "hq-trips");
        await row.getByRole("link", { name: `#${world.tripId}` }).click();
        assert.match((await page.getByTestId("movement-status").textContent())!, /Parts Picked Up/);
        assert.equal(await page.getByText("not yet delivered").count(), 2);
      });

      await t.step("announcements: a failed one shows its last error; retry queues it again", async () => {
        const failed = await a.db.selectFrom("announcements").select("id").where(
          "movement_id",
          "=",
          world.directId,
        )
          .orderBy("id").executeTakeFirstOrThrow();
        await a.db.updateTable("announcements").set({
          state: "failed",
          attempts: 40,
          last_error: "HTTP 503: chat down",
        })
          .where("id", "=", failed.id).execute();
        await page.getByRole("link", { name: "Announcements", exact: true }).click();
        const item = page.locator(`li[data-announcement="${failed.id}"]`);
        assert.match(
          (await item.getByTestId("last-error").textContent())!,
          /Last error: HTTP 503: chat down/,
        );
        assert.ok(await page.locator('li[data-state="feed_only"]').count() >= 1);
        await screenshot(page, "hq-announcements");
        await item.getByRole("button", { name: "Retry" }).click();
        await page.getByText("Queued for another attempt.").waitFor();
        const row = await a.db.selectFrom("announcements").select("state").where("id", "=", failed.id)
          .executeTakeFirstOrThrow();
        assert.equal(row.state, "pending");
      });

      await t.step(
        "exports: the parts CSV downloads and parses back, formula and quoting included",
        async () => {
          await a.db.updateTable("parts_orders").set({ description: '=1+2, "quoted"\nsecond line' })
            .where("part_no", "=", "53301-0K100").execute();
          await page.goto(world.url("/hq/parts?rego=ABC123"));
          const [download] = await Promise.all([
            page.waitForEvent("download"),
            page.getByRole("link", { name: "Export these parts (CSV)" }).click(),
          ]);
          assert.match(download.suggestedFilename(), /^parts-\d{4}-\d{2}-\d{2}\.csv$/);
          const bytes = await Deno.readFile((await download.path())!);
          assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
          const rows = parseCsv(new TextDecoder().decode(bytes));
          assert.equal(rows[0][1], "Part No.");
          assert.equal(rows.length, 4);
          const bonnet = rows.find((r) => r[1] === "53301-0K100")!;
          assert.equal(bonnet[2], `'=1+2, "quoted"\nsecond line`);
          assert.equal(bonnet[4], "Arrived");
          await page.getByRole("link", { name: "Exports" }).click();
          await screenshot(page, "hq-exports");
          const [movements] = await Promise.all([
            page.waitForEvent("download"),
            page.getByRole("button", { name: "Download movements CSV" }).click(),
          ]);
          const mrows = parseCsv(await Deno.readTextFile((await movements.path())!));
          assert.equal(mrows[0][0], "Movement ID");
          assert.equal(mrows.length, 1 + 3);
        },
      );

      await t.step("roles: the dispatcher is refused the admin pages", async () => {
        const res = await page.goto(world.url("/hq/admin/users"));
        assert.equal(res?.status(), 403);
        assert.match(
          await page.locator("body").textContent() ?? "",
          /for admin users\. You are signed in as a dispatcher/,
        );
        await page.goto(world.url("/hq/parts"));
        assert.equal(
          await page.getByRole("link", { name: "Users" }).count(),
          0,
          "no admin links in the menu",
        );
      });

      await t.step("sign out ends the session", async () => {
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.getByText("You are signed out.").waitFor();
        await page.goto(world.url("/hq/parts"));
        assert.ok(page.url().startsWith(world.url("/hq/sign-in")));
      });

      await t.step("roles: a driver is refused, at sign-in and with a tablet session", async () => {
        const context = await world.browser.newContext();
        const driverPage = await context.newPage();
        await driverPage.goto(world.url("/hq/sign-in"));
        await driverPage.getByLabel("E-mail").fill(DEMO.driver.email);
        // The driver's right PIN, typed as a password: the answer of any failure (no PIN is checked here).
        await driverPage.getByLabel("Password").fill(DEMO.driver.pin);
        await driverPage.getByRole("button", { name: "Sign in" }).click();
        await driverPage.getByText("Wrong e-mail or password.").waitFor();
        await screenshot(driverPage, "hq-sign-in-driver-refused");

        // A driver signed in on a tablet carries a session cookie; the dashboard still says no.
        const driver = await a.db.selectFrom("users").select("id").where("email", "=", DEMO.driver.email)
          .executeTakeFirstOrThrow();
        const token = crypto.randomUUID();
        await a.db.insertInto("sessions").values({
          token_hash: hashToken(token),
          user_id: driver.id,
          csrf_token: "t",
          created_at: a.clock.now(),
          last_seen_at: a.clock.now(),
        }).execute();
        await context.addCookies([{ name: "pm_session", value: token, url: world.url("/") }]);
        const res = await driverPage.goto(world.url("/hq/parts"));
        assert.equal(res?.status(), 403);
        assert.match(await driverPage.locator("body").textContent() ?? "", /You are signed in as a driver/);
        await context.close();
      });

      assert.deepEqual(errors, []);
    } finally {
      await world.close();
    }
  },
});
