/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP), as authenticator apps make them: HMAC-SHA1,
 * 6 digits, 30-second steps, secrets of 20 random bytes shown in base32 (RFC 4648, no padding). Used for the
 * admins' second factor (docs/sign-in.md "Two-factor sign-in for admins").
 */
import { secureEquals } from "@/io/secure_compare.ts";

export const TOTP_STEP_S = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now that are accepted: a phone's clock a little off, a code typed as it turns. */
const DRIFT_STEPS = 1;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Uint8Array {
  const clean = text.toUpperCase().replace(/[\s=]/g, "");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error("not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** A new secret: 20 random bytes (RFC 4226's recommended length), in base32. */
export function newTotpSecret(): string {
  return base32Encode(crypto.getRandomValues(new Uint8Array(20)));
}

/** The step a time falls in. */
export const totpStep = (at: Date) => Math.floor(at.getTime() / 1000 / TOTP_STEP_S);

/** RFC 4226 HOTP of a counter, `digits` long (RFC 6238's test vectors use 8). */
export async function hotp(secret: Uint8Array, counter: number, digits = TOTP_DIGITS): Promise<string> {
  const message = new Uint8Array(8);
  new DataView(message.buffer).setBigUint64(0, BigInt(counter));
  const key = await crypto.subtle.importKey(
    "raw",
    secret as BufferSource,
    { name: "HMAC", hash: "SHA-1" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) |
    mac[offset + 3];
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The code of a base32 secret at a time. */
export async function totpCode(secret: string, at: Date): Promise<string> {
  return await hotp(base32Decode(secret), totpStep(at));
}

/**
 * The step a typed code belongs to (now, or one step either side), or null when it is none of them. Only
 * steps after `usedStep` count: a code is accepted once (RFC 6238 section 5.2), the caller records the step.
 */
export async function matchTotp(
  secret: string,
  code: string,
  at: Date,
  usedStep: number | null,
): Promise<number | null> {
  const typed = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(typed)) return null;
  const key = base32Decode(secret);
  const now = totpStep(at);
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    if (usedStep !== null && step <= usedStep) continue;
    if (secureEquals(await hotp(key, step), typed)) return step;
  }
  return null;
}

/** The otpauth:// URI an authenticator app reads (typed in, or pasted), naming the service and the user. */
export function otpauthUri(secret: string, account: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const params = new URLSearchParams({ secret, issuer, algorithm: "SHA1", digits: "6", period: "30" });
  return `otpauth://totp/${label}?${params}`;
}
