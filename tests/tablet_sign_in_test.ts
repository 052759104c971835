/** The depot tablet's sign-in, sign-out, roles and idle expiry at the HTTP level (D23, D24). */
import assert from "node:assert/strict";
import { verifyPin } from "@/io/pin.ts";
import { setUserActive } from "@/lib/admin/users.ts";
import { IDLE_TIMEOUT_MS } from "@/lib/sessions.ts";
import { createApp } from "@/main.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { textOf } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet, TEST_PIN } from "@/tests/helpers/tablet.ts";

appTest("tablet: signed-out visitors are sent to the sign-in page, and / leads to the tablet", async (a) => {
  const t = new Tablet(a);
  const root = await t.request("/");
  assert.equal(root.status, 302);
  assert.equal(root.headers.get("location"), "/tablet");
  const res = await t.request("/tablet/deliver?rego=ABC");
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/tablet/sign-in?next=%2Ftablet%2Fdeliver%3Frego%3DABC");
  const api = await t.postJson("/tablet/api/search", { job: "deliver", rego: "ABC" });
  assert.equal(api.status, 401);
});

appTest("tablet: the sign-in page lists active drivers by name, without their e-mails", async (a) => {
  await makeDriver(a, { name: "Zed Driver" });
  await makeDriver(a, { name: "Amy Driver" });
  await makeDriver(a, { name: "Gone Driver", active: false });
  await makeDriver(a, { name: "Priya Dispatch", role: "dispatcher" });
  const res = await new Tablet(a).request("/tablet/sign-in");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  const html = await res.text();
  assert.ok(html.indexOf("Amy Driver") < html.indexOf("Zed Driver"), "sorted by name");
  assert.ok(!html.includes("Gone Driver"));
  assert.ok(!html.includes("Priya Dispatch"));
  assert.ok(!html.includes("@depot.example"));
  assert.match(html, /data-island="TabletSignIn"/);
});

appTest("tablet: a driver signs in with the PIN and lands where they were going", async (a) => {
  const dana = await makeDriver(a, { name: "Dana Driver" });
  const t = new Tablet(a);
  const res = await t.signInForm({ user_id: String(dana.id), pin: TEST_PIN, next: "/tablet/collect" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/tablet/collect");
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("pm_session="))!;
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /SameSite=Strict/i);
  const page = await t.request("/tablet/collect");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("cache-control"), "no-store");
  const html = await page.text();
  assert.match(html, /Dana Driver/);
  assert.match(html, /data-island="TabletFlow"/);
  assert.match(html, /data-island="TabletIdle"/);
  // Already signed in: the sign-in page sends the driver on.
  const again = await t.request("/tablet/sign-in");
  assert.equal(again.status, 303);
});

appTest("tablet: sign-in by e-mail works for an admin; a dispatcher is turned away", async (a) => {
  const admin = await makeDriver(a, { role: "admin" });
  const dispatcher = await makeDriver(a, { role: "dispatcher" });
  const t = new Tablet(a);
  const ok = await t.signInForm({ email: admin.email.toUpperCase(), pin: TEST_PIN, next: "/tablet" });
  assert.equal(ok.status, 303);
  const other = new Tablet(a);
  const refused = await other.signInForm({ email: dispatcher.email, pin: TEST_PIN, next: "/tablet" });
  assert.equal(refused.status, 403);
  assert.match(
    await refused.text(),
    /The depot tablet is for drivers\. Dispatchers use the dashboard at \/hq\./,
  );
  assert.equal(other.cookie, "");
  // A dispatcher cannot be picked by id either: even the right PIN is a wrong PIN for an id not offered.
  const picked = await other.signInForm({ user_id: String(dispatcher.id), pin: TEST_PIN });
  assert.equal(picked.status, 401);
  assert.match(await picked.text(), /Wrong PIN\. 4 tries left before a 5-minute lock\./);
});

