/**
 * Queries of the audit trail (docs/dashboard.md "Audit trail"): one insert, called inside the transaction of
 * each admin or dispatcher action, and the reads of the audit page, its CSV export and a claim's timeline.
 * Newest first means highest id first: ids follow the order the entries were written, so keyset paging on
 * the id is exact even when two entries share a time.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { AuditAction } from "@/db/schema.ts";

export interface AuditWrite {
  actorId: number | null;
  /** A repair shop acting on its page (docs/shop-page.md), with `actorId` null. */
  actorRepairerId?: number | null;
  action: AuditAction;
  /** What was acted on, as `<kind>:<id>` (e.g. `user:12`, `part:7`, `device:3`). */
  subject: string;
  claimId?: number | null;
  /** The changed fields before and after (plain JSON; never a PIN or a hash). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** The service clock's time of the action; the database's time when omitted. */
  at?: Date;
}

const json = (value: Record<string, unknown> | null | undefined) =>
  value === undefined || value === null ? null : JSON.stringify(value);

/** Writes one entry. Run it on the action's transaction so both commit or neither does. */
export async function insertAuditEntry(db: Db, entry: AuditWrite): Promise<void> {
  await db.insertInto("audit_log").values({
    actor_id: entry.actorId,
    actor_repairer_id: entry.actorRepairerId ?? null,
    action: entry.action,
    subject: entry.subject,
    claim_id: entry.claimId ?? null,
    before: sql`${json(entry.before)}::jsonb` as unknown as string,
    after: sql`${json(entry.after)}::jsonb` as unknown as string,
    ...(entry.at ? { at: entry.at } : {}),
  }).execute();
}

export interface AuditFilters {
  actorId?: number;
  action?: AuditAction;
}

function entriesQuery(db: Db) {
  return db.selectFrom("audit_log")
    .leftJoin("users", "users.id", "audit_log.actor_id")
    .leftJoin("repairers", "repairers.id", "audit_log.actor_repairer_id")
    .leftJoin("claims", "claims.id", "audit_log.claim_id")
    .select([
      "audit_log.id",
      "audit_log.at",
      "audit_log.actor_id",
      // A shop acting on its page is named as the shop (docs/shop-page.md).
      sql<string | null>`coalesce(users.name, repairers.name || ' (shop page)')`.as("actor_name"),
      "users.email as actor_email",
      "audit_log.action",
      "audit_log.subject",
      "audit_log.claim_id",
      "claims.claim_number",
      "audit_log.before",
      "audit_log.after",
    ])
    .orderBy("audit_log.id", "desc");
}
export type AuditEntry = Awaited<ReturnType<ReturnType<typeof entriesQuery>["execute"]>>[number];

/** Up to `limit` entries older than `beforeId` (none: the newest), filtered; `more` when older ones exist. */
export async function auditEntries(
  db: Db,
  filters: AuditFilters,
  page: { beforeId?: number; limit: number },
): Promise<{ rows: AuditEntry[]; more: boolean }> {
  let query = entriesQuery(db);
  if (filters.actorId !== undefined) query = query.where("audit_log.actor_id", "=", filters.actorId);
  if (filters.action !== undefined) query = query.where("audit_log.action", "=", filters.action);
  if (page.beforeId !== undefined) query = query.where("audit_log.id", "<", page.beforeId);
  const rows = await query.limit(page.limit + 1).execute();
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

/** The entries that touch a claim (status changes of its parts), oldest first, for its timeline. */
export async function auditEntriesOfClaim(db: Db, claimId: number): Promise<AuditEntry[]> {
  const rows = await entriesQuery(db).where("audit_log.claim_id", "=", claimId).execute();
  return rows.reverse();
}

/** Everyone who has an entry, by name (the page's actor filter). */
export async function auditActors(db: Db): Promise<{ id: number; name: string }[]> {
  return await db.selectFrom("users").select(["id", "name"])
    .where((eb) => eb.exists(eb.selectFrom("audit_log").select("id").whereRef("actor_id", "=", "users.id")))
    .orderBy("name").orderBy("id").execute();
}
