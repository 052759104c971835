/**
 * Domain errors carry the exact user-facing text of interface.md / decisions.md. Use cases throw them;
 * each face (handler envelope, upload API, tablet page, dashboard) maps them to its own answer.
 */
export class DomainError extends Error {
  /** The part the message is about, so a page can show it next to that part. */
  readonly partId: number | undefined;
  constructor(message: string, partId?: number) {
    super(message);
    this.name = "DomainError";
    this.partId = partId;
  }
}

/** Input that does not fit the schema: `Invalid request: <path> <problem>.` (D9). */
export class ValidationError extends DomainError {
  constructor(path: string, problem: string) {
    super(`Invalid request: ${path} ${problem}.`);
    this.name = "ValidationError";
  }
}
