/**
 * The dashboard's sign-in (lib/staff_sign_in.ts, routes/hq/sign_in.tsx; docs/sign-in.md "Dashboard
 * passwords", "Remembered browsers"): staff sign in with a password, every failure gets one answer whatever
 * the e-mail's role, a driver's PIN is never checked there, and a browser where a user signed in before
 * keeps a count of its own that failures from elsewhere cannot fill.
 */
import assert from "node:assert/strict";
import { hashPin, verifyPin } from "@/io/pin.ts";
import { hashToken } from "@/io/tokens.ts";
import { MAX_PIN_CHECKS } from "@/lib/pin_attempts.ts";
import { createApp } from "@/main.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeUser } from "@/testkit/factories.ts";
import { makeStaff, pageText, postSignIn, TEST_PASSWORD, withAssets } from "@/tests/helpers/hq.ts";
import { makeDriver, TEST_PIN, testPinHash } from "@/tests/helpers/tablet.ts";

/** The cookies a response sets, by name (`name=value`). */
function setCookies(res: Response): Map<string, string> {
  return new Map(res.headers.getSetCookie().map((c) => [c.split("=")[0], c]));
}

/** The `name=value` of the remembered-browser cookie a sign-in set. */
function browserCookie(res: Response): string {
  const set = setCookies(res).get("pm_browser");
  assert.ok(set, `a remembered-browser cookie: ${res.headers.getSetCookie()}`);
  return set.split(";")[0];
}

