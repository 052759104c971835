/**
 * lib/sessions.ts and lib/pin_attempts.ts (D23): PIN sign-in, the PIN-check windows and lockout,
 * idle expiry and why a session ended, deactivated users, the sweep.
 */
import assert from "node:assert/strict";
import { FakeClock } from "@/io/clock.ts";
import { DomainError } from "@/lib/errors.ts";
import { hashPin, verifyPin } from "@/io/pin.ts";
import { LOCKOUT_MS, MAX_PIN_CHECKS } from "@/lib/pin_attempts.ts";
import {
  deleteIdleSessions,
  IDLE_TIMEOUT_MS,
  resolveSession,
  signIn,
  type SignInDeps,
  signOut,
  startSessionSweep,
  type TabletClient,
} from "@/lib/sessions.ts";
import { enrolDevice, revokeDevice } from "@/lib/devices.ts";
import { dbTest } from "@/testkit/db.ts";
import { insertRememberedBrowser } from "@/db/queries/remembered_browsers.ts";
import { REMEMBERED_MS } from "@/lib/staff_sign_in.ts";
import { sql } from "kysely";
import { makeSession } from "@/tests/helpers/hq.ts";
import { hashToken } from "@/io/tokens.ts";
import { makeUser } from "@/testkit/factories.ts";
import type { Db } from "@/db/client.ts";
import { waitFor, within } from "@/tests/helpers/races.ts";

// Hashing is slow on purpose (PBKDF2); one hash serves every test of this file.
const PIN = "4821";
const pinHash = hashPin(PIN);
/**
 * The tablet of most tests (a PIN is checked only on a tablet), enrolled by `setup`: a tablet session is
 * bound to its device and counts only with the device's token (docs/sign-in.md "Sessions on a tablet").
 */
const BAY: TabletClient = { kind: "tablet", deviceId: 1_000_000 };
const BAY_TOKEN = "bay-device-token";
const EMAIL = "dana@depot.example";

/** The tablet's answer to a wrong PIN with `left` tries left. */
const wrongPin = (left: number) =>
  `Wrong PIN. ${left} ${left === 1 ? "try" : "tries"} left before a 5-minute lock.`;

async function rejects(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainError, `expected a DomainError, got ${error}`);
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

/** Signs in by e-mail on a tablet (`BAY` unless given). */
const attempt = (deps: SignInDeps, pin: string, client: TabletClient = BAY, email = EMAIL) =>
  signIn(deps, { name: { email }, pin, client });

/** Resolves a session as a request from the BAY tablet would (its device cookie's token). */
const resolveOnBay = (db: Db, clock: FakeClock, token: string) =>
  resolveSession(db, clock, token, { deviceToken: BAY_TOKEN });

async function setup(db: Db) {
  const clock = new FakeClock();
  // A fixed id (the identity column is GENERATED ALWAYS): the tests name BAY before any database exists.
  await sql`INSERT INTO devices (id, name, token_hash, enrolled_by, enrolled_at) OVERRIDING SYSTEM VALUE
    VALUES (${BAY.deviceId}, 'Bay', ${hashToken(BAY_TOKEN)}, NULL, ${clock.now()})`.execute(db);
  const user = await makeUser(db, { email: EMAIL, pinHash: await pinHash });
  return { deps: { db, clock }, clock, user };
}

async function tabletDevice(db: Db, name: string): Promise<TabletClient> {
  const row = await db.insertInto("devices").values({
    name,
    token_hash: crypto.randomUUID(),
    enrolled_by: null,
    enrolled_at: new Date(),
  }).returning("id").executeTakeFirstOrThrow();
  return { kind: "tablet", deviceId: row.id };
}

dbTest("sessions: the right PIN opens a session that resolves to the user", async ({ db }) => {
  const { deps, clock, user } = await setup(db);
  const { token, user: signedIn } = await attempt(deps, PIN, BAY, " Dana@Depot.example ");
  assert.equal(signedIn.id, user.id);
  const { session } = await resolveOnBay(db, clock, token);
  assert.equal(session?.user.id, user.id);
  assert.ok(session.csrfToken.length >= 32);
  assert.equal(session.expiresAt.getTime(), clock.now().getTime() + IDLE_TIMEOUT_MS);
  // Only the token's hash is stored.
  const rows = await db.selectFrom("sessions").selectAll().execute();
  assert.equal(rows.length, 1);
  assert.notEqual(rows[0].token_hash, token);
});

