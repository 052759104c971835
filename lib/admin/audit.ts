/**
 * The audit trail's reads for the admin page (docs/dashboard.md "Audit trail"): its query string (actor,
 * action, keyset cursor), validated, and its CSV export, streamed in batches by keyset (io/csv.ts) with times
 * in the depot's zone.
 */
import { z } from "zod";
import type { Db } from "@/db/client.ts";
import { AUDIT_ACTIONS } from "@/db/schema.ts";
import { auditEntries, type AuditEntry, type AuditFilters } from "@/db/queries/audit.ts";
import { csvRow, csvStream } from "@/io/csv.ts";
import { ValidationError } from "@/lib/errors.ts";
import { stripBidi } from "@/lib/validation.ts";

export const AUDIT_PAGE_SIZE = 50;
const EXPORT_BATCH = 500;

const idParam = z.union([z.literal(""), z.coerce.number().int().positive().max(2 ** 31 - 1)]).optional();
const auditQuery = z.object({
  actor: idParam,
  action: z.union([z.literal(""), z.enum(AUDIT_ACTIONS)]).optional(),
  before: idParam,
});

export interface AuditQuery {
  filters: AuditFilters;
  beforeId?: number;
}

/** The page's or the export's query string; a bad value is a ValidationError (nothing is read). */
export function auditQueryOf(query: Record<string, string>): AuditQuery {
  const parsed = auditQuery.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(String(issue.path[0] ?? "query"), "is not valid");
  }
  const { actor, action, before } = parsed.data;
  return {
    filters: {
      ...(actor ? { actorId: actor } : {}),
      ...(action ? { action } : {}),
    },
    ...(before ? { beforeId: before } : {}),
  };
}

export const AUDIT_HEADER = [
  "Entry",
  "Time",
  "Actor",
  "Actor e-mail",
  "Action",
  "Subject",
  "Claim",
  "Before",
  "After",
];

const jsonText = (value: unknown) => value === null || value === undefined ? "" : JSON.stringify(value);

/** One CSV row of an entry (text cells lose bidi controls, as in the other exports). */
export function auditCsvRow(e: AuditEntry) {
  return [
    e.id,
    e.at,
    stripBidi(e.actor_name ?? ""),
    e.actor_email ?? "",
    e.action,
    e.subject,
    e.claim_number ?? "",
    stripBidi(jsonText(e.before)),
    stripBidi(jsonText(e.after)),
  ];
}

/** The whole filtered trail as CSV, newest first, read 500 entries at a time as the client reads. */
export function auditCsv(db: Db, filters: AuditFilters, timeZone: string): ReadableStream<Uint8Array> {
  let beforeId: number | undefined;
  let done = false;
  return csvStream(
    AUDIT_HEADER,
    async () => {
      if (done) return [];
      const { rows, more } = await auditEntries(db, filters, { beforeId, limit: EXPORT_BATCH });
      done = !more;
      beforeId = rows.at(-1)?.id;
      return rows;
    },
    (e) => csvRow(auditCsvRow(e), timeZone),
  );
}
