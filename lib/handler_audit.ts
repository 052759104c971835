/**
 * The audit entry of each movement the handler records (docs/dashboard.md "Audit trail"): who (the user of
 * the payload's e-mail), which movement, which event, and the source address (the client address as
 * routes/web/rate_limits.ts computes it). Written after the submission committed, in a statement (and
 * transaction) of its own, so the submission's own statements stay as they are (one more round trip on a
 * success, docs/performance.md "Round trips"); a failed write never turns a recorded movement into a failure
 * answer: a warning line carries the same facts.
 */
import { insertHandlerMovementEntry } from "@/db/queries/audit.ts";
import { logger } from "@/io/log.ts";
import type { AppDeps } from "@/lib/deps.ts";

const log = logger("http");

export interface HandlerMovement {
  email: string;
  movementId: number;
  event: string;
  sourceAddress: string;
}

export async function auditHandlerMovement({ db }: Pick<AppDeps, "db">, m: HandlerMovement): Promise<void> {
  try {
    await insertHandlerMovementEntry(db, {
      email: m.email,
      movementId: m.movementId,
      after: { event: m.event, source_address: m.sourceAddress },
    });
  } catch (error) {
    log.warn("audit entry of movement {movement_id} ({event} from {source_address}) not written: {error}", {
      movement_id: m.movementId,
      event: m.event,
      source_address: m.sourceAddress,
      error: String(error),
    });
  }
}
