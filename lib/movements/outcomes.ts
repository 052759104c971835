/**
 * Every submission counts its outcome in the metrics (docs/operations.md "Metrics"), whichever face calls
 * it: recorded (a D16 replay too), the kind of the domain error that refused it, or `error`. Input that a
 * face's schema refused never reaches a use case, and an unknown user (D13's first check) is not a
 * submission here, so neither is counted.
 */
import { DomainError } from "@/lib/errors.ts";
import type { MovementDeps } from "@/lib/movements/checks.ts";
import { type Actor, UnknownUserError } from "@/lib/users.ts";

/** The metric's `event_type` label: the protocol's name of the submission (bounded, known to operators). */
export type SubmissionName = "parts_drop_off" | "parts_pick_up_reverse" | "parts_drop_off_reverse";

/** `run`, counting each call's outcome under `name`. */
export function countedSubmission<I, R>(
  name: SubmissionName,
  run: (deps: MovementDeps, actor: Actor, input: I) => Promise<R>,
): (deps: MovementDeps, actor: Actor, input: I) => Promise<R> {
  return async (deps, actor, input) => {
    try {
      const result = await run(deps, actor, input);
      deps.metrics?.submission(name, "recorded");
      return result;
    } catch (error) {
      if (error instanceof UnknownUserError) throw error;
      deps.metrics?.submission(name, error instanceof DomainError ? error.kind : "error");
      throw error;
    }
  };
}