dbTest(
  "sessions: a wrong PIN and an unknown e-mail get the same answers, countdown and lock included",
  async ({ db }) => {
    const { deps } = await setup(db);
    for (const email of [EMAIL, "nobody@depot.example"]) {
      for (let i = 1; i < MAX_PIN_CHECKS; i++) {
        await rejects(attempt(deps, "0000", BAY, email), wrongPin(MAX_PIN_CHECKS - i));
      }
      await rejects(attempt(deps, "0000", BAY, email), "Too many wrong PINs. Try again in 5 minutes.");
      await rejects(attempt(deps, PIN, BAY, email), "Too many wrong PINs. Try again in 5 minutes.");
    }
    assert.equal((await db.selectFrom("sessions").selectAll().execute()).length, 0);
  },
);

dbTest(
  "sessions: the fifth wrong PIN locks the user for 5 minutes, even with the right PIN",
  async ({ db }) => {
    const { deps, clock } = await setup(db);
    const checked: string[] = [];
    const counting = {
      ...deps,
      checkPin: (pin: string, stored: string | null) => {
        checked.push(pin);
        return verifyPin(pin, stored);
      },
    };
    for (let i = 1; i < MAX_PIN_CHECKS; i++) {
      await rejects(attempt(counting, "0000"), wrongPin(MAX_PIN_CHECKS - i));
    }
    await rejects(attempt(counting, "0000"), "Too many wrong PINs. Try again in 5 minutes.");
    await rejects(attempt(counting, PIN), /^Too many wrong PINs/);
    assert.equal(checked.length, MAX_PIN_CHECKS, "the right PIN during the lock was not even checked");
    clock.advance(LOCKOUT_MS - 60_000 + 1);
    await rejects(attempt(deps, PIN), "Too many wrong PINs. Try again in 1 minute.");
    clock.advance(60_000);
    const { token } = await attempt(deps, PIN);
    assert.ok((await resolveOnBay(db, clock, token)).session);
  },
);

dbTest("sessions: on a tablet a wrong PIN says how many tries are left", async ({ db }) => {
  const { deps } = await setup(db);
  const tablet = await tabletDevice(db, "Bay 1");
  for (const left of [4, 3, 2]) {
    await rejects(attempt(deps, "0000", tablet), `Wrong PIN. ${left} tries left before a 5-minute lock.`);
  }
  await rejects(attempt(deps, "0000", tablet), "Wrong PIN. 1 try left before a 5-minute lock.");
  await rejects(attempt(deps, "0000", tablet), "Too many wrong PINs. Try again in 5 minutes.");
});

dbTest(
  "sessions: wrong PINs count per tablet: another tablet is not locked by the first one's guesses",
  async ({ db }) => {
    const { deps } = await setup(db);
    const [bay1, bay2] = [await tabletDevice(db, "Bay 1"), await tabletDevice(db, "Bay 2")];
    for (let i = 0; i < MAX_PIN_CHECKS; i++) {
      await rejects(attempt(deps, "0000", bay1), /^(Wrong PIN|Too many)/);
    }
    await rejects(attempt(deps, PIN, bay1), /^Too many wrong PINs/);
    // Another tablet is not locked by the first tablet's guesses (the dashboard's counts: staff_sign_in_test.ts).
    assert.ok((await attempt(deps, PIN, bay2)).token);
  },
);

dbTest(
  "sessions: a success gives back only its own check: earlier wrong PINs count until the window closes",
  async ({ db }) => {
    const { deps, clock } = await setup(db);
    for (let i = 1; i < MAX_PIN_CHECKS; i++) {
      await rejects(attempt(deps, "0000"), wrongPin(MAX_PIN_CHECKS - i));
    }
    await attempt(deps, PIN);
    // The four wrong PINs still count: one more wrong PIN fills the window.
    await rejects(attempt(deps, "0000"), "Too many wrong PINs. Try again in 5 minutes.");
    clock.advance(LOCKOUT_MS);
    // A window that closed is forgotten; right PINs never use up the tries.
    for (let i = 0; i < 2 * MAX_PIN_CHECKS; i++) await attempt(deps, PIN);
    for (let i = 1; i < MAX_PIN_CHECKS; i++) {
      await rejects(attempt(deps, "0000"), wrongPin(MAX_PIN_CHECKS - i));
    }
    // Four wrong PINs at the start of a window are forgotten when it closes, 5 minutes after the first.
    clock.advance(LOCKOUT_MS);
    for (let i = 1; i < MAX_PIN_CHECKS; i++) {
      await rejects(attempt(deps, "0000"), wrongPin(MAX_PIN_CHECKS - i));
    }
  },
);

