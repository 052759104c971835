/**
 * The mobile faces' answer shapes (docs/protocol.md "Common", D7, D8) and the handler's one mapping of errors:
 * a domain error of any kind is a rule failure inside the envelope, so the phone shows its text.
 */
import { DomainError } from "@/lib/errors.ts";
import { CODE } from "@/routes/api/codes.ts";

export const success = (data: unknown) => ({ result: { data, status: "success" }, code: CODE.ok });

/** A rule or validation failure: HTTP 200, message in `result.text` (D8). */
export const failure = (text: string) => ({ result: { status: "failure", text }, code: CODE.ok });

/** A transport or service fault outside the envelope, sent with its own HTTP status. */
export const fault = (code: number, message: string) => ({ code, message });

/**
 * The handler's answer to an error its event threw: every kind of domain error (invalid, not found,
 * nothing to move, conflict, refused, …) is a failure with the error's text at HTTP 200, because clients
 * built on the original platform treat non-2xx as a network fault (D8). Anything else is not ours to
 * answer: null, and the caller rethrows it to the app's onError (503 without internals).
 */
export function envelopeOf(error: unknown): ReturnType<typeof failure> | null {
  return error instanceof DomainError ? failure(error.message) : null;
}
