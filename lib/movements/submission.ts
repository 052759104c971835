/**
 * How every movement submission talks to the database (docs/performance.md "Round trips"). The locked path is
 * four round trips whatever the number of parts — BEGIN, one "lock and read" statement
 * (db/queries/submission_reads.ts: the acting user, the claim of the rego, the row locks and every read of
 * the checks), the write statement, COMMIT; a retry of an applied submission (D16) is three: it writes
 * nothing. A drop-off first tries two (the optimistic path, below).
 *
 * The checks run in JS in the order of D13 over what that statement read: the user, the rego and claim,
 * then the use case's own (`decide`). The statement's snapshot is taken before it waits for its locks, so
 * what it read beside the locked rows may miss what a racing submission committed meanwhile (its earlier
 * steps, an open trip). Two rules keep the answers exact:
 * - a refusal is never answered from that read: when `decide` throws a DomainError, the statement runs
 *   again (same transaction, locks already held, the claim pinned, fresh snapshot) and `decide` runs on
 *   what it reads, whose answer stands. So a retry that raced its original answers the original's
 *   success (D16), not "no longer available". Only a refusal pays this round trip.
 * - a success is decided by the write statement's guards, whose snapshot is taken after every lock is
 *   held: the conditional status flip (checked by the use case), and for a reverse pickup "no open trip of
 *   the claim" (one open trip per claim). A guard that stops the write throws `StaleRead`, which re-reads
 *   the same way.
 * The user and the claim are not raced by submissions, so their refusals are answered at once.
 *
 * A drop-off locks nothing but its parts, and its write statement (db/queries/movements.ts) locks them
 * itself and writes all or nothing, so it first tries two round trips (`submitOptimistically`): the same
 * read without locks or transaction, then the write statement on its own. Its answers are the locked
 * path's:
 * - without locks the read is one statement on one snapshot, so all it read is of one moment and a
 *   refusal or a D16 replay decided from it is exact (the locked path re-reads a refusal only because its
 *   locked rows are newer than the rest of its read). A refusal costs one round trip.
 * - a success is written only when every part is still, under the statement's lock, of the claim and in
 *   the status the checks saw; when not, nothing is written (`StaleRead`) and the locked path runs from
 *   the start, whose answer stands: a lost race costs the two round trips more.
 * The reverse pickup and leg 2 need their claim or trip row locked before they read: locked path only.
 */
import {
  readSubmission,
  type SubmissionRead,
  type SubmissionReadQuery,
} from "@/db/queries/submission_reads.ts";
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import type { ClaimFlow } from "@/db/queries/claims.ts";
import type { MovementAudit } from "@/db/queries/movements.ts";
import { claimOfResolution, containsFromOf, type ResolvedClaim, searchableRego } from "@/lib/claims.ts";
import { DomainError } from "@/lib/errors.ts";
import type { Flow } from "@/lib/flows.ts";
import { type ConfirmedPart, confirmedParts, type MovementDeps } from "@/lib/movements/checks.ts";
import type { SubmittedPart } from "@/lib/movements/input.ts";
import { appliedStepsQuery } from "@/lib/movements/replay.ts";
import { type ActingUser, type Actor, UnknownUserError } from "@/lib/users.ts";

/** The write statement's guard found what the read missed: nothing was written; read again. */
export class StaleRead extends Error {
  constructor() {
    super("submission: the write's guard stopped it; the read was stale");
    this.name = "StaleRead";
  }
}

export interface SubmissionScope {
  flow: Flow;
  claimFlow: ClaimFlow;
  rego: string;
  parts: SubmittedPart[];
  /** Reverse pickup: lock the claim row and read its open trip, HQ and shop. */
  pickup: boolean;
  /** Leg 2: the trip to lock and read. */
  tripId: number | null;
  /** Drop-off: the shop chosen. */
  repairerId: number | null;
}

/** What `decide` gets: the checked user and claim, and the statement's read. */
export interface SubmissionContext<R extends Db | Tx = Tx> {
  /** The transaction (locked path), or the database (the optimistic path: one statement, all or nothing). */
  trx: R;
  user: ActingUser;
  claim: ResolvedClaim;
  read: SubmissionRead;
  /** The confirmed parts, or the D13 refusal of none confirmed / a part listed twice. */
  confirmed(): ConfirmedPart[];
}