appTest("tablet: a wrong PIN says how many tries are left, and the fifth locks the driver out", async (a) => {
  const dana = await makeDriver(a);
  const t = new Tablet(a);
  for (let i = 1; i <= 4; i++) {
    const res = await t.signInForm({ user_id: String(dana.id), pin: "0000" });
    assert.equal(res.status, 401);
    const html = await res.text();
    const left = 5 - i;
    assert.match(
      html,
      new RegExp(`Wrong PIN\\. ${left} tr${left === 1 ? "y" : "ies"} left before a 5-minute lock\\.`),
    );
    // The page comes back with the same driver picked, straight to the PIN pad.
    assert.match(html, new RegExp(`&quot;pickedId&quot;:${dana.id}|"pickedId":${dana.id}`));
  }
  const fifth = await t.signInForm({ user_id: String(dana.id), pin: "0000" });
  assert.equal(fifth.status, 401);
  assert.match(await fifth.text(), /Too many wrong PINs\. Try again in 5 minutes\./);
  const right = await t.signInForm({ user_id: String(dana.id), pin: TEST_PIN });
  assert.equal(right.status, 401);
  assert.match(await right.text(), /Too many wrong PINs/);
  assert.equal(t.cookie, "");
});

appTest("tablet: next never leaves the tablet", async (a) => {
  const dana = await makeDriver(a);
  for (
    const next of [
      "//evil.example/x",
      "https://evil.example",
      "/hq",
      "/\\evil.example",
      "/tablet\\x",
      "/tablet/../hq",
    ]
  ) {
    const res = await new Tablet(a).signInForm({ user_id: String(dana.id), pin: TEST_PIN, next });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/tablet", next);
  }
});

appTest("tablet: sign-out needs the CSRF token, ends the session and clears the site's data", async (a) => {
  const dana = await makeDriver(a);
  const t = new Tablet(a);
  await t.signIn(dana);
  const form = (csrf: string) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf }).toString(),
  });
  const forged = await t.request("/tablet/sign-out", form("wrong"));
  assert.equal(forged.status, 403);
  const crossSite = await t.request("/tablet/sign-out", {
    ...form(t.csrf),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
  });
  assert.equal(crossSite.status, 403);
  const cookie = t.cookie;
  const res = await t.request("/tablet/sign-out", form(t.csrf));
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/tablet/sign-in?reason=signed_out");
  // Not "storage": the tablet's durable queue (IndexedDB) and offline pages survive a sign-out; not
  // "cookies": the tablet keeps its device cookie and stays enrolled.
  assert.equal(res.headers.get("clear-site-data"), '"cache"');
  assert.notEqual(t.device, "");
  assert.equal((await a.db.selectFrom("sessions").selectAll().execute()).length, 0);
  // The old cookie is worthless now.
  t.cookie = cookie;
  const after = await t.request("/tablet");
  assert.equal(after.status, 303);
  const page = await t.request("/tablet/sign-in?reason=signed_out");
  assert.match(await page.text(), /You are signed out\. The next driver can sign in\./);
});

appTest("tablet: after 10 idle minutes the tablet is signed out and says why", async (a) => {
  const dana = await makeDriver(a);
  const t = new Tablet(a);
  await t.signIn(dana);
  const ping = await t.postJson("/tablet/api/ping", {});
  assert.equal(ping.status, 204);
  assert.equal(Number(ping.headers.get("x-session-expires-in")), IDLE_TIMEOUT_MS);
  a.clock.advance(IDLE_TIMEOUT_MS - 60_000);
  const late = await t.postJson("/tablet/api/ping", {});
  assert.equal(late.status, 204);
  assert.equal(
    Number(late.headers.get("x-session-expires-in")),
    IDLE_TIMEOUT_MS,
    "activity restarts the clock",
  );
  a.clock.advance(IDLE_TIMEOUT_MS);
  const cookie = t.cookie;
  const page = await t.request("/tablet/deliver");
  assert.equal(page.status, 303);
  assert.equal(page.headers.get("location"), "/tablet/sign-in?reason=idle&next=%2Ftablet%2Fdeliver");
  const signIn = await t.request("/tablet/sign-in?reason=idle&next=%2Ftablet%2Fdeliver");
  assert.match(await signIn.text(), /You were signed out after 10 minutes without activity\./);
  // The timed-out session is gone: its cookie, sent again, is simply signed out (the island says idle).
  t.cookie = cookie;
  const api = await t.postJson("/tablet/api/search", { job: "deliver", rego: "ABC" });
  assert.equal(api.status, 401);
  t.cookie = cookie;
  const again = await t.request("/tablet/deliver");
  assert.equal(again.headers.get("location"), "/tablet/sign-in?reason=ended&next=%2Ftablet%2Fdeliver");
});

