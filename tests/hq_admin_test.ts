import assert from "node:assert/strict";
import { MAX_PIN_CHECKS } from "@/lib/pin_attempts.ts";
import { signIn, type TabletClient } from "@/lib/sessions.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { enrolDevice } from "@/lib/devices.ts";
import { makeRepairer, makeUser } from "@/testkit/factories.ts";
import { pageText, postSignIn, signedIn, TEST_PASSWORD } from "@/tests/helpers/hq.ts";

/** A tablet's PIN check, made through the use case (no device row is needed at this level). */
/** An enrolled tablet to sign in on (a PIN is checked only there; a tablet session is bound to it). */
async function enrolledTablet(a: TestApp): Promise<TabletClient> {
  const { device } = await enrolDevice(a.db, a.clock, { name: "Bay", enrolledBy: null });
  return { kind: "tablet", deviceId: device.id };
}

appTest(
  "hq admin users: add, refuse a duplicate or a bad PIN, deactivate (ending sessions), reactivate",
  async (a) => {
    const TABLET = await enrolledTablet(a);
    const admin = await signedIn(a, "admin");
    const add = await admin.post("/hq/admin/users", {
      email: "New@Depot.example",
      name: "Nia New",
      role: "driver",
      pin: "4321",
    });
    assert.equal(add.status, 303);
    assert.equal(add.headers.get("location"), "/hq/admin/users?done=added");
    const { user } = await signIn(a, {
      name: { email: "new@depot.example" },
      pin: "4321",
      client: TABLET,
    });
    assert.equal(user.role, "driver");
    assert.match(
      await pageText(await admin.get("/hq/admin/users?done=added")),
      /User added\. .*Nia New new@depot\.example driver dispatcher admin Set role Active/,
    );

    const dup = await admin.post("/hq/admin/users", {
      email: "new@depot.example",
      name: "Again",
      role: "driver",
      pin: "1111",
    });
    const dupText = await pageText(dup, 422);
    assert.match(dupText, /A user with the e-mail new@depot\.example already exists\./);
    const badPin = await admin.post("/hq/admin/users", {
      email: "p@depot.example",
      name: "P",
      role: "driver",
      pin: "12",
    });
    assert.match(await pageText(badPin, 422), /The PIN must be 4 to 8 digits\./);
    const badRole = await admin.post("/hq/admin/users", {
      email: "r@depot.example",
      name: "R",
      role: "boss",
      pin: "1234",
    });
    assert.match(await pageText(badRole, 422), /Choose a role: driver, dispatcher, admin\./);

    const victim = await signedIn(a, "dispatcher");
    assert.equal((await victim.get("/hq/parts")).status, 200);
    const off = await admin.post(`/hq/admin/users/${victim.user.id}/active`, { active: "false" });
    assert.equal(off.headers.get("location"), "/hq/admin/users?done=deactivated");
    assert.equal((await victim.get("/hq/parts")).status, 303, "their session ended");
    await assert.rejects(signIn(a, { name: { email: victim.user.email }, pin: "0000", client: TABLET }));
    const on = await admin.post(`/hq/admin/users/${victim.user.id}/active`, { active: "true" });
    assert.equal(on.headers.get("location"), "/hq/admin/users?done=activated");

    const self = await admin.post(`/hq/admin/users/${admin.user.id}/active`, { active: "false" });
    assert.match(await pageText(self, 422), /You cannot deactivate yourself\./);
  },
);

appTest("hq admin users: a PIN reset lifts a lockout and ends the user's other sessions", async (a) => {
  const TABLET = await enrolledTablet(a);
  const admin = await signedIn(a, "admin");
  const driver = await makeUser(a.db, { role: "driver" });
  const driverSession = await signedIn(a, "driver", driver);
  const wrong = () => signIn(a, { name: { email: driver.email }, pin: "0000", client: TABLET });
  for (let i = 0; i < MAX_PIN_CHECKS; i++) await assert.rejects(wrong());
  assert.match(await pageText(await admin.get("/hq/admin/users")), /Locked \(wrong tries\)/);
  const bad = await admin.post(`/hq/admin/users/${driver.id}/pin`, { pin: "abcd" });
  assert.match(await pageText(bad, 422), /The PIN must be 4 to 8 digits\./);
  const res = await admin.post(`/hq/admin/users/${driver.id}/pin`, { pin: "86420" });
  assert.equal(res.headers.get("location"), "/hq/admin/users?done=pin");
  const { user } = await signIn(a, { name: { email: driver.email }, pin: "86420", client: TABLET });
  assert.equal(user.id, driver.id);
  const sessions = await a.db.selectFrom("sessions").select("token_hash").where("user_id", "=", driver.id)
    .execute();
  assert.equal(sessions.length, 1, "only the new sign-in's session");
  assert.equal((await driverSession.get("/photos/1")).status, 401);
  // A dispatcher or an admin has no PIN to set: a password instead.
  const staffPin = await admin.post(`/hq/admin/users/${admin.user.id}/pin`, { pin: "2222" });
  assert.match(
    await pageText(staffPin, 422),
    /Dispatchers and admins sign in with a password: set a password/,
  );
  assert.equal((await admin.get("/hq/admin/users")).status, 200);
});