/** The query of the "lock and read" statement for this submission (the bench's baseline builds it too). */
export function submissionReadQuery(
  actor: Actor,
  scope: SubmissionScope,
  confirmed: ConfirmedPart[],
  lock = true,
): SubmissionReadQuery {
  const norm = searchableRego(scope.rego);
  return {
    email: "email" in actor ? actor.email : null,
    roles: "email" in actor ? actor.roles : [],
    knownHomeHqId: "user" in actor ? actor.user.home_hq_id : null,
    norm,
    contains: (norm?.length ?? 0) >= containsFromOf(actor), // D11, the handler's D30
    flow: scope.claimFlow,
    pinnedClaimId: null,
    pickup: scope.pickup,
    tripId: scope.tripId,
    partIds: confirmed.map((p) => p.partId),
    lock,
    steps: appliedStepsQuery(scope.flow, confirmed),
    imageIds: confirmed.flatMap((p) => p.imageId === null ? [] : [p.imageId]),
    repairerId: scope.repairerId,
  };
}

/**
 * The audit entry a movement of this actor is written with (db/queries/movements.ts `MovementAudit`): the
 * handler's carry their source address (docs/handler.md "Who the handler acts for"); a tablet session's
 * need none.
 */
export function handlerAuditOf(actor: Actor, flow: Flow): MovementAudit | null {
  return "email" in actor ? { stage: flow.stage, sourceAddress: actor.sourceAddress } : null;
}

/** The acting user and the claim, checked in D13 order over a read. */
function userAndClaim(actor: Actor, rego: string, read: SubmissionRead) {
  const user = "user" in actor ? actor.user : read.user;
  if (!user) throw new UnknownUserError();
  const claim = claimOfResolution(rego, read);
  if (!claim) throw new DomainError("not_found", "Claim not found.");
  return { user, claim };
}

/** The confirmed parts, or the D13 refusal to say once the user and the claim passed. */
function confirmedOrRefusal(scope: SubmissionScope) {
  try {
    const confirmed = confirmedParts(scope.flow, scope.parts);
    return { confirmed, refusal: null, list: () => confirmed };
  } catch (refusal) {
    return {
      confirmed: [],
      refusal,
      list: (): never => {
        throw refusal;
      },
    };
  }
}

/** A read's context for `decide`: the user and the claim checked (their refusals thrown at once). */
function contextOf<R extends Db | Tx>(
  trx: R,
  actor: Actor,
  scope: SubmissionScope,
  read: SubmissionRead,
  list: () => ConfirmedPart[],
): SubmissionContext<R> {
  return { trx, read, ...userAndClaim(actor, scope.rego, read), confirmed: list };
}

/** Runs one submission in its transaction (see the file's comment); `decide` checks and writes. */
export async function submit<T>(
  { db }: MovementDeps,
  actor: Actor,
  scope: SubmissionScope,
  decide: (ctx: SubmissionContext) => Promise<T>,
): Promise<T> {
  const { confirmed, list } = confirmedOrRefusal(scope);
  const query = submissionReadQuery(actor, scope, confirmed);
  return await db.transaction().execute(async (trx) => {
    const first = contextOf(trx, actor, scope, await readSubmission(trx, query), list);
    try {
      return await decide(first);
    } catch (error) {
      if (!(error instanceof DomainError || error instanceof StaleRead)) throw error;
      const read = await readSubmission(trx, { ...query, pinnedClaimId: first.claim.id });
      return await decide(contextOf(trx, actor, scope, read, list));
    }
  });
}

/**
 * A submission that locks no claim or trip row (a drop-off): two round trips when nothing races it, the
 * locked path when its write finds the read stale (see the file's comment). `decide` must write only
 * through one all-or-nothing statement that re-checks, under its locks, what it checked.
 */
export async function submitOptimistically<T>(
  deps: MovementDeps,
  actor: Actor,
  scope: SubmissionScope,
  decide: (ctx: SubmissionContext<Db | Tx>) => Promise<T>,
): Promise<T> {
  const { confirmed, refusal, list } = confirmedOrRefusal(scope);
  const read = await readSubmission(deps.db, submissionReadQuery(actor, scope, confirmed, false));
  const first = contextOf<Db | Tx>(deps.db, actor, scope, read, list);
  if (refusal !== null) throw refusal; // about the request alone, after the user and the claim (D13)
  try {
    return await decide(first);
  } catch (error) {
    if (!(error instanceof StaleRead)) throw error;
  }
  return await submit(deps, actor, scope, decide);
}
