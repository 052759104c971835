/** Constant-time comparison of secrets (public key, tokens, PIN hashes): no early exit on the first difference. */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

export function secureEquals(a: string, b: string): boolean {
  // Comparing fixed-length digests keeps the secret's length from leaking through timing too.
  return timingSafeEqual(digest(a), digest(b));
}

/** `secureEquals` against one fixed secret, whose digest is computed once (the handler checks every call). */
export function secretMatcher(secret: string): (candidate: string) => boolean {
  const expected = digest(secret);
  return (candidate) => timingSafeEqual(digest(candidate), expected);
}
