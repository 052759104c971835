/**
 * Return requests (docs/return-requests.md): at a repair shop where nothing on the claim is flagged for
 * return, the driver asks HQ to return the claim's parts still at the shop; a dispatcher approves (the parts
 * become `Pending Repair Shop Pick-Up`, so the driver can collect them) or declines with a reason the driver
 * reads.
 *
 * Races (docs/return-requests.md "Races"):
 * - a retry of the same request (bad Wi-Fi) carries the tablet's key and finds the row it made;
 * - two drivers asking for the same claim: at most one request per claim is open (a unique index); the
 *   second joins the open one;
 * - two dispatchers deciding the same request (or an approval against a decline): the decision is a
 *   conditional `UPDATE … WHERE state = 'open'`; the loser writes nothing and reads who decided it;
 * - a part moved by anyone after the request was made (a dispatcher's status change, a correction): the
 *   approval locks the request's parts in id order (the submissions' order, so the two never deadlock) and
 *   flags, in the same transaction, exactly those still at the shop. It approves what can still be
 *   flagged, lists the rest as left alone, and refuses the whole approval (writing nothing) only when none
 *   of the parts is at the shop or flagged any more: then there is nothing to approve.
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import { managementOf } from "@/db/queries/claims.ts";
import { insertHistoryRows } from "@/db/queries/history.ts";
import {
  AT_SHOP,
  countOpenReturnRequests,
  decidedReturnRequests,
  decideReturnRequestIf,
  FLAGGED,
  flagPartsAtShop,
  insertRequestAnnouncements,
  insertReturnRequest,
  lockRequestParts,
  markRequestParts,
  openReturnRequestOfClaim,
  openReturnRequests,
  partsOfReturnRequests,
  returnRequestById,
  returnRequestIdByKey,
  type ReturnRequestRow,
} from "@/db/queries/return_requests.ts";
import type { PartStatus, ReturnRequestState, User } from "@/db/schema.ts";
import { announcementOutbox, announcementsWritten } from "@/lib/announcements/outbox.ts";
import { resolveClaim } from "@/lib/claims.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { claimParts } from "@/lib/tablet_data.ts";
import { cleanFreeText } from "@/lib/validation.ts";

/** The longest note or decline reason kept (the table's check says the same). */
export const RETURN_TEXT_MAX = 500;
/** How many parts one request may name (a claim has far fewer; the tablet's submissions cap is the same). */
export const RETURN_MAX_PARTS = 200;

export interface ReturnRequestPart {
  id: number;
  partNo: string;
  description: string;
  qty: number;
  /** The part's status now. */
  status: PartStatus;
  /** Once decided: whether the approval flagged it (false: it had moved on and was left alone). */
  flagged: boolean | null;
}

export interface ReturnRequest {
  id: number;
  claimId: number;
  claimNumber: string;
  rego: string;
  repairerName: string | null;
  requestedBy: { id: number; name: string };
  requestedAt: Date;
  note: string | null;
  state: ReturnRequestState;
  decidedBy: string | null;
  decidedAt: Date | null;
  declineReason: string | null;
  /** The driver's photo of the parts (docs/return-requests.md "Photo"); null until one arrives. */
  photoId: number | null;
  parts: ReturnRequestPart[];
}

async function withParts(db: Db, rows: ReturnRequestRow[]): Promise<ReturnRequest[]> {
  const parts = await partsOfReturnRequests(db, rows.map((r) => r.id));
  return rows.map((r) => ({
    id: r.id,
    claimId: r.claim_id,
    claimNumber: r.claim_number,
    rego: r.registration,
    repairerName: r.repairer_name,
    requestedBy: { id: r.requested_by, name: r.requested_by_name },
    requestedAt: r.requested_at,
    note: r.note,
    state: r.state,
    decidedBy: r.decided_by_name,
    decidedAt: r.decided_at,
    declineReason: r.decline_reason,
    photoId: r.photo_id,
    parts: parts.filter((p) => p.request_id === r.id).map((p) => ({
      id: p.part_id,
      partNo: p.part_no,
      description: p.description,
      qty: p.qty_ordered,
      status: p.status,
      flagged: p.flagged,
    })),
  }));
}

/** One request with its parts; null when there is none. */
export async function loadReturnRequest(db: Db, id: number): Promise<ReturnRequest | null> {
  const row = await returnRequestById(db, id);
  return row ? (await withParts(db, [row]))[0] : null;
}