appTest(
  "hq admin users: staff get a password of at least 12 characters not on the common list; PINs only for drivers",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const add = (fields: Record<string, string>) =>
      admin.post("/hq/admin/users", { email: "d@depot.example", name: "Dee", role: "dispatcher", ...fields });
    const refusals: [Record<string, string>, RegExp][] = [
      [{ password: "short-pass1" }, /The password must be at least 12 characters\./],
      [{ password: "1qaz2wsx3edc" }, /The password is one of the most common passwords: choose another\./],
      [{ password: "QwertyQwerty" }, /The password is one of the most common passwords/],
      [{ password: "" }, /The password must be at least 12 characters\./],
      [
        { password: TEST_PASSWORD, pin: "1234" },
        /Dispatchers and admins sign in with a password: leave the PIN/,
      ],
      [{ role: "driver", pin: "1234", password: TEST_PASSWORD }, /Drivers sign in on the tablet with a PIN/],
    ];
    for (const [fields, message] of refusals) {
      assert.match(await pageText(await add(fields), 422), message, JSON.stringify(fields));
    }
    assert.equal(
      await a.db.selectFrom("users").select("id").where("email", "=", "d@depot.example")
        .executeTakeFirst(),
      undefined,
    );
    assert.equal(
      (await add({ password: TEST_PASSWORD })).headers.get("location"),
      "/hq/admin/users?done=added",
    );
    const dee = await a.db.selectFrom("users").selectAll().where("email", "=", "d@depot.example")
      .executeTakeFirstOrThrow();
    assert.equal(dee.pin_hash, null);
    assert.ok(dee.password_hash?.startsWith("pbkdf2$"));
    assert.equal((await postSignIn(a, { email: dee.email, password: TEST_PASSWORD })).status, 303);
    // The page offers a password to staff and a PIN to drivers only.
    await makeUser(a.db, { role: "driver", email: "drv@depot.example" });
    const html = await (await admin.get("/hq/admin/users")).text();
    assert.match(html, /aria-label="New password for d@depot\.example"/);
    assert.doesNotMatch(html, /New PIN for d@depot\.example/);
    assert.match(html, /aria-label="New PIN for drv@depot\.example"/);
    assert.doesNotMatch(html, /New password for drv@depot\.example/);
    const driver = await a.db.selectFrom("users").select("id").where("email", "=", "drv@depot.example")
      .executeTakeFirstOrThrow();
    const driverPassword = await admin.post(`/hq/admin/users/${driver.id}/password`, {
      password: TEST_PASSWORD,
    });
    assert.match(
      await pageText(driverPassword, 422),
      /Drivers sign in on the tablet with a PIN: set a PIN instead\./,
    );
  },
);

appTest(
  "hq admin users: setting a password lifts the lock, ends the user's other sessions and is audited without the secret",
  async (a) => {
    const admin = await signedIn(a, "admin");
    // Staff from before passwords: only a PIN; the page says so.
    const old = await makeUser(a.db, { role: "dispatcher", email: "old@depot.example" });
    assert.match(await pageText(await admin.get("/hq/admin/users")), /old@depot\.example .*No password yet/);
    const oldSession = await signedIn(a, "dispatcher", old);
    for (let i = 0; i < MAX_PIN_CHECKS; i++) {
      await (await postSignIn(a, { email: old.email, password: "a-wrong-guess-123" })).body?.cancel();
    }
    const weak = await admin.post(`/hq/admin/users/${old.id}/password`, { password: "password1234" });
    assert.match(await pageText(weak, 422), /The password is one of the most common passwords/);
    const set = await admin.post(`/hq/admin/users/${old.id}/password`, { password: "new-one-for-old-42" });
    assert.equal(set.headers.get("location"), "/hq/admin/users?done=password");
    assert.equal((await oldSession.get("/hq/parts")).status, 303, "their session ended");
    assert.equal((await postSignIn(a, { email: old.email, password: "new-one-for-old-42" })).status, 303);

    // Setting one's own: the current session stays, the others end.
    const elsewhere = await signedIn(a, "admin", admin.user);
    const own = await admin.post(`/hq/admin/users/${admin.user.id}/password`, {
      password: "admins-own-new-one",
    });
    assert.equal(own.headers.get("location"), "/hq/admin/users?done=password");
    assert.equal((await admin.get("/hq/admin/users")).status, 200);
    assert.equal((await elsewhere.get("/hq/parts")).status, 303);

    const entries = await a.db.selectFrom("audit_log").selectAll().where("action", "=", "user.password_set")
      .orderBy("id").execute();
    assert.equal(entries.length, 2);
    assert.deepEqual(entries[0].after, { email: old.email, password: "set" });
    const all = JSON.stringify(await a.db.selectFrom("audit_log").selectAll().execute());
    for (const secret of ["new-one-for-old-42", "admins-own-new-one", "password1234"]) {
      assert.ok(!all.includes(secret), `the audit holds no ${secret}`);
    }
  },
);

