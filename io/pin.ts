/**
 * PIN hashing: PBKDF2-SHA256 with a random salt, stored as `pbkdf2$<iterations>$<salt>$<hash>` (base64url).
 * A 4–8 digit PIN has little entropy, so the real protection is the lockout after five wrong tries (D23);
 * the hash keeps a stolen database from handing out PINs directly.
 */
import { secureEquals } from "@/io/secure_compare.ts";
import { base64url as b64 } from "@/io/tokens.ts";

const ITERATIONS = 100_000;
const unb64 = (s: string) =>
  Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

async function derive(pin: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(pin), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

export async function hashPin(pin: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `pbkdf2$${ITERATIONS}$${b64(salt)}$${b64(await derive(pin, salt, ITERATIONS))}`;
}

export async function verifyPin(pin: string, stored: string | null): Promise<boolean> {
  const [scheme, iterations, salt, hash] = (stored ?? "").split("$");
  if (scheme !== "pbkdf2" || !hash) {
    // Spend the same time on a user without a PIN, so timing does not tell which users have one.
    await derive(pin, new Uint8Array(16), ITERATIONS);
    return false;
  }
  const actual = await derive(pin, unb64(salt), Number(iterations));
  return secureEquals(b64(actual), hash);
}

export const PIN_PATTERN = /^\d{4,8}$/;