dbTest(
  "sessions: a success while guesses are in flight frees only its own check (at most 5 wrong checks)",
  async ({ db }) => {
    const { deps } = await setup(db);
    // Wrong PINs are held inside their check until released, so the right PIN finishes among them.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const checked: string[] = [];
    const held = {
      ...deps,
      checkPin: async (pin: string, stored: string | null) => {
        checked.push(pin);
        if (pin !== PIN) await gate;
        return await verifyPin(pin, stored);
      },
    };
    const settle = (p: Promise<unknown>) => p.then(() => "signed in", (e) => (e as Error).message);
    const inFlight = Array.from({ length: MAX_PIN_CHECKS - 1 }, () => settle(attempt(held, "0000")));
    await waitFor(() => checked.length >= MAX_PIN_CHECKS - 1, 30_000, "four checks held", 5);
    assert.equal(await settle(attempt(held, PIN)), "signed in");
    // Four guesses hold their checks: of three more, one gets the fifth and last check.
    const more = Array.from({ length: 3 }, () => settle(attempt(held, "1111")));
    await waitFor(() => checked.length >= MAX_PIN_CHECKS + 1, 30_000, "the fifth check", 5);
    release();
    const answers = await within(Promise.all([...inFlight, ...more]), 30_000, "the guesses' answers");
    assert.equal(checked.filter((p) => p !== PIN).length, MAX_PIN_CHECKS, `checked: ${checked}`);
    assert.equal(answers.filter((m) => m.startsWith("Too many wrong PINs")).length >= 2, true, `${answers}`);
    await rejects(attempt(deps, PIN), /^Too many wrong PINs/);
  },
);

dbTest("sessions: a session ends after 10 minutes idle; activity keeps it alive", async ({ db }) => {
  const { deps, clock } = await setup(db);
  const { token } = await attempt(deps, PIN);
  // Used every 9 minutes for half an hour: still signed in.
  for (let i = 0; i < 3; i++) {
    clock.advance(9 * 60_000);
    assert.ok(
      (await resolveOnBay(db, clock, token)).session,
      `still signed in after ${(i + 1) * 9} minutes`,
    );
  }
  clock.advance(IDLE_TIMEOUT_MS);
  assert.deepEqual(await resolveOnBay(db, clock, token), { session: null, ended: "idle" });
  // The expired session is gone, not merely refused.
  assert.equal((await db.selectFrom("sessions").selectAll().execute()).length, 0);
});

dbTest("sessions: one millisecond short of the idle timeout is still signed in", async ({ db }) => {
  const { deps, clock } = await setup(db);
  const { token } = await attempt(deps, PIN);
  clock.advance(IDLE_TIMEOUT_MS - 1);
  assert.ok((await resolveOnBay(db, clock, token)).session);
});

dbTest(
  "sessions: a deactivated user cannot sign in, and their open session ends, not for inactivity",
  async ({ db }) => {
    const { deps, clock, user } = await setup(db);
    const { token } = await attempt(deps, PIN);
    await db.updateTable("users").set({ active: false }).where("id", "=", user.id).execute();
    assert.deepEqual(await resolveOnBay(db, clock, token), { session: null, ended: "ended" });
    await rejects(attempt(deps, PIN), wrongPin(MAX_PIN_CHECKS - 1));
  },
);

dbTest("sessions: sign-out ends the session; idle sessions are swept", async ({ db }) => {
  const { deps, clock } = await setup(db);
  const first = await attempt(deps, PIN);
  const second = await attempt(deps, PIN);
  await signOut(db, first.token);
  assert.deepEqual(await resolveOnBay(db, clock, first.token), { session: null, ended: "ended" });
  assert.ok((await resolveOnBay(db, clock, second.token)).session);
  clock.advance(IDLE_TIMEOUT_MS);
  assert.equal(await deleteIdleSessions(db, clock), 1);
  assert.equal((await resolveOnBay(db, clock, second.token)).session, null);
});

