/** io/totp.ts against the RFC's own test vectors (RFC 4226 appendix D, RFC 6238 appendix B). */
import assert from "node:assert/strict";
import { base32Decode, base32Encode, hotp, matchTotp, newTotpSecret, totpCode, totpStep } from "@/io/totp.ts";

const RFC_SECRET = new TextEncoder().encode("12345678901234567890");

Deno.test("totp: HOTP gives RFC 4226's values for counters 0 to 9", async () => {
  const expected = [
    "755224",
    "287082",
    "359152",
    "969429",
    "338314",
    "254676",
    "287922",
    "162583",
    "399871",
    "520489",
  ];
  for (const [counter, code] of expected.entries()) assert.equal(await hotp(RFC_SECRET, counter), code);
});

Deno.test("totp: TOTP-SHA1 gives RFC 6238's values (8 digits, 30-second steps)", async () => {
  const vectors: [number, string][] = [
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ];
  for (const [seconds, code] of vectors) {
    assert.equal(await hotp(RFC_SECRET, totpStep(new Date(seconds * 1000)), 8), code, `T=${seconds}`);
  }
});

Deno.test("totp: base32 round-trips; a new secret is 20 bytes", () => {
  assert.equal(base32Encode(RFC_SECRET), "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  assert.deepEqual(base32Decode("gezd gnbv gy3t qojq gezd gnbv gy3t qojq"), RFC_SECRET);
  assert.equal(base32Decode(newTotpSecret()).length, 20);
});

Deno.test("totp: a code matches its step or one either side, once, never a used or later-used step", async () => {
  const secret = newTotpSecret();
  const at = new Date("2026-11-27T10:00:10Z");
  const step = totpStep(at);
  const now = await totpCode(secret, at);
  assert.equal(await matchTotp(secret, now, at, null), step);
  assert.equal(
    await matchTotp(secret, `${now.slice(0, 3)} ${now.slice(3)}`, at, null),
    step,
    "spaces allowed",
  );
  const previous = await totpCode(secret, new Date(at.getTime() - 30_000));
  assert.equal(await matchTotp(secret, previous, at, null), step - 1);
  const old = await totpCode(secret, new Date(at.getTime() - 90_000));
  assert.equal(await matchTotp(secret, old, at, null), null, "two steps back is too old");
  assert.equal(await matchTotp(secret, now, at, step), null, "a step already used");
  assert.equal(
    await matchTotp(secret, previous, at, step),
    null,
    "an earlier step after a later one was used",
  );
  assert.equal(await matchTotp(secret, "12345", at, null), null);
});