appTest("hq admin places: add, rename and deactivate repair shops; add HQ locations", async (a) => {
  const admin = await signedIn(a, "admin");
  const add = await admin.post("/hq/admin/places/repairers", {
    name: "  West   Body Works ",
    address: "2 Rivet Rd",
  });
  assert.equal(add.headers.get("location"), "/hq/admin/places?done=repairer");
  const shop = await a.db.selectFrom("repairers").selectAll().where("name", "=", "West Body Works")
    .executeTakeFirstOrThrow();
  assert.equal(shop.address, "2 Rivet Rd");
  const other = await makeRepairer(a.db, "East Panels");
  const dup = await admin.post("/hq/admin/places/repairers", { name: "East Panels" });
  assert.match(await pageText(dup, 422), /A repair shop named East Panels already exists\./);
  const clash = await admin.post(`/hq/admin/places/repairers/${shop.id}`, {
    name: "East Panels",
    address: "",
  });
  assert.match(await pageText(clash, 422), /A repair shop named East Panels already exists\./);
  const rename = await admin.post(`/hq/admin/places/repairers/${shop.id}`, {
    name: "West Body Works Ltd",
    address: "",
  });
  assert.equal(rename.headers.get("location"), "/hq/admin/places?done=saved");
  const renamed = await a.db.selectFrom("repairers").selectAll().where("id", "=", shop.id)
    .executeTakeFirstOrThrow();
  assert.deepEqual([renamed.name, renamed.address], ["West Body Works Ltd", null]);
  await admin.post(`/hq/admin/places/repairers/${other.id}/active`, { active: "false" });
  const off = await a.db.selectFrom("repairers").select("active").where("id", "=", other.id)
    .executeTakeFirstOrThrow();
  assert.equal(off.active, false);
  const page = await pageText(await admin.get("/hq/admin/places"));
  assert.match(page, /Deactivated Reactivate/);

  assert.equal(
    (await admin.post("/hq/admin/places/hq", { name: "North Yard" })).headers.get("location"),
    "/hq/admin/places?done=hq",
  );
  const hqDup = await admin.post("/hq/admin/places/hq", { name: "North Yard" });
  assert.match(await pageText(hqDup, 422), /An HQ location named North Yard already exists\./);
  assert.match(await pageText(await admin.get("/hq/admin/places")), /North Yard/);
  assert.match(
    await pageText(await admin.post("/hq/admin/places/hq", { name: "  " }), 422),
    /Enter the HQ location's name/,
  );
});

