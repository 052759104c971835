/**
 * PIN guesses sent all at once (docs/sign-in.md "PIN checks"). 30 sign-ins for one user fire together over
 * real HTTP (rate limits off, as in every test), 29 wrong PINs and the right one 10th; on the dashboard the
 * same with passwords, from an unknown client and from the user's own remembered browser (each its own
 * count: docs/sign-in.md "Remembered browsers"). Every PIN or password check is counted through the app's
 * `checkPin` hook. At most 5 may be checked and no session may open: the checks are reserved in one
 * statement before any secret is verified (lib/pin_attempts.ts). The code before that rule read the lock,
 * verified, then counted, so all 30 were checked and the right one signed in.
 * Runs on PGlite and on the PostgreSQL server (real concurrent connections); the server run fails, not
 * vanishes, on CI without TEST_DATABASE_URL (serverAppTest).
 */
import assert from "node:assert/strict";
import { verifyPin } from "@/io/pin.ts";
import { enrolDevice } from "@/lib/devices.ts";
import { MAX_PIN_CHECKS } from "@/lib/pin_attempts.ts";
import { createApp } from "@/main.ts";
import { deviceCookie } from "@/routes/web/device.ts";
import { appTest, serverAppTest, type TestApp } from "@/testkit/app.ts";
import { makeStaff, postSignIn, TEST_PASSWORD, withAssets } from "@/tests/helpers/hq.ts";
import { makeDriver, TEST_PIN } from "@/tests/helpers/tablet.ts";
import { serveApp } from "@/testkit/browser.ts";
import { waitFor, within } from "@/tests/helpers/races.ts";

const GUESSES = 30;
const RIGHT_AT = 9;

/**
 * A sign-in form: the right secret (PIN or password), the i-th wrong one, and the request sending one.
 * The secrets sent: distinct wrong ones, and the right one 10th.
 */
interface Form {
  right: string;
  wrong: (i: number) => string;
  request: (secret: string) => { path: string; fields: Record<string, string>; cookie?: string };
}
const secretsOf = (form: Form) =>
  Array.from({ length: GUESSES }, (_, i) => i === RIGHT_AT ? form.right : form.wrong(i));

/** Every wait of this test fails after this, instead of hanging CI on a regression (a check that never comes). */
const FAIL_AFTER_MS = 30_000;

/**
 * Serves the test's app with a counting `checkPin` and sends one sign-in per PIN; returns the HTTP statuses,
 * the PINs checked and the sessions opened.
 * - `all`: the 30 requests leave at once; the server decides their order.
 * - `held`: the worst case made certain. Every PIN check is held until each request that is not being
 *   checked has been answered, so all 30 are in flight together; the right PIN leaves only once five checks
 *   are under way (without that, on the server it may arrive first and rightly sign in).
 */