/** The app of `a` with a counting password check: which stored hashes were checked. */
function countingApp(a: TestApp) {
  const checkedHashes: (string | null)[] = [];
  const app = createApp({
    db: a.db,
    config: a.config,
    clock: a.clock,
    storage: a.storage,
    checkPin: (secret, stored) => {
      checkedHashes.push(stored);
      return verifyPin(secret, stored);
    },
  });
  const post = async (fields: Record<string, string>) => {
    await withAssets();
    return await app.request("/hq/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
  };
  return { post, checkedHashes };
}

appTest(
  "staff sign-in: a driver's right PIN answers as any failure, and no driver's PIN is ever checked",
  async (a) => {
    const dana = await makeDriver(a);
    const { post, checkedHashes } = countingApp(a);
    // The form as the old page sent it (`pin`), and the PIN typed as a password.
    const forms: Record<string, string>[] = [
      { email: dana.email, pin: TEST_PIN },
      { email: dana.email, password: TEST_PIN },
    ];
    for (const fields of forms) {
      const res = await post(fields);
      const text = await pageText(res, 401);
      assert.match(text, /Wrong e-mail or password\./);
      assert.doesNotMatch(text, /dispatchers and admins\. Drivers sign in on the depot tablet/);
      assert.deepEqual(res.headers.getSetCookie(), []);
    }
    assert.deepEqual(checkedHashes, [null, null], "checked against no hash: the driver's PIN never");
    assert.deepEqual(await a.db.selectFrom("sessions").select("user_id").execute(), []);
  },
);

appTest(
  "staff sign-in: every failure gets the same answer and the same steps, whatever the e-mail's role",
  async (a) => {
    const admin = await makeStaff(a, { role: "admin" });
    const locked = await makeStaff(a, { role: "dispatcher" });
    const driver = await makeDriver(a);
    // Staff from before passwords: a PIN and no password.
    const pinOnly = await makeUser(a.db, { role: "dispatcher", pinHash: await testPinHash() });
    const gone = await makeStaff(a, { role: "admin", active: false });
    const { post, checkedHashes } = countingApp(a);
    for (let i = 0; i < MAX_PIN_CHECKS; i++) {
      await (await post({ email: locked.email, password: "not-the-password" })).body?.cancel();
    }
    const checksBefore = checkedHashes.length;
    const cases: [string, Record<string, string>][] = [
      ["an unknown e-mail", { email: "nobody@depot.example", password: TEST_PASSWORD }],
      ["a wrong password", { email: admin.email, password: "not-the-password" }],
      ["a driver's PIN", { email: driver.email, password: TEST_PIN }],
      ["a driver's PIN in a pin field", { email: driver.email, pin: TEST_PIN }],
      ["a PIN of staff with no password", { email: pinOnly.email, password: TEST_PIN }],
      ["a deactivated admin's right password", { email: gone.email, password: TEST_PASSWORD }],
      ["a locked user's right password", { email: locked.email, password: TEST_PASSWORD }],
      ["an empty password", { email: admin.email, password: "" }],
    ];
    const answers = new Set<string>();
    for (const [what, fields] of cases) {
      const res = await post(fields);
      assert.equal(res.status, 401, what);
      assert.deepEqual(res.headers.getSetCookie(), [], what);
      const text = await pageText(res, 401);
      assert.match(text, /Wrong e-mail or password\./, what);
      answers.add(text.replaceAll(fields.email, "EMAIL"));
    }
    assert.equal(answers.size, 1, `one answer: ${[...answers].join("\n---\n")}`);
    // One check each, except the lock, which checks nothing: the same for a real or an unknown e-mail.
    assert.equal(checkedHashes.length - checksBefore, cases.length - 1);
    assert.deepEqual(await a.db.selectFrom("sessions").select("user_id").execute(), []);
  },
);

appTest(
  "staff sign-in: a remembered browser is never locked by failures from elsewhere; unknown clients share one count",
  async (a) => {
    const priya = await makeStaff(a, { email: "priya@depot.example" });
    const sam = await makeStaff(a, { email: "sam@depot.example" });
    const right = { email: priya.email, password: TEST_PASSWORD, next: "/hq/parts" };
    const wrong = { email: priya.email, password: "a-wrong-guess-123" };
    // Priya's own browser: she signed in there before.
    const first = await postSignIn(a, right);
    assert.equal(first.status, 303);
    const priyasBrowser = browserCookie(first);
    // Sam's browser: remembered, but for Sam.
    const samsBrowser = browserCookie(await postSignIn(a, { ...right, email: sam.email }));

    // An attacker elsewhere fills the shared count of Priya's account.
    for (let i = 0; i < MAX_PIN_CHECKS; i++) await (await postSignIn(a, wrong)).body?.cancel();
    assert.match(await pageText(await postSignIn(a, right), 401), /Wrong e-mail or password\./);
    // A browser remembered for someone else is no different from any other client for Priya …
    assert.equal((await postSignIn(a, right, samsBrowser)).status, 401);
    // … but Priya's own browser is not locked: it has its own count.
    const mine = await postSignIn(a, right, priyasBrowser);
    assert.equal(mine.status, 303, await mine.clone().text());
    assert.equal(browserCookie(mine), priyasBrowser, "the same remembered browser, renewed");

    // Its own count locks it alone: five wrong passwords there, and the shared count, once open, still works.
    a.clock.advance(5 * 60_000);
    for (let i = 0; i < MAX_PIN_CHECKS; i++) await (await postSignIn(a, wrong, priyasBrowser)).body?.cancel();
    assert.equal((await postSignIn(a, right, priyasBrowser)).status, 401);
    assert.equal((await postSignIn(a, right)).status, 303);
  },
);

appTest(
  "staff sign-in: the remembered-browser cookie is random, HttpOnly, SameSite=Strict, __Host- outside development, only its SHA-256 stored, bound to its user",
  async (a) => {
    const priya = await makeStaff(a);
    const res = await postSignIn(a, { email: priya.email, password: TEST_PASSWORD });
    assert.equal(res.status, 303, await res.clone().text());
    const cookies = setCookies(res);
    assert.match(cookies.get("__Host-pm_session") ?? "", /; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const browser = cookies.get("__Host-pm_browser") ?? "";
    assert.match(
      browser,
      /^__Host-pm_browser=[A-Za-z0-9_-]{40,}; Max-Age=34560000; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const token = /^__Host-pm_browser=([^;]+)/.exec(browser)![1];
    const rows = await a.db.selectFrom("remembered_browsers").selectAll().execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].token_hash, hashToken(token));
    assert.equal(rows[0].user_id, priya.id);
    // The bare name counts for nothing here, like the session cookie's.
    const other = await makeStaff(a);
    for (let i = 0; i < MAX_PIN_CHECKS; i++) {
      await (await postSignIn(a, { email: priya.email, password: "a-wrong-guess-123" })).body?.cancel();
    }
    const bare = await postSignIn(a, { email: priya.email, password: TEST_PASSWORD }, `pm_browser=${token}`);
    assert.equal(bare.status, 401);
    await bare.body?.cancel();
    const right = await postSignIn(
      a,
      { email: priya.email, password: TEST_PASSWORD },
      `__Host-pm_browser=${token}`,
    );
    assert.equal(right.status, 303);
    // Another user signing in on this browser takes it over: one user per browser.
    const takeover = await postSignIn(
      a,
      { email: other.email, password: TEST_PASSWORD },
      `__Host-pm_browser=${token}`,
    );
    assert.equal(takeover.status, 303);
    const remembered = await a.db.selectFrom("remembered_browsers").select(["user_id", "token_hash"])
      .execute();
    assert.deepEqual(remembered.map((r) => r.user_id), [other.id]);
    assert.notEqual(remembered[0].token_hash, hashToken(token));
  },
  { config: { appEnv: "production", publicKey: "production-public-key" } },
);

appTest("staff sign-in: a password is checked as typed, not trimmed, and NFC-normalised", async (a) => {
  const composed = "café-au-lait-at-nine";
  const staff = await makeUser(a.db, { role: "admin", passwordHash: await hashPin(composed) });
  assert.equal((await postSignIn(a, { email: staff.email, password: ` ${composed}` })).status, 401);
  const decomposed = composed.normalize("NFD");
  assert.notEqual(decomposed, composed);
  assert.equal((await postSignIn(a, { email: staff.email, password: decomposed })).status, 303);
});
