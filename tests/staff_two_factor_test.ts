/**
 * Two-factor sign-in for admins (lib/admin/two_factor.ts, lib/staff_sign_in.ts, routes/hq/admin_two_factor.tsx;
 * docs/sign-in.md "Two-factor sign-in for admins"): set up with a first code, then asked at every sign-in,
 * each code accepted once, a wrong or missing one answered as any failure; another admin can remove it.
 */
import assert from "node:assert/strict";
import { totpCode, totpStep } from "@/io/totp.ts";
import { base32Decode, hotp } from "@/io/totp.ts";
import { appTest } from "@/testkit/app.ts";
import { makeStaff, pageText, postSignIn, signedIn, TEST_PASSWORD } from "@/tests/helpers/hq.ts";

/** A 6-digit code that is none of the secret's codes of now and the steps either side. */
async function wrongCode(secret: string, at: Date): Promise<string> {
  const step = totpStep(at);
  const near = await Promise.all([-1, 0, 1].map((d) => hotp(base32Decode(secret), step + d)));
  for (let n = 0;; n++) {
    const code = String(n).padStart(6, "0");
    if (!near.includes(code)) return code;
  }
}

appTest(
  "two-factor: an admin turns it on with a first code; sign-in then needs the code of the moment, once, and a wrong or missing one answers as any failure",
  async (a) => {
    const admin = await makeStaff(a, { role: "admin", email: "al@depot.example" });
    const al = await signedIn(a, "admin", admin);
    assert.match(await pageText(await al.get("/hq/admin/two-factor")), /Two-factor sign-in is off for you\./);
    const started = await al.post("/hq/admin/two-factor/start");
    const html = await started.text();
    assert.equal(started.status, 200);
    const secret = /data-testid="totp-secret">([A-Z2-7]{32})</.exec(html)?.[1];
    assert.ok(secret, "the page shows the secret");
    assert.match(html, /otpauth:\/\/totp\/Parts%20Movement%3Aal%40depot\.example\?secret=/);

    const refused = await al.post("/hq/admin/two-factor/confirm", {
      code: await wrongCode(secret, a.clock.now()),
    });
    assert.match(await pageText(refused, 422), /That code does not match\./);
    const on = await al.post("/hq/admin/two-factor/confirm", { code: await totpCode(secret, a.clock.now()) });
    assert.equal(on.headers.get("location"), "/hq/admin/two-factor?done=on");

    // The password alone, or with a wrong code, is one more failure, answered like a wrong password.
    const wrongPassword = await pageText(
      await postSignIn(a, { email: admin.email, password: "a-wrong-guess-123" }),
      401,
    );
    const noCode = await pageText(await postSignIn(a, { email: admin.email, password: TEST_PASSWORD }), 401);
    a.clock.advance(30_000);
    const code = await totpCode(secret, a.clock.now());
    const badCode = await pageText(
      await postSignIn(a, {
        email: admin.email,
        password: TEST_PASSWORD,
        code: await wrongCode(secret, a.clock.now()),
      }),
      401,
    );
    assert.equal(noCode, wrongPassword);
    assert.equal(badCode, wrongPassword);
    assert.match(noCode, /Wrong e-mail or password\./);
    const ok = await postSignIn(a, { email: admin.email, password: TEST_PASSWORD, code });
    assert.equal(ok.status, 303);
    // The same code again is refused (RFC 6238 5.2): a code seen over a shoulder is spent.
    assert.equal((await postSignIn(a, { email: admin.email, password: TEST_PASSWORD, code })).status, 401);
    a.clock.advance(5 * 60_000);
    const later = await totpCode(secret, a.clock.now());
    assert.equal(
      (await postSignIn(a, { email: admin.email, password: TEST_PASSWORD, code: later })).status,
      303,
    );

    // Another admin removes it (a lost phone): the password alone signs in again.
    const other = await signedIn(a, "admin");
    assert.match(
      await pageText(await other.get("/hq/admin/users")),
      /al@depot\.example .*Active, two-factor/,
    );
    const removed = await other.post(`/hq/admin/two-factor/users/${admin.id}/remove`);
    assert.equal(removed.headers.get("location"), "/hq/admin/users?done=two_factor_removed");
    a.clock.advance(5 * 60_000);
    assert.equal((await postSignIn(a, { email: admin.email, password: TEST_PASSWORD })).status, 303);

    const audit = await a.db.selectFrom("audit_log").select(["action", "after"]).where("action", "in", [
      "user.totp_set",
      "user.totp_removed",
    ])
      .orderBy("id").execute();
    assert.deepEqual(audit.map((e) => e.action), ["user.totp_set", "user.totp_removed"]);
    assert.ok(!JSON.stringify(await a.db.selectFrom("audit_log").selectAll().execute()).includes(secret));
  },
);

appTest("two-factor: only admins set it up", async (a) => {
  const dispatcher = await signedIn(a, "dispatcher");
  assert.equal((await dispatcher.post("/hq/admin/two-factor/start")).status, 403);
});
