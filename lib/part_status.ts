/**
 * Part status changes made by a dispatcher on the HQ dashboard (D6, D24). The allowed changes are the one
 * table below; the dashboard shows exactly these as buttons and this use case refuses anything else.
 *
 * Races: the change is a conditional `UPDATE … WHERE id = … AND status = <the status the dispatcher saw>`.
 * When a driver's submission (or another dispatcher) moved the part in between, nothing is written and the
 * dispatcher reads `<Part No.> changed to <actual> while you were looking; nothing was changed.`
 *
 * Open return trips: a part `Picked Up from Repair Shop` that is on a reverse movement still `Parts Picked
 * Up` is on a truck; its status belongs to that trip and changes only when the driver drops it off at HQ
 * (D20). Moving it back from the dashboard would leave the trip waiting for a part that is no longer
 * "awaiting return", so it could never complete. The dashboard therefore refuses any change of such a part
 * (checked inside the transaction, after the part's row is locked by the UPDATE).
 */
import type { Db } from "@/db/client.ts";
import type { PartStatus } from "@/db/schema.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import { insertHistoryRow } from "@/db/queries/history.ts";
import { openReturnTripOf } from "@/db/queries/movements.ts";
import { changePartStatusIf, partStatusNow } from "@/db/queries/parts.ts";
import type { Clock } from "@/io/clock.ts";
import { DomainError } from "@/lib/errors.ts";
import { cleanFreeText } from "@/lib/validation.ts";

export interface DispatcherTransition {
  from: PartStatus;
  to: PartStatus;
  /** The button's label on the part's page. */
  label: string;
  /** A correction undoes a mistake: it needs a reason, which the history keeps. */
  correction: boolean;
}

/** Every status change a dispatcher may make. Nothing else is allowed from the dashboard. */
export const DISPATCHER_TRANSITIONS: readonly DispatcherTransition[] = [
  // Day-to-day steering.
  { from: "Ordered", to: "Arrived", label: "Mark arrived at HQ", correction: false },
  { from: "Arrived", to: "Pending Repair Shop Pick-Up", label: "Flag for pick-up", correction: false },
  { from: "Pending Repair Shop Pick-Up", to: "Arrived", label: "Unflag: back to Arrived", correction: false },
  {
    from: "Delivered to Repair Shop directly",
    to: "Pending Repair Shop Pick-Up",
    label: "Flag for return from the repair shop",
    correction: false,
  },
  // Corrections of a mistaken state (reason required).
  { from: "Arrived", to: "Ordered", label: "Correct: not arrived yet", correction: true },
  {
    from: "Pending Repair Shop Pick-Up",
    to: "Delivered to Repair Shop directly",
    label: "Correct: stays at the repair shop",
    correction: true,
  },
  {
    from: "Delivered to Repair Shop directly",
    to: "Arrived",
    label: "Correct: never left HQ",
    correction: true,
  },
  {
    from: "Picked Up from Repair Shop",
    to: "Pending Repair Shop Pick-Up",
    label: "Correct: not picked up",
    correction: true,
  },
];

/** The changes offered for a part in `status`, in table order. */
export function transitionsFrom(status: PartStatus): DispatcherTransition[] {
  return DISPATCHER_TRANSITIONS.filter((t) => t.from === status);
}

export function findTransition(from: string, to: string): DispatcherTransition | undefined {
  return DISPATCHER_TRANSITIONS.find((t) => t.from === from && t.to === to);
}

export const REASON_MAX = 500;

export interface StatusChangeInput {
  partId: number;
  /** The status the dispatcher saw when the page was drawn. */
  from: string;
  to: string;
  reason?: string | null;
  userId: number;
}

export interface StatusChangeResult {
  partId: number;
  partNo: string;
  from: PartStatus;
  to: PartStatus;
  historyId: number;
}

/** Thrown when the part moved under the dispatcher: nothing was written. */
export class StatusRaced extends DomainError {
  constructor(partNo: string, readonly actual: PartStatus, partId: number) {
    super("conflict", `${partNo} changed to ${actual} while you were looking; nothing was changed.`, partId);
    this.name = "StatusRaced";
  }
}

/**
 * Changes a part's status if the table allows it and the part still has the status the dispatcher saw;
 * writes the history row (via `dashboard`, with the reason and the user) in the same transaction.
 */
export async function changeStatusByDispatcher(
  db: Db,
  clock: Clock,
  input: StatusChangeInput,
): Promise<StatusChangeResult> {
  const transition = findTransition(input.from, input.to);
  if (!transition) {
    throw new DomainError(
      "refused",
      `A part cannot be changed from ${input.from} to ${input.to} on the dashboard.`,
    );
  }
  // Free text (lib/validation.ts): line breaks kept, bidi controls stripped, other controls refused.
  const cleaned = cleanFreeText(input.reason ?? "");
  if (cleaned === null) {
    throw new DomainError("invalid", "The reason must not contain control characters.", input.partId);
  }
  const reason = cleaned.trim() || null;
  if (transition.correction && !reason) {
    throw new DomainError("invalid", "Give a reason for this correction.", input.partId);
  }
  if (reason && reason.length > REASON_MAX) {
    throw new DomainError("invalid", `Keep the reason under ${REASON_MAX} characters.`, input.partId);
  }
  const now = clock.now();
  return await db.transaction().execute(async (tx) => {
    const updated = await changePartStatusIf(tx, input.partId, transition.from, transition.to, now);
    if (!updated) {
      const actual = await partStatusNow(tx, input.partId);
      if (!actual) throw new DomainError("not_found", "Part not found.");
      throw new StatusRaced(actual.part_no, actual.status, input.partId);
    }
    if (transition.from === "Picked Up from Repair Shop") {
      const trip = await openReturnTripOf(tx, input.partId);
      if (trip !== null) {
        throw new DomainError(
          "conflict",
          `${updated.part_no} is on open return trip #${trip}; it changes when the driver drops it off at HQ. ` +
            "Nothing was changed.",
          input.partId,
        );
      }
    }
    const historyId = await insertHistoryRow(tx, {
      part_id: input.partId,
      from_status: transition.from,
      to_status: transition.to,
      changed_at: now,
      changed_by: input.userId,
      via: "dashboard",
      reason,
    });
    // Audit trail (docs/dashboard.md "Audit trail"): the dispatcher's action, on the claim's timeline too.
    await insertAuditEntry(tx, {
      actorId: input.userId,
      action: "part.status",
      subject: `part:${input.partId}`,
      claimId: updated.claim_id,
      before: { part_no: updated.part_no, status: transition.from },
      after: { part_no: updated.part_no, status: transition.to, reason },
      at: now,
    });
    // The live dashboard (lib/live/): told when this commits. The transaction's one NOTIFY.
    await notifyChange(tx, "parts");
    return {
      partId: input.partId,
      partNo: updated.part_no,
      from: transition.from,
      to: transition.to,
      historyId,
    };
  });
}