appTest("hq admin places: rename an HQ location; a taken or bad name changes nothing", async (a) => {
  const admin = await signedIn(a, "admin");
  const [yard, dock] = await a.db.insertInto("hq_locations")
    .values([{ name: "Rename Yard" }, { name: "Rename Dock" }])
    .returning(["id", "name"]).execute();
  const names = async () =>
    (await a.db.selectFrom("hq_locations").select("name").where("id", "in", [yard.id, dock.id]).orderBy("id")
      .execute()).map((r) => r.name);
  const page = await pageText(await admin.get("/hq/admin/places"));
  assert.match(page, /Rename Yard .*Rename Dock/);

  const rename = await admin.post(`/hq/admin/places/hq/${yard.id}`, { name: "  Rename   Yard North " });
  assert.equal(rename.status, 303);
  assert.equal(rename.headers.get("location"), "/hq/admin/places?done=hq-saved");
  assert.deepEqual(await names(), ["Rename Yard North", "Rename Dock"]);
  assert.match(
    await pageText(await admin.get("/hq/admin/places?done=hq-saved")),
    /HQ location saved\..*Rename Yard North/,
  );
  // Saving the same name again is fine (the location does not clash with itself).
  const same = await admin.post(`/hq/admin/places/hq/${yard.id}`, { name: "Rename Yard North" });
  assert.equal(same.headers.get("location"), "/hq/admin/places?done=hq-saved");

  const taken = await admin.post(`/hq/admin/places/hq/${dock.id}`, { name: " Rename Yard North" });
  assert.match(await pageText(taken, 422), /An HQ location named Rename Yard North already exists\./);
  const blank = await admin.post(`/hq/admin/places/hq/${dock.id}`, { name: "   " });
  assert.match(await pageText(blank, 422), /Enter the HQ location's name \(at most 200 characters\)\./);
  const long = await admin.post(`/hq/admin/places/hq/${dock.id}`, { name: "x".repeat(201) });
  assert.match(await pageText(long, 422), /Enter the HQ location's name/);
  assert.deepEqual(await names(), ["Rename Yard North", "Rename Dock"], "nothing changed");
  const missing = await admin.post("/hq/admin/places/hq/999999", { name: "Nowhere" });
  assert.match(await pageText(missing, 422), /HQ location not found\./);
  assert.equal((await admin.post("/hq/admin/places/hq/abc", { name: "Nowhere" })).status, 404);

  const dispatcher = await signedIn(a, "dispatcher");
  const refused = await dispatcher.post(`/hq/admin/places/hq/${dock.id}`, { name: "Dispatcher Dock" });
  assert.equal(refused.status, 403);
  const crossSite = await admin.post(`/hq/admin/places/hq/${dock.id}`, { name: "Evil Dock" }, {
    origin: "https://evil.example",
  });
  assert.equal(crossSite.status, 403);
  assert.match(await crossSite.text(), /Cross-site request refused/);
  const noToken = await admin.post(`/hq/admin/places/hq/${dock.id}`, { name: "Tokenless Dock", _csrf: "" });
  assert.equal(noToken.status, 403);
  assert.deepEqual(await names(), ["Rename Yard North", "Rename Dock"], "refused posts changed nothing");
});

function upload(content: BlobPart, name = "data.json") {
  const body = new FormData();
  body.set("file", new File([content], name, { type: "application/json" }));
  return body;
}

appTest(
  "hq admin import: a valid upload is imported; a bad one lists every problem and writes nothing",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const post = (body: FormData) =>
      admin.request("/hq/admin/import", { method: "POST", headers: { "x-csrf-token": admin.csrf }, body });
    const good = {
      repairers: [{ name: "Upload Panels" }],
      claims: [{
        claim_number: "CLM-UP1",
        registration: "UPL 1",
        management: { repairer: "Upload Panels" },
        parts: [{ part_no: "UP-1", description: "Door", status: "Arrived" }],
      }],
    };
    const ok = await post(upload(JSON.stringify(good)));
    const text = await pageText(ok, 200);
    assert.match(text, /Imported data\.json: 1 part status change\(s\)\./);
    assert.match(text, /claims 1 parts 1/);
    const part = await a.db.selectFrom("parts_orders").select("status").where("part_no", "=", "UP-1")
      .executeTakeFirstOrThrow();
    assert.equal(part.status, "Arrived");

    const bad = {
      claims: [
        { claim_number: "CLM-UP2", registration: "UPL 2", management: { repairer: "Nobody" }, parts: [] },
        {
          claim_number: "CLM-UP3",
          registration: "",
          parts: [{ part_no: "X", description: "", status: "Lost" }],
        },
      ],
    };
    const refused = await post(upload(JSON.stringify(bad), "bad.json"));
    const problems = await pageText(refused, 422);
    assert.match(problems, /problems in bad\.json; nothing was written/);
    assert.match(problems, /claims\[1\]\.registration: must not be empty/);
    assert.match(problems, /claims\[1\]\.parts\[0\]\.status: must be one of Ordered/);
    assert.equal(
      await a.db.selectFrom("claims").select("id").where("claim_number", "=", "CLM-UP2").executeTakeFirst(),
      undefined,
    );
    const unknown = await pageText(await post(upload(JSON.stringify({ claims: [bad.claims[0]] }))), 422);
    assert.match(unknown, /claims\[0\]\.management\.repairer: names unknown repairer "Nobody"/);

    assert.match(await pageText(await post(upload("{not json")), 422), /data\.json is not valid JSON/);
    assert.match(await pageText(await post(new FormData()), 400), /Choose a file to import\./);
    const big = await post(upload(new Uint8Array(5 * 1024 * 1024 + 100_000).fill(32)));
    assert.match(await pageText(big, 413), /larger than 5 MB; nothing was imported/);

    const dispatcher = await signedIn(a, "dispatcher");
    const refusedRole = await dispatcher.request("/hq/admin/import", {
      method: "POST",
      headers: { "x-csrf-token": dispatcher.csrf },
      body: upload(JSON.stringify(good)),
    });
    assert.equal(refusedRole.status, 403);
  },
);