appTest("tablet: API calls need the CSRF header", async (a) => {
  const dana = await makeDriver(a);
  const t = new Tablet(a);
  await t.signIn(dana);
  const res = await t.request("/tablet/api/ping", { method: "POST" });
  assert.equal(res.status, 403);
});

appTest(
  "tablet: a picked id gets the same answer and one PIN check whether it is a driver, an admin, a deactivated user or nobody",
  async (a) => {
    const checks: string[] = [];
    const counted: TestApp = {
      ...a,
      app: createApp({
        ...a,
        checkPin: (pin, stored) => {
          checks.push(pin);
          return verifyPin(pin, stored);
        },
      }),
    };
    const driver = await makeDriver(a, { name: "Dana Driver" });
    const admin = await makeDriver(a, { role: "admin", name: "Alex Admin" });
    const gone = await makeDriver(a, { name: "Gone Driver", active: false });
    const dispatcher = await makeDriver(a, { role: "dispatcher", name: "Priya Dispatch" });
    const unknownId = dispatcher.id + 1000;
    const answer = async (id: number, pin: string) => {
      const before = checks.length;
      const res = await new Tablet(counted).signInForm({ user_id: String(id), pin });
      const html = (await res.text()).replaceAll(`:${id}`, ":ID");
      return { status: res.status, html, checks: checks.length - before };
    };
    const listed = await answer(driver.id, "0000");
    assert.equal(listed.status, 401);
    assert.match(listed.html, /Wrong PIN\. 4 tries left before a 5-minute lock\./);
    assert.equal(listed.checks, 1);
    // Ids not in the list: an admin with a wrong PIN, and, even with the right PIN, a deactivated user, a
    // dispatcher and an id nobody has. Same status, same page, one PIN check each.
    const reference = await answer(admin.id, "0000");
    assert.equal(reference.status, 401);
    assert.match(reference.html, /Wrong PIN\. 4 tries left before a 5-minute lock\./);
    for (const id of [gone.id, dispatcher.id, unknownId]) {
      const other = await answer(id, TEST_PIN);
      assert.deepEqual(other, reference, `id ${id}`);
    }
    // They lock alike too.
    const t = new Tablet(counted);
    for (let i = 0; i < 5; i++) await t.signInForm({ user_id: String(unknownId), pin: "0000" });
    const locked = await t.signInForm({ user_id: String(unknownId), pin: "0000" });
    assert.match(await locked.text(), /Too many wrong PINs\. Try again in 5 minutes\./);
    assert.deepEqual(await a.db.selectFrom("sessions").selectAll().execute(), []);
  },
);

appTest("tablet: a deactivated driver's session ends without a word about inactivity", async (a) => {
  const admin = await makeDriver(a, { role: "admin" });
  const dana = await makeDriver(a);
  const t = new Tablet(a);
  await t.signIn(dana);
  await setUserActive(a.db, { userId: dana.id, active: false, actorId: admin.id });
  const page = await t.request("/tablet/deliver");
  assert.equal(page.headers.get("location"), "/tablet/sign-in?reason=ended&next=%2Ftablet%2Fdeliver");
  const text = textOf(await (await t.request(page.headers.get("location")!)).text());
  assert.match(text, /You were signed out\. Sign in again to carry on\./);
  assert.doesNotMatch(text, /activity/);
});

appTest(
  "tablet api: a 401 names inactivity only when the session timed out (the page shows the server's words)",
  async (a) => {
    const admin = await makeDriver(a, { role: "admin" });
    const idle = new Tablet(a);
    await idle.signIn(await makeDriver(a));
    const gone = new Tablet(a);
    const dana = await makeDriver(a);
    await gone.signIn(dana);
    await setUserActive(a.db, { userId: dana.id, active: false, actorId: admin.id });
    const deactivated = await gone.postJson("/tablet/api/ping", {});
    assert.equal(deactivated.status, 401);
    assert.equal((await deactivated.json()).message, "You were signed out. Sign in again.");
    a.clock.advance(IDLE_TIMEOUT_MS);
    const timedOut = await idle.postJson("/tablet/api/ping", {});
    assert.equal(timedOut.status, 401);
    assert.equal(
      (await timedOut.json()).message,
      "You were signed out after 10 minutes without activity. Sign in again.",
    );
  },
);
