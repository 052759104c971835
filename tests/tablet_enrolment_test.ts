/**
 * Tablet enrolment: the tablet's sign-in answers only on a browser an admin enrolled from
 * /hq/admin/tablets; the device cookie, the list, revoking; the development demo's automatic enrolment.
 */
import assert from "node:assert/strict";
import { importData } from "@/lib/import.ts";
import { DEMO_DATA_URL, DEMO_TABLET_NAME } from "@/lib/demo_data.ts";
import { deviceCookie } from "@/routes/web/device.ts";
import { TABLET_REMOVED } from "@/routes/web/session.ts";
import { NOT_ENROLLED } from "@/routes/tablet/sign_in.tsx";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { pageText, signedIn, textOf } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet, TEST_PIN } from "@/tests/helpers/tablet.ts";

/** The device cookie an answer sets (`name=value`), or undefined. */
function deviceSetCookie(a: TestApp, res: Response): { pair: string; line: string } | undefined {
  const name = deviceCookie(a.config).name;
  const line = res.headers.getSetCookie().find((l) => l.startsWith(`${name}=`));
  return line ? { pair: line.split(";")[0], line } : undefined;
}

appTest(
  "tablet enrolment: a browser that is no enrolled tablet sees no driver and cannot sign in",
  async (a) => {
    const dana = await makeDriver(a, { name: "Dana Driver" });
    const stranger = new Tablet(a, { enrolled: false });
    const page = await stranger.request("/tablet/sign-in");
    assert.equal(page.status, 403);
    const html = await page.text();
    assert.ok(textOf(html).includes(NOT_ENROLLED), textOf(html));
    assert.ok(!html.includes("Dana Driver"));
    assert.ok(!html.includes("data-island"), "no sign-in island");
    // Even the right PIN: refused before any check, nothing counted, no session.
    const post = await stranger.signInForm({ user_id: String(dana.id), pin: TEST_PIN });
    assert.equal(post.status, 403);
    assert.ok(textOf(await post.text()).includes(NOT_ENROLLED));
    assert.equal(stranger.cookie, "");
    assert.deepEqual(await a.db.selectFrom("sessions").selectAll().execute(), []);
    assert.deepEqual(await a.db.selectFrom("pin_attempts").selectAll().execute(), []);
    // A made-up device cookie is no better.
    stranger.device = `${deviceCookie(a.config).name}=${"x".repeat(43)}`;
    assert.equal((await stranger.request("/tablet/sign-in")).status, 403);
  },
);

