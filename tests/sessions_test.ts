/** lib/sessions.ts (D23): PIN sign-in, lockout after five wrong PINs, idle expiry, deactivated users. */
import assert from "node:assert/strict";
import { FakeClock } from "@/io/clock.ts";
import { DomainError } from "@/lib/errors.ts";
import { hashPin } from "@/io/pin.ts";
import {
  deleteIdleSessions,
  IDLE_TIMEOUT_MS,
  LOCKOUT_MS,
  MAX_WRONG_PINS,
  resolveSession,
  signIn,
  signOut,
} from "@/lib/sessions.ts";
import { dbTest } from "@/tests/helpers/db.ts";
import { makeUser } from "@/tests/helpers/factories.ts";

// Hashing is slow on purpose (PBKDF2); one hash serves every test of this file.
const PIN = "4821";
const pinHash = hashPin(PIN);

async function rejects(promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainError, `expected a DomainError, got ${error}`);
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

dbTest("sessions: the right PIN opens a session that resolves to the user", async ({ db }) => {
  const clock = new FakeClock();
  const user = await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
  const { token, user: signedIn } = await signIn(db, clock, { email: " Dana@Depot.example ", pin: PIN });
  assert.equal(signedIn.id, user.id);
  const session = await resolveSession(db, clock, token);
  assert.equal(session?.user.id, user.id);
  assert.ok(session.csrfToken.length >= 32);
  assert.equal(session.expiresAt.getTime(), clock.now().getTime() + IDLE_TIMEOUT_MS);
  // Only the token's hash is stored.
  const rows = await db.selectFrom("sessions").selectAll().execute();
  assert.equal(rows.length, 1);
  assert.notEqual(rows[0].token_hash, token);
});

dbTest("sessions: a wrong PIN and an unknown e-mail get the same message", async ({ db }) => {
  const clock = new FakeClock();
  await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
  await rejects(signIn(db, clock, { email: "dana@depot.example", pin: "0000" }), "Wrong e-mail or PIN.");
  await rejects(signIn(db, clock, { email: "nobody@depot.example", pin: PIN }), "Wrong e-mail or PIN.");
  assert.equal((await db.selectFrom("sessions").selectAll().execute()).length, 0);
});

dbTest(
  "sessions: the fifth wrong PIN locks the user for 5 minutes, even with the right PIN",
  async ({ db }) => {
    const clock = new FakeClock();
    await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
    const wrong = () => signIn(db, clock, { email: "dana@depot.example", pin: "0000" });
    for (let i = 1; i < MAX_WRONG_PINS; i++) await rejects(wrong(), "Wrong e-mail or PIN.");
    await rejects(wrong(), "Too many wrong PINs. Try again in 5 minutes.");
    await rejects(signIn(db, clock, { email: "dana@depot.example", pin: PIN }), /^Too many wrong PINs/);
    clock.advance(LOCKOUT_MS - 60_000 + 1);
    await rejects(
      signIn(db, clock, { email: "dana@depot.example", pin: PIN }),
      "Too many wrong PINs. Try again in 1 minute.",
    );
    clock.advance(60_000);
    const { token } = await signIn(db, clock, { email: "dana@depot.example", pin: PIN });
    assert.ok(await resolveSession(db, clock, token));
  },
);

dbTest("sessions: a successful sign-in resets the count of wrong PINs", async ({ db }) => {
  const clock = new FakeClock();
  await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
  const attempt = (pin: string) => signIn(db, clock, { email: "dana@depot.example", pin });
  for (let i = 1; i < MAX_WRONG_PINS; i++) await rejects(attempt("0000"), "Wrong e-mail or PIN.");
  await attempt(PIN);
  // Four more wrong PINs do not lock: the count started again.
  for (let i = 1; i < MAX_WRONG_PINS; i++) await rejects(attempt("0000"), "Wrong e-mail or PIN.");
  await attempt(PIN);
});

dbTest("sessions: a session ends after 10 minutes idle; activity keeps it alive", async ({ db }) => {
  const clock = new FakeClock();
  await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
  const { token } = await signIn(db, clock, { email: "dana@depot.example", pin: PIN });
  // Used every 9 minutes for half an hour: still signed in.
  for (let i = 0; i < 3; i++) {
    clock.advance(9 * 60_000);
    assert.ok(await resolveSession(db, clock, token), `still signed in after ${(i + 1) * 9} minutes`);
  }
  clock.advance(IDLE_TIMEOUT_MS);
  assert.equal(await resolveSession(db, clock, token), null);
  // The expired session is gone, not merely refused.
  assert.equal((await db.selectFrom("sessions").selectAll().execute()).length, 0);
});

dbTest("sessions: one millisecond short of the idle timeout is still signed in", async ({ db }) => {
  const clock = new FakeClock();
  await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
  const { token } = await signIn(db, clock, { email: "dana@depot.example", pin: PIN });
  clock.advance(IDLE_TIMEOUT_MS - 1);
  assert.ok(await resolveSession(db, clock, token));
});

dbTest("sessions: a deactivated user cannot sign in, and their open session ends", async ({ db }) => {
  const clock = new FakeClock();
  const user = await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
  const { token } = await signIn(db, clock, { email: "dana@depot.example", pin: PIN });
  await db.updateTable("users").set({ active: false }).where("id", "=", user.id).execute();
  assert.equal(await resolveSession(db, clock, token), null);
  await rejects(signIn(db, clock, { email: "dana@depot.example", pin: PIN }), "Wrong e-mail or PIN.");
});

dbTest("sessions: sign-out ends the session; idle sessions are swept", async ({ db }) => {
  const clock = new FakeClock();
  await makeUser(db, { email: "dana@depot.example", pinHash: await pinHash });
  const first = await signIn(db, clock, { email: "dana@depot.example", pin: PIN });
  const second = await signIn(db, clock, { email: "dana@depot.example", pin: PIN });
  await signOut(db, first.token);
  assert.equal(await resolveSession(db, clock, first.token), null);
  assert.ok(await resolveSession(db, clock, second.token));
  clock.advance(IDLE_TIMEOUT_MS);
  assert.equal(await deleteIdleSessions(db, clock), 1);
  assert.equal(await resolveSession(db, clock, second.token), null);
});

dbTest("sessions: an unknown or empty token resolves to nobody", async ({ db }) => {
  const clock = new FakeClock();
  assert.equal(await resolveSession(db, clock, ""), null);
  assert.equal(await resolveSession(db, clock, "not-a-token"), null);
});
