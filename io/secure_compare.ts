/** Constant-time comparison of secrets (public key, tokens, PIN hashes): no early exit on the first difference. */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

export function secureEquals(a: string, b: string): boolean {
  // Comparing fixed-length digests keeps the secret's length from leaking through timing too.
  return timingSafeEqual(digest(a), digest(b));
}

const encoder = new TextEncoder();

/**
 * `secureEquals` against one fixed secret (the handler checks its public key on every call), without a
 * digest per call: hashing the candidate through node:crypto was ~20 µs of a search (docs/performance.md
 * "Search path"). The loop always runs over the secret's own bytes, whatever the candidate, so its time
 * depends on nothing the candidate could learn (not even the secret's length); a length mismatch only sets a
 * bit of the result.
 */
export function secretMatcher(secret: string): (candidate: string) => boolean {
  const expected = encoder.encode(secret);
  return (candidate) => {
    const sent = encoder.encode(candidate);
    let difference = sent.length ^ expected.length;
    // Past the candidate's end, `sent[i]` is undefined: `^` reads it as 0, still one step per secret byte.
    for (let i = 0; i < expected.length; i++) difference |= expected[i] ^ sent[i];
    return difference === 0;
  };
}

/**
 * `secretMatcher` for several secrets at once (the public key and the one before it while a rotation runs,
 * docs/operations.md "Rotating the public key"): every secret is compared on every call, without stopping
 * at the first that matches, so the time says nothing about which one (if any) the candidate is.
 */
export function anySecretMatcher(secrets: readonly string[]): (candidate: string) => boolean {
  const matchers = secrets.map(secretMatcher);
  return (candidate) => {
    let matched = false;
    for (const matches of matchers) matched = matches(candidate) || matched;
    return matched;
  };
}