async function guess(a: TestApp, form: Form, mode: "all" | "held") {
  await withAssets();
  const checked: string[] = [];
  let answered = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const app = createApp({
    db: a.db,
    config: a.config,
    clock: a.clock,
    storage: a.storage,
    checkPin: async (pin, stored) => {
      checked.push(pin);
      if (mode === "held") await gate;
      return await verifyPin(pin, stored);
    },
  });
  const served = serveApp(app);
  const pins = secretsOf(form);
  const send = async (pin: string) => {
    const { path, fields, cookie } = form.request(pin);
    const res = await fetch(`${served.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
    await res.body?.cancel();
    answered++;
    return res.status;
  };
  try {
    let answers: Promise<number>[];
    if (mode === "all") answers = pins.map(send);
    else {
      answers = pins.slice(0, RIGHT_AT).map(send);
      await waitFor(
        () => checked.length >= MAX_PIN_CHECKS,
        FAIL_AFTER_MS,
        `${MAX_PIN_CHECKS} checks held`,
        2,
      );
      answers.push(...pins.slice(RIGHT_AT).map(send));
      await waitFor(
        () => answered + checked.length >= GUESSES,
        FAIL_AFTER_MS,
        "every other sign-in answered",
        2,
      );
      release();
    }
    const statuses = await within(Promise.all(answers), FAIL_AFTER_MS, `the ${GUESSES} sign-ins' answers`);
    const sessions = await a.db.selectFrom("sessions").select("user_id").execute();
    console.log(`${a.kind}, ${mode}: ${GUESSES} sign-ins, ${checked.length} secrets checked`);
    return { statuses, checked, sessions };
  } finally {
    release();
    await served.close();
  }
}

/** At most 5 PINs checked; a session only if the right PIN was one of them (it may come first). */
async function assertBound(a: TestApp, form: Form) {
  const r = await guess(a, form, "all");
  assert.ok(r.checked.length <= MAX_PIN_CHECKS, `${r.checked.length} PINs checked: ${r.checked}`);
  const right = r.checked.includes(form.right);
  assert.equal(r.sessions.length, right ? 1 : 0, `checked ${r.checked}, sessions ${r.sessions.length}`);
  assert.equal(r.statuses.filter((s) => s === 303).length, right ? 1 : 0, `answers: ${r.statuses}`);
}

/** All 30 in flight, the right PIN 10th: exactly 5 checked, the right one refused unchecked, no session. */
async function assertHeld(a: TestApp, form: Form) {
  const r = await guess(a, form, "held");
  assert.equal(r.checked.length, MAX_PIN_CHECKS, `PINs checked: ${r.checked}`);
  assert.ok(!r.checked.includes(form.right), "the right secret, sent 10th during the lock, was not checked");
  assert.deepEqual(r.sessions, [], "no session opened");
  assert.ok(r.statuses.every((s) => s === 401), `answers: ${r.statuses}`);
}

async function tabletForm(a: TestApp): Promise<Form> {
  const dana = await makeDriver(a);
  const { token } = await enrolDevice(a.db, a.clock, { name: "Bay 1", enrolledBy: null });
  const cookie = `${deviceCookie(a.config).name}=${token}`;
  return {
    right: TEST_PIN,
    wrong: (i) => String(1000 + i),
    request: (pin) => ({
      path: "/tablet/sign-in",
      fields: { user_id: String(dana.id), pin, next: "/tablet" },
      cookie,
    }),
  };
}

/** The dashboard from a client Priya never signed in on (the shared count), or from her own browser. */
async function dashboardForm(a: TestApp, where: "unknown" | "remembered" = "unknown"): Promise<Form> {
  const priya = await makeStaff(a);
  let cookie: string | undefined;
  if (where === "remembered") {
    const first = await postSignIn(a, { email: priya.email, password: TEST_PASSWORD });
    assert.equal(first.status, 303);
    cookie = first.headers.getSetCookie().find((c) => c.startsWith("pm_browser="))!.split(";")[0];
    await a.db.deleteFrom("sessions").execute();
  }
  return {
    right: TEST_PASSWORD,
    wrong: (i) => `not-the-password-${i}`,
    request: (password) => ({
      path: "/hq/sign-in",
      fields: { email: priya.email, password, next: "/hq" },
      cookie,
    }),
  };
}

const CASES: [string, (a: TestApp) => Promise<void>][] = [
  [
    "sign-in at once: 30 PIN guesses in flight on a tablet, the right one 10th: 5 PINs checked, no session",
    async (a) => await assertHeld(a, await tabletForm(a)),
  ],
  [
    "sign-in at once: 30 password guesses in flight on the dashboard, the right one 10th: 5 checked, no session",
    async (a) => await assertHeld(a, await dashboardForm(a)),
  ],
  [
    "sign-in at once: 30 password guesses in flight from the user's remembered browser: 5 checked, no session",
    async (a) => await assertHeld(a, await dashboardForm(a, "remembered")),
  ],
  [
    "sign-in at once: 30 PIN guesses sent together on a tablet: at most 5 PINs checked",
    async (a) => await assertBound(a, await tabletForm(a)),
  ],
  [
    "sign-in at once: 30 password guesses sent together on the dashboard: at most 5 checked",
    async (a) => await assertBound(a, await dashboardForm(a)),
  ],
];
for (const [name, fn] of CASES) {
  appTest(name, fn, { only: "pglite" });
  serverAppTest(name, fn);
}