appTest(
  "tablet enrolment: an admin enrols the browser from the dashboard; it is listed, used and revoked",
  async (a) => {
    const dana = await makeDriver(a, { name: "Dana Driver" });
    const admin = await signedIn(a, "admin");
    const empty = await pageText(await admin.get("/hq/admin/tablets"));
    assert.match(empty, /This browser is not an enrolled depot tablet\..*No tablet is enrolled yet\./);
    assert.match(await pageText(await admin.get("/hq/parts")), /Tablets/, "linked in the admin navigation");

    const bad = await admin.post("/hq/admin/tablets", { name: "  " });
    assert.match(await pageText(bad, 422), /Name the tablet \(1 to 80 characters, no control characters\)\./);
    const res = await admin.post("/hq/admin/tablets", { name: " Bay  1 " });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/hq/admin/tablets?done=enrolled");
    const cookie = deviceSetCookie(a, res)!;
    assert.match(cookie.line, /HttpOnly/i);
    assert.match(cookie.line, /SameSite=Strict/i);
    assert.match(cookie.line, /Max-Age=34560000/i, "400 days");
    const [device] = await a.db.selectFrom("devices").selectAll().execute();
    assert.equal(device.name, "Bay 1");
    assert.notEqual(device.token_hash, cookie.pair.split("=")[1], "only the token's hash is stored");

    // The enrolled browser: the driver list, and a driver signs in.
    const tablet = new Tablet(a, { enrolled: false });
    tablet.device = cookie.pair;
    const list = await tablet.request("/tablet/sign-in");
    assert.equal(list.status, 200);
    assert.match(await list.text(), /Dana Driver/);
    a.clock.advance(5 * 60_000);
    assert.equal((await tablet.signInForm({ user_id: String(dana.id), pin: TEST_PIN })).status, 303);

    // The list names it, who enrolled it, when, and its last use; the browser holding it is marked.
    // The admin's browser holding the device cookie too.
    const both = (path: string, init: RequestInit = {}) =>
      a.app.request(path, {
        ...init,
        headers: { ...init.headers, cookie: `${admin.cookie}; ${cookie.pair}` },
        redirect: "manual",
      });
    const here = await both("/hq/admin/tablets");
    const text = await pageText(here);
    assert.match(text, /This browser is enrolled as “Bay 1”\./);
    assert.match(text, new RegExp(`Bay 1 \\(this browser\\) ${admin.user.name}`));
    const used = await a.db.selectFrom("devices").select("last_used_at").executeTakeFirstOrThrow();
    assert.equal(used.last_used_at?.getTime(), a.clock.now().getTime());

    // Revoked from the browser holding it: the cookie is cleared there and worthless everywhere.
    const revoke = await both(`/hq/admin/tablets/${device.id}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: admin.csrf }),
    });
    assert.equal(revoke.headers.get("location"), "/hq/admin/tablets?done=revoked");
    assert.match(deviceSetCookie(a, revoke)!.line, /Max-Age=0/i);
    tablet.cookie = "";
    assert.equal((await tablet.request("/tablet/sign-in")).status, 403);
    assert.equal((await tablet.signInForm({ user_id: String(dana.id), pin: TEST_PIN })).status, 403);
    assert.equal((await admin.post(`/hq/admin/tablets/${device.id}/revoke`)).status, 404);
    // Dispatchers cannot enrol.
    const dispatcher = await signedIn(a, "dispatcher");
    assert.equal((await dispatcher.post("/hq/admin/tablets", { name: "Mine" })).status, 403);
  },
);

appTest("tablet enrolment: outside development the device cookie is __Host- and Secure", async (a) => {
  const admin = await signedIn(a, "admin");
  const res = await admin.post("/hq/admin/tablets", { name: "Bay 2" });
  const cookie = deviceSetCookie(a, res)!;
  assert.match(cookie.pair, /^__Host-pm_device=/);
  assert.match(cookie.line, /Secure/);
  assert.match(cookie.line, /Path=\//);
}, { config: { appEnv: "stage" } });

async function loadDemo(a: TestApp) {
  await importData(a.db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), a.clock);
}

appTest("tablet enrolment: the development demo enrols a browser by itself as the demo tablet", async (a) => {
  await loadDemo(a);
  const tablet = new Tablet(a, { enrolled: false });
  const res = await tablet.request("/tablet/sign-in");
  assert.equal(res.status, 200);
  assert.match(await res.text(), /Dana Driver/);
  assert.notEqual(tablet.device, "", "the device cookie was set");
  const devices = await a.db.selectFrom("devices").innerJoin("users", "users.id", "devices.enrolled_by")
    .select(["devices.name", "users.email"]).execute();
  assert.deepEqual(devices, [{ name: DEMO_TABLET_NAME, email: "admin@depot.example" }]);
  // The same browser keeps its enrolment (no new device per visit).
  assert.equal((await tablet.request("/tablet/sign-in")).status, 200);
  assert.equal((await a.db.selectFrom("devices").select("id").execute()).length, 1);
});

appTest("tablet enrolment: outside development the demo data enrols nothing", async (a) => {
  await loadDemo(a);
  const res = await new Tablet(a, { enrolled: false }).request("/tablet/sign-in");
  assert.equal(res.status, 403);
  assert.equal(deviceSetCookie(a, res), undefined);
  assert.deepEqual(await a.db.selectFrom("devices").selectAll().execute(), []);
}, { config: { appEnv: "stage" } });

appTest(
  "tablet enrolment: revoking a tablet ends the session open on it: pages, JSON and photos answer 401",
  async (a) => {
    const dana = await makeDriver(a, { name: "Dana Driver" });
    const tablet = new Tablet(a);
    await tablet.signIn(dana);
    assert.equal((await tablet.postJson("/tablet/api/ping", {})).status, 204);
    const admin = await signedIn(a, "admin");
    assert.equal((await admin.post(`/hq/admin/tablets/${tablet.deviceId}/revoke`)).status, 303);
    const sessions = await a.db.selectFrom("sessions").select("user_id").where("user_id", "=", dana.id)
      .execute();
    assert.deepEqual(sessions, [], "the tablet's session is gone with the tablet");

    const page = await tablet.request("/tablet");
    assert.equal(page.status, 401);
    assert.ok(textOf(await page.text()).includes(TABLET_REMOVED));
    const search = await tablet.postJson("/tablet/api/search", { job: "drop_off", rego: "ABC 123" });
    assert.equal(search.status, 401);
    assert.equal((await search.json()).message, TABLET_REMOVED);
    const photo = await tablet.uploadPhoto(
      { job: "drop_off", rego: "ABC 123", part_id: 1 },
      new Uint8Array([0xff, 0xd8, 0xff, 0xe0]),
    );
    assert.equal(photo.status, 401);
    assert.equal((await photo.json()).message, TABLET_REMOVED);
    // Its sign-in page lists no driver and says why.
    const signIn = await tablet.request("/tablet/sign-in");
    assert.equal(signIn.status, 403);
    const text = textOf(await signIn.text());
    assert.ok(text.includes(TABLET_REMOVED) && text.includes(NOT_ENROLLED), text);
    assert.ok(!text.includes("Dana Driver"));
  },
);

appTest(
  "tablet enrolment: a tablet session is refused without its own tablet's device cookie",
  async (a) => {
    const dana = await makeDriver(a, { name: "Dana Driver" });
    const tablet = new Tablet(a);
    await tablet.signIn(dana);
    const other = new Tablet(a);
    await other.enrol("Bay 2");
    // The session cookie copied to another browser: without a device cookie, or with another tablet's.
    for (const device of ["", other.device]) {
      const copy = new Tablet(a, { enrolled: false });
      copy.cookie = tablet.cookie;
      copy.device = device;
      copy.csrf = tablet.csrf;
      const page = await copy.request("/tablet");
      assert.equal(page.status, 303, `device cookie "${device}"`);
      assert.match(page.headers.get("location")!, /^\/tablet\/sign-in\?reason=ended/);
      assert.equal((await copy.postJson("/tablet/api/ping", {})).status, 401);
    }
    // The tablet itself carries on: presenting the copy did not end its session.
    assert.equal((await tablet.postJson("/tablet/api/ping", {})).status, 204);
    assert.equal((await tablet.request("/tablet")).status, 200);
  },
);

const ANDROID_CHROME =
  "Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const IPAD_SAFARI =
  "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

appTest(
  "tablet enrolment: each tablet shows its name (renamed, audited), last use, last driver and browser",
  async (a) => {
    const dana = await makeDriver(a, { name: "Dana Driver" });
    const admin = await signedIn(a, "admin");
    const enrol = await admin.request("/hq/admin/tablets", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": ANDROID_CHROME },
      body: new URLSearchParams({ _csrf: admin.csrf, name: "Demo tablet" }),
    });
    assert.equal(enrol.status, 303);
    const [device] = await a.db.selectFrom("devices").selectAll().execute();
    assert.equal(device.browser, "Chrome on Android", "from the enrolling browser");

    const tablet = new Tablet(a, { enrolled: false });
    tablet.device = deviceSetCookie(a, enrol)!.pair;
    a.clock.advance(60_000);
    const signIn = await tablet.request("/tablet/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": IPAD_SAFARI },
      body: new URLSearchParams({ user_id: String(dana.id), pin: TEST_PIN }).toString(),
    });
    assert.equal(signIn.status, 303);

    const row = async () => {
      const html = await (await admin.get("/hq/admin/tablets")).text();
      const tr = /<tr[^>]*data-tablet="[^"]*"[^>]*>.*?<\/tr>/s.exec(html)?.[0] ?? "";
      return { tr, text: textOf(tr) };
    };
    const before = await row();
    assert.match(before.text, /Demo tablet/);
    assert.match(before.text, /Dana Driver/, "the last driver");
    assert.match(before.text, /Safari on iPadOS/, "the browser of the last sign-in");
    const used = await a.db.selectFrom("devices").select("last_used_at").executeTakeFirstOrThrow();
    assert.equal(used.last_used_at?.getTime(), a.clock.now().getTime(), "the sign-in is a use");

    // Renamed: validated like enrolment, audited, CSRF-checked.
    const bad = await admin.post(`/hq/admin/tablets/${device.id}/rename`, { name: "x".repeat(81) });
    assert.match(await pageText(bad, 422), /Name the tablet \(1 to 80 characters, no control characters\)\./);
    const forged = await admin.request(`/hq/admin/tablets/${device.id}/rename`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Stolen" }),
    });
    assert.equal(forged.status, 403);
    const renamed = await admin.post(`/hq/admin/tablets/${device.id}/rename`, { name: "  Bay  3 " });
    assert.equal(renamed.headers.get("location"), "/hq/admin/tablets?done=renamed");
    assert.match((await row()).tr, /data-tablet="Bay 3"/);
    assert.equal((await admin.post("/hq/admin/tablets/999999/rename", { name: "Bay 9" })).status, 404);
    const audit = await a.db.selectFrom("audit_log").select(["actor_id", "subject", "before", "after"])
      .where("action", "=", "tablet.rename").execute();
    assert.deepEqual(audit, [{
      actor_id: admin.user.id,
      subject: `device:${device.id}`,
      before: { name: "Demo tablet" },
      after: { name: "Bay 3" },
    }]);

    // A browser is summed up from fixed words only: nothing of the header itself is stored or shown.
    const odd = await admin.request("/hq/admin/tablets", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": '<img src=x onerror="alert(1)"> Firefox/1 "Android"',
      },
      body: new URLSearchParams({ _csrf: admin.csrf, name: "Odd" }),
    });
    assert.equal(odd.status, 303);
    const stored = await a.db.selectFrom("devices").select("browser").where("name", "=", "Odd")
      .executeTakeFirstOrThrow();
    assert.equal(stored.browser, "Firefox on Android");
    assert.ok(!(await (await admin.get("/hq/admin/tablets")).text()).includes("onerror"));
  },
);
