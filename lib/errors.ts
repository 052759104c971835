/**
 * Domain errors carry a kind beside the exact user-facing text of the protocol and the decisions
 * (docs/protocol.md, docs/decisions.md). Use cases throw them; each face maps the kind to its own answer in
 * one place (handler envelope, upload codes, tablet JSON, dashboard pages). No code reads the text to decide.
 */

/**
 * - `invalid`: the input does not fit (D9, or a form value a rule refuses);
 * - `not_found`: the thing named (rego, claim, part, user, trip, place) does not exist;
 * - `nothing_to_move`: the claim exists but none of its parts is in the state the job needs;
 * - `conflict`: the current state refuses it (raced, no longer available, already taken, duplicate name);
 * - `refused`: a rule refuses it whatever the timing (photo missing, wrong claim, not allowed);
 * - `credentials`: wrong e-mail or PIN;
 * - `locked`: too many wrong PINs; try later.
 */
export type ErrorKind =
  | "invalid"
  | "not_found"
  | "nothing_to_move"
  | "conflict"
  | "refused"
  | "credentials"
  | "locked";

export class DomainError extends Error {
  /** The part the message is about, so a page can show it next to that part. */
  readonly partId: number | undefined;
  constructor(readonly kind: ErrorKind, message: string, partId?: number) {
    super(message);
    this.name = "DomainError";
    this.partId = partId;
  }
}

/** Input that does not fit the schema: `Invalid request: <path> <problem>.` (D9). */
export class ValidationError extends DomainError {
  constructor(path: string, problem: string) {
    super("invalid", `Invalid request: ${path} ${problem}.`);
    this.name = "ValidationError";
  }
}