/** The dispatchers' queue: the open requests oldest first, and the latest decided ones. */
export async function returnRequestQueue(
  db: Db,
  limits = { open: 200, decided: 20 },
): Promise<{ open: ReturnRequest[]; decided: ReturnRequest[] }> {
  const [open, decided] = await Promise.all([
    openReturnRequests(db, limits.open),
    decidedReturnRequests(db, limits.decided),
  ]);
  const all = await withParts(db, [...open, ...decided]);
  return { open: all.slice(0, open.length), decided: all.slice(open.length) };
}

export const openReturnRequestCount = (db: Db): Promise<number> => countOpenReturnRequests(db);

/** A note or a reason as kept: free text (lib/validation.ts), trimmed, at most RETURN_TEXT_MAX; "" is none. */
function cleanText(value: string | null | undefined, what: string): string | null {
  const cleaned = cleanFreeText(value ?? "");
  if (cleaned === null) throw new DomainError("invalid", `The ${what} must not contain control characters.`);
  const text = cleaned.trim();
  if (text.length > RETURN_TEXT_MAX) {
    throw new DomainError("invalid", `Keep the ${what} under ${RETURN_TEXT_MAX} characters.`);
  }
  return text || null;
}

export interface NewReturnRequestInput {
  rego: string;
  partIds: number[];
  note?: string | null;
  /** The tablet's key for this request: a retry with the same key answers the same request. */
  clientKey: string;
}

/**
 * Records a driver's request and its announcement (one transaction, D21), or answers the request that
 * already exists: this driver's with the same key (a retry), or the claim's open one (another driver asked
 * first; `joined`).
 */
export async function requestReturn(
  deps: Pick<AppDeps, "db" | "config" | "clock">,
  user: User,
  input: NewReturnRequestInput,
): Promise<{ request: ReturnRequest; joined: boolean }> {
  const { db, config, clock } = deps;
  const retried = await returnRequestIdByKey(db, user.id, input.clientKey);
  if (retried !== null) return { request: (await loadReturnRequest(db, retried))!, joined: false };
  const note = cleanText(input.note, "note");
  const partIds = [...new Set(input.partIds)].sort((a, b) => a - b);
  if (partIds.length === 0) throw new DomainError("invalid", "Select at least one part to ask HQ to return.");
  const claim = await resolveClaim(db, input.rego, "reverse");
  if (!claim) throw new DomainError("not_found", "Rego not found");
  const parts = new Map((await claimParts(db, claim.claim_number)).map((p) => [p.id, p]));
  for (const id of partIds) {
    const part = parts.get(id);
    if (!part) throw new DomainError("not_found", "Part not found.", id);
    // Checked again under lock when HQ approves: a part that moves in between is then left alone.
    if (part.status !== AT_SHOP) {
      throw new DomainError("conflict", `${part.part_no} is not at the repair shop now: ${part.status}.`, id);
    }
  }
  const management = await managementOf(db, claim.id);
  const now = clock.now();
  const outbox = announcementOutbox(config, {
    title: "Return Requested",
    rego: claim.registration,
    place: management?.repairer_name ?? "a repair shop (none on record)",
    parts: partIds.map((id) => ({ partNo: parts.get(id)!.part_no, description: parts.get(id)!.description })),
    driver: user.name,
    at: now.toISOString(),
    note,
  }, now);
  const made = await db.transaction().execute(async (tx) => {
    const id = await insertReturnRequest(tx, {
      claimId: claim.id,
      repairerId: management?.repairer_id ?? null,
      requestedBy: user.id,
      requestedAt: now,
      clientKey: input.clientKey,
      note,
      partIds,
    });
    if (id === null) return null;
    await insertRequestAnnouncements(tx, id, outbox);
    await notifyChange(tx, "return_requests");
    return id;
  });
  if (made !== null) {
    announcementsWritten(db);
    return { request: (await loadReturnRequest(db, made))!, joined: false };
  }
  // Nothing inserted: the same key committed meanwhile (a retry racing itself), or the claim has an open one.
  const existing = await returnRequestIdByKey(db, user.id, input.clientKey) ??
    await openReturnRequestOfClaim(db, claim.id);
  if (existing === null) throw new DomainError("conflict", "The request could not be recorded. Try again.");
  return { request: (await loadReturnRequest(db, existing))!, joined: true };
}

