/**
 * The dashboard's one answer to a form a use case refused (a DomainError), by the error's kind, used by
 * every HQ form handler:
 * - `not_found` of the thing the page is about (its `subject`): the 404 page, there is nothing to show;
 * - a race (StatusRaced, PlanChanged: the state moved while the user was looking): 409, the page shows the
 *   state now and drops what was typed, which was meant for the old state;
 * - `credentials`, `locked`: 401, the sign-in page again;
 * - anything else (`invalid`, `refused`, `conflict`, a `not_found` row of a list …): 422, the page again
 *   with the message and what was typed.
 * An error that is not a DomainError is a bug: rethrown for the app's error handler.
 */
import { DomainError, type ErrorKind } from "@/lib/errors.ts";
import { StatusRaced } from "@/lib/part_status.ts";
import { PlanChanged } from "@/lib/run_plan.ts";
import type { Notice } from "@/components/hq/ui.tsx";
import { type HqContext, notFoundPage } from "@/components/hq/page.tsx";

export interface Refusal {
  status: 401 | 409 | 422;
  notice: Notice;
  /** Whether the form keeps what was typed. */
  keepInput: boolean;
}

const STATUS: Record<ErrorKind, 401 | 422> = {
  invalid: 422,
  not_found: 422,
  nothing_to_move: 422,
  conflict: 422,
  refused: 422,
  credentials: 401,
  locked: 401,
};

/**
 * Answers `error` for a page: `show` renders the page again with the refusal; `subject` names what the page
 * is about (e.g. "part"), when it is about one thing whose absence is a 404.
 */
export function answerRefusal(
  c: HqContext,
  error: unknown,
  page: { subject?: string; show: (refusal: Refusal) => Promise<Response> },
): Promise<Response> {
  if (!(error instanceof DomainError)) throw error;
  if (error.kind === "not_found" && page.subject) return notFoundPage(c, page.subject);
  const notice: Notice = { kind: "error", text: error.message };
  if (error instanceof StatusRaced || error instanceof PlanChanged) {
    return page.show({ status: 409, notice, keepInput: false });
  }
  return page.show({ status: STATUS[error.kind], notice, keepInput: true });
}
