import assert from "node:assert/strict";
import { screenshot } from "@/testkit/browser.ts";
import { assertNoScript, DEMO, hqWorld, signInAs } from "./hq_setup.ts";

Deno.test({
  name: "hq browser: an admin manages users, repair shops, HQ locations and imports, in Chromium",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const world = await hqWorld();
    const { a } = world;
    const tmp = await Deno.makeTempDir({ prefix: "pm-hq-import-" });
    try {
      const page = await signInAs(world, DEMO.admin, "/hq/admin/users");
      assert.equal(new URL(page.url()).pathname, "/hq/admin/users");

      await t.step("users: add a dispatcher, who can then sign in", async () => {
        await assertNoScript(page);
        const form = page.getByRole("form", { name: "Add a user" });
        await form.getByLabel("E-mail").fill("Nina@Depot.example");
        await form.getByLabel("Name").fill("Nina Night-shift");
        await form.getByLabel("Role").selectOption("dispatcher");
        await form.getByLabel("Password").fill("nina-night-shift-55");
        await form.getByRole("button", { name: "Add user" }).click();
        await page.getByText("User added.").waitFor();
        const row = page.locator('tr[data-user="nina@depot.example"]');
        assert.match((await row.textContent())!, /Nina Night-shift.*dispatcher.*Active/);

        await form.getByLabel("E-mail").fill("nina@depot.example");
        await form.getByLabel("Name").fill("Again");
        await form.getByLabel("Role").selectOption("dispatcher");
        await form.getByLabel("Password").fill("nina-night-shift-55");
        await form.getByRole("button", { name: "Add user" }).click();
        await page.getByText("A user with the e-mail nina@depot.example already exists.").waitFor();

        const nina = await signInAs(world, { email: "nina@depot.example", password: "nina-night-shift-55" });
        assert.equal(new URL(nina.url()).pathname, "/hq/parts");
        await nina.context().close();
      });

      await t.step("users: reset a driver's PIN and a dispatcher's password, deactivate a user", async () => {
        await page.goto(world.url("/hq/admin/users"));
        const sam = page.locator('tr[data-user="sam@depot.example"]');
        await sam.getByLabel("New PIN for sam@depot.example").fill("24680");
        await sam.getByRole("button", { name: "Set PIN" }).click();
        await page.getByText("PIN set; any lockout lifted.").waitFor();
        const priya = page.locator(`tr[data-user="${DEMO.dispatcher.email}"]`);
        assert.equal(
          await priya.getByLabel(`New PIN for ${DEMO.dispatcher.email}`).count(),
          0,
          "no PIN for staff",
        );
        await priya.getByLabel(`New password for ${DEMO.dispatcher.email}`).fill("priya-new-password-1");
        await priya.getByRole("button", { name: "Set password" }).click();
        await page.getByText("Password set; their other sessions ended and any lockout lifted.").waitFor();
        const signedInAgain = await signInAs(world, {
          email: DEMO.dispatcher.email,
          password: "priya-new-password-1",
        });
        await signedInAgain.context().close();
        await page.locator('tr[data-user="nina@depot.example"]').getByRole("button", { name: "Deactivate" })
          .click();
        await page.getByText("User deactivated; their sessions ended.").waitFor();
        assert.match(
          (await page.locator('tr[data-user="nina@depot.example"]').textContent())!,
          /Deactivated.*Reactivate/,
        );
        assert.equal(
          await page.locator(`tr[data-user="${DEMO.admin.email}"]`).getByRole("button", {
            name: "Deactivate",
          }).count(),
          0,
          "no button to deactivate oneself",
        );
        await screenshot(page, "hq-admin-users");
        const users = await a.db.selectFrom("users").select(["email", "active"]).where(
          "email",
          "=",
          "nina@depot.example",
        )
          .executeTakeFirstOrThrow();
        assert.equal(users.active, false);
      });

      await t.step("repair shops and HQ locations: add, rename, deactivate", async () => {
        await page.getByRole("link", { name: "Repair shops & HQ" }).click();
        const add = page.getByRole("form", { name: "Add a repair shop" });
        await add.getByLabel("Name").fill("West Body Works");
        await add.getByLabel("Address").fill("2 Rivet Rd");
        await add.getByRole("button", { name: "Add repair shop" }).click();
        await page.getByText("Repair shop added.").waitFor();
        const row = page.locator('tr[data-repairer="West Body Works"]');
        await row.getByLabel("Name of West Body Works").fill("West Body Works Ltd");
        await row.getByRole("button", { name: "Save" }).click();
        await page.getByText("Repair shop saved.").waitFor();
        await page.locator('tr[data-repairer="Eastern Panel & Paint"]').getByRole("button", {
          name: "Deactivate",
        }).click();
        await page.getByText("Repair shop deactivated").waitFor();
        const hq = page.getByRole("form", { name: "Add an HQ location" });
        await hq.getByLabel("Name").fill("Crash Claim HQ - South Annex");
        await hq.getByRole("button", { name: "Add HQ location" }).click();
        await page.getByText("HQ location added.").waitFor();
        await page.getByText("Crash Claim HQ - South Annex").waitFor();
        await screenshot(page, "hq-admin-places");
        const shops = await a.db.selectFrom("repairers").select(["name", "active"]).orderBy("id").execute();
        assert.ok(shops.some((s) => s.name === "West Body Works Ltd" && s.active));
        assert.ok(shops.some((s) => s.name === "Eastern Panel & Paint" && !s.active));
      });

      await t.step(
        "tablets: enrol this browser, see it listed with its browser, rename it, revoke it",
        async () => {
          await page.getByRole("link", { name: "Tablets" }).click();
          await page.getByText("This browser is not an enrolled depot tablet.").waitFor();
          const enrol = page.getByRole("form", { name: "Enrol this browser" });
          await enrol.getByLabel("Tablet name").fill("Bay 1");
          await enrol.getByRole("button", { name: "Enrol this browser as a depot tablet" }).click();
          await page.getByText("This browser is now an enrolled depot tablet").waitFor();
          const row = page.locator('tr[data-tablet="Bay 1"]');
          assert.match((await row.textContent())!, new RegExp(`Bay 1 \\(this browser\\)${DEMO.admin.name}`));
          const cookies = await page.context().cookies();
          assert.ok(cookies.some((c) => c.name === "pm_device" && c.httpOnly), "the device cookie");
          assert.equal(await row.getByTestId("browser").textContent(), "Chrome on Linux", "its browser");
          assert.equal(await row.getByTestId("last-driver").textContent(), "—", "nobody signed in on it yet");
          await screenshot(page, "hq-admin-tablets");
          await row.getByLabel("Name of Bay 1").fill("Bay 1 north");
          await row.getByRole("button", { name: "Save" }).click();
          await page.getByText("Tablet renamed.").waitFor();
          const renamed = page.locator('tr[data-tablet="Bay 1 north"]');
          await renamed.getByRole("button", { name: "Revoke Bay 1 north" }).click();
          await page.getByText("Tablet revoked").waitFor();
          assert.equal(await page.locator("tr[data-tablet]").count(), 0);
          assert.ok(!(await page.context().cookies()).some((c) => c.name === "pm_device"), "cookie cleared");
        },
      );

      await t.step(
        "import: a bad file lists its problems and writes nothing; a good one is imported",
        async () => {
          const bad = `${tmp}/bad.json`;
          await Deno.writeTextFile(
            bad,
            JSON.stringify({ claims: [{ claim_number: "", registration: "X" }], oops: 1 }),
          );
          await page.getByRole("link", { name: "Import" }).click();
          await page.getByLabel(/^File \(/).setInputFiles(bad);
          await page.getByRole("button", { name: "Import" }).click();
          const problems = page.getByTestId("import-problems");
          await problems.waitFor();
          const text = (await problems.textContent())!;
          assert.match(text, /claims\[0\]\.claim_number: must not be empty/);
          assert.equal(await problems.locator("li").count(), 2, "the unknown key is a problem too");
          await screenshot(page, "hq-admin-import-problems");

          const good = `${tmp}/good.json`;
          await Deno.writeTextFile(
            good,
            JSON.stringify({
              claims: [{
                claim_number: "CLM-3001",
                registration: "UPL 301",
                management: { repairer: "North Smash Repairs" },
                parts: [{ part_no: "UP-301", description: "Tailgate", status: "Ordered" }],
              }],
            }),
          );
          await page.getByLabel(/^File \(/).setInputFiles(good);
          await page.getByRole("button", { name: "Import" }).click();
          await page.getByText("Imported good.json").waitFor();
          assert.equal((await page.locator('[data-count="claims"]').textContent())?.trim(), "1");
          const part = await a.db.selectFrom("parts_orders").select("status").where("part_no", "=", "UP-301")
            .executeTakeFirstOrThrow();
          assert.equal(part.status, "Ordered");
          await screenshot(page, "hq-admin-import");
        },
      );

      await t.step("users: change a role (never the last admin's); the audit page shows it", async () => {
        await page.goto(world.url("/hq/admin/users"));
        const dana = page.locator(`tr[data-user="${DEMO.driver.email}"]`);
        await dana.getByLabel(`Role of ${DEMO.driver.email}`).selectOption("dispatcher");
        await dana.getByRole("button", { name: "Set role" }).click();
        await page.getByText("Role changed.").waitFor();
        const self = page.locator(`tr[data-user="${DEMO.admin.email}"]`);
        await self.getByLabel(`Role of ${DEMO.admin.email}`).selectOption("driver");
        await self.getByRole("button", { name: "Set role" }).click();
        await page.getByText(`${DEMO.admin.name} is the last active admin`).waitFor();
        await page.getByRole("link", { name: "Audit trail" }).click();
        const row = page.locator("tr[data-audit]").filter({ hasText: "user.role" });
        assert.equal(await row.count(), 1, "the refused change left no entry");
        assert.match((await row.textContent())!, /Alex Admin.*role: driver.*role: dispatcher/);
        await screenshot(page, "hq-admin-audit");
      });

      await t.step("admins see the dispatcher pages too", async () => {
        await page.getByRole("link", { name: "Parts", exact: true }).click();
        await page.getByRole("link", { name: "UP-301" }).waitFor();
      });
    } finally {
      await Deno.remove(tmp, { recursive: true }).catch(() => {});
      await world.close();
    }
  },
});