/** Thrown when the request was decided by someone else first: nothing was written. */
async function alreadyDecided(db: Db, id: number): Promise<never> {
  const now = await loadReturnRequest(db, id);
  if (!now) throw new DomainError("not_found", "Return request not found.");
  throw new DomainError(
    "conflict",
    `Return request #${id} was already ${now.state} by ${now.decidedBy ?? "someone"}; nothing was changed.`,
  );
}

export interface ApprovalResult {
  id: number;
  /** Flagged by this approval. */
  flagged: string[];
  /** Already flagged by someone else: collectable too. */
  alreadyFlagged: string[];
  /** Moved on since the request (left as they are), with their status. */
  leftAlone: { partNo: string; status: PartStatus }[];
}

/** A dispatcher approves: the request's parts still at the shop are flagged, atomically (see the top). */
export async function approveReturnRequest(
  deps: Pick<AppDeps, "db" | "clock">,
  userId: number,
  id: number,
): Promise<ApprovalResult> {
  const { db, clock } = deps;
  const now = clock.now();
  const result = await db.transaction().execute(async (tx) => {
    const decided = await decideReturnRequestIf(tx, id, {
      state: "approved",
      by: userId,
      at: now,
      reason: null,
    });
    if (!decided) return null;
    const parts = await lockRequestParts(tx, id);
    const atShop = parts.filter((p) => p.status === AT_SHOP);
    const alreadyFlagged = parts.filter((p) => p.status === FLAGGED).map((p) => p.part_no);
    const leftAlone = parts.filter((p) => p.status !== AT_SHOP && p.status !== FLAGGED)
      .map((p) => ({ partNo: p.part_no, status: p.status }));
    if (atShop.length === 0 && alreadyFlagged.length === 0) {
      // Rolls the decision back too: the request stays open for a decline with a reason.
      throw new DomainError(
        "conflict",
        `None of the parts of return request #${id} is at the repair shop any more (` +
          leftAlone.map((p) => `${p.partNo}: ${p.status}`).join(", ") +
          "); nothing was changed. Decline it with a reason instead.",
      );
    }
    // Under the locks taken above every part still at the shop is flagged by this statement.
    const flagged = await flagPartsAtShop(tx, atShop.map((p) => p.id), now);
    if (flagged.length > 0) {
      await insertHistoryRows(
        tx,
        flagged.map((p) => ({
          part_id: p.id,
          from_status: AT_SHOP,
          to_status: FLAGGED,
          changed_at: now,
          changed_by: userId,
          via: "dashboard" as const,
          reason: `Return request #${id} approved`,
        })),
      );
    }
    await markRequestParts(tx, id, flagged.map((p) => p.id));
    const outcome: ApprovalResult = { id, flagged: flagged.map((p) => p.part_no), alreadyFlagged, leftAlone };
    // Audit trail (docs/dashboard.md "Audit trail"), on the claim's timeline too.
    await insertAuditEntry(tx, {
      actorId: userId,
      action: "return_request.approve",
      subject: `return_request:${id}`,
      claimId: decided.claim_id,
      before: { state: "open" },
      after: {
        state: "approved",
        flagged: outcome.flagged,
        already_flagged: alreadyFlagged,
        left_alone: leftAlone.map((p) => p.partNo),
      },
      at: now,
    });
    await notifyChange(tx, "return_requests");
    if (flagged.length > 0) await notifyChange(tx, "parts");
    return outcome;
  });
  return result ?? await alreadyDecided(db, id);
}

/** A dispatcher declines, with the reason the driver reads (required). */
export async function declineReturnRequest(
  deps: Pick<AppDeps, "db" | "clock">,
  userId: number,
  id: number,
  reasonTyped: string,
): Promise<void> {
  const { db, clock } = deps;
  const reason = cleanText(reasonTyped, "reason");
  if (!reason) throw new DomainError("invalid", "Give the driver a reason for declining.");
  const now = clock.now();
  const done = await db.transaction().execute(async (tx) => {
    const decided = await decideReturnRequestIf(tx, id, { state: "declined", by: userId, at: now, reason });
    if (!decided) return false;
    await markRequestParts(tx, id, []);
    await insertAuditEntry(tx, {
      actorId: userId,
      action: "return_request.decline",
      subject: `return_request:${id}`,
      claimId: decided.claim_id,
      before: { state: "open" },
      after: { state: "declined", reason },
      at: now,
    });
    await notifyChange(tx, "return_requests");
    return true;
  });
  if (!done) await alreadyDecided(db, id);
}