dbTest(
  "sessions: the server's sweep deletes idle sessions, closed PIN windows and forgotten browsers",
  async ({ db }) => {
    const { deps, clock, user } = await setup(db);
    // A browser remembered since before its cookie's lifetime, and one used just inside it.
    const at = (msAgo: number) => new Date(clock.now().getTime() + IDLE_TIMEOUT_MS - msAgo);
    await insertRememberedBrowser(db, { tokenHash: "old", userId: user.id, at: at(REMEMBERED_MS + 1) });
    await insertRememberedBrowser(db, { tokenHash: "kept", userId: user.id, at: at(REMEMBERED_MS - 60_000) });
    await attempt(deps, PIN);
    await rejects(attempt(deps, "0000", BAY, "nobody@depot.example"), wrongPin(MAX_PIN_CHECKS - 1));
    const fresh = await (async () => {
      clock.advance(IDLE_TIMEOUT_MS - 60_000);
      return await attempt(deps, PIN);
    })();
    clock.advance(60_000);
    const lines: string[] = [];
    const sweep = startSessionSweep(deps, { firstDelayMs: 0, intervalMs: 20, log: (l) => lines.push(l) });
    try {
      await waitFor(() => lines.length > 0, 30_000, "the sweep's line");
    } finally {
      await sweep.stop();
    }
    assert.equal(lines[0], "sweep: 1 idle sessions, 1 closed PIN windows, 1 forgotten browsers removed");
    assert.deepEqual(await db.selectFrom("remembered_browsers").select("token_hash").execute(), [{
      token_hash: "kept",
    }]);
    const left = await db.selectFrom("sessions").select("token_hash").execute();
    assert.equal(left.length, 1, "the session used a minute ago stays");
    assert.ok((await resolveOnBay(db, clock, fresh.token)).session);
    // Left: the window the latest sign-in opened (still open, its check given back).
    assert.deepEqual(await db.selectFrom("pin_attempts").select("checks").execute(), [{ checks: 0 }]);
  },
);

dbTest("sessions: an unknown or empty token resolves to nobody", async ({ db }) => {
  const clock = new FakeClock();
  assert.equal((await resolveOnBay(db, clock, "")).session, null);
  assert.equal((await resolveOnBay(db, clock, "not-a-token")).session, null);
});

dbTest(
  "sessions: a tablet session counts only with its own device's token; revoking the device ends it",
  async ({ db }) => {
    const { deps, clock, user } = await setup(db);
    const bay1 = await enrolDevice(db, clock, { name: "Bay 1", enrolledBy: null });
    const bay2 = await enrolDevice(db, clock, { name: "Bay 2", enrolledBy: null });
    const { token } = await attempt(deps, PIN, { kind: "tablet", deviceId: bay1.device.id });
    const row = await db.selectFrom("sessions").select("device_id").executeTakeFirstOrThrow();
    assert.equal(row.device_id, bay1.device.id, "bound to the tablet it was opened on");

    assert.ok((await resolveSession(db, clock, token, { deviceToken: bay1.token })).session);
    // Without its device's token, or with another device's: refused, and kept for the tablet itself.
    assert.deepEqual(await resolveSession(db, clock, token), { session: null, ended: "ended" });
    assert.deepEqual(await resolveSession(db, clock, token, { deviceToken: bay2.token }), {
      session: null,
      ended: "ended",
    });
    assert.ok((await resolveSession(db, clock, token, { deviceToken: bay1.token })).session);

    // A dashboard session is bound to nothing: valid with or without a device cookie.
    const dashboard = await makeSession(db, user.id, clock.now());
    assert.ok((await resolveSession(db, clock, dashboard.token)).session);
    assert.ok((await resolveSession(db, clock, dashboard.token, { deviceToken: bay2.token })).session);

    await revokeDevice(db, bay1.device.id, user.id);
    assert.deepEqual(await resolveSession(db, clock, token, { deviceToken: bay1.token }), {
      session: null,
      ended: "revoked",
    });
    const left = await db.selectFrom("sessions").select("device_id").execute();
    assert.deepEqual(left, [{ device_id: null }], "the tablet's session is deleted, the dashboard's kept");
  },
);
