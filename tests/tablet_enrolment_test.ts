/**
 * Tablet enrolment: the tablet's sign-in answers only on a browser an admin enrolled from
 * /hq/admin/tablets; the device cookie, the list, revoking; the development demo's automatic enrolment.
 */
import assert from "node:assert/strict";
import { importData } from "@/lib/import.ts";
import { DEMO_DATA_URL, DEMO_TABLET_NAME } from "@/lib/demo_data.ts";
import { deviceCookie } from "@/routes/web/device.ts";
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
