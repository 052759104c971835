/**
 * The import (D5): one JSON document of HQ locations, repairers, users and claims with their parts.
 * The whole file is validated first and every problem listed (lib/import_validation.ts); only a clean file is
 * written, in one transaction, upserting by natural keys so a re-import updates instead of duplicating.
 * Every part status change it makes is recorded in the part's history (via `import`).
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type { NewHistoryRow } from "@/db/schema.ts";
import { deleteClaimManagement, upsertClaimManagement, upsertClaims } from "@/db/queries/claims.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import { insertHistoryRows } from "@/db/queries/history.ts";
import { lockPartStatusesOfClaims, upsertParts } from "@/db/queries/parts.ts";
import { repairerIdsByName, upsertHqLocations, upsertRepairers } from "@/db/queries/places.ts";
import { lockActiveAdmins, upsertUsers } from "@/db/queries/users.ts";
import type { Clock } from "@/io/clock.ts";
import { hashPin } from "@/io/pin.ts";
import { deleteOtherSessionsOfUser } from "@/db/queries/sessions.ts";
import { clearPinWindows, userSubject } from "@/db/queries/pin_attempts.ts";
import { normalisePassword } from "@/lib/passwords/rules.ts";
import { type ImportFile, ImportRejected, validateImport } from "@/lib/import_validation.ts";
export { type ImportFile, type ImportProblem, ImportRejected } from "@/lib/import_validation.ts";

export interface ImportSummary {
  hq_locations: number;
  repairers: number;
  users: number;
  claims: number;
  parts: number;
  status_changes: number;
}

/** Rows per INSERT: keeps each statement far below PostgreSQL's 65 535 parameters. */
const CHUNK = 1000;
function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

async function writeClaims(
  tx: Tx,
  file: ImportFile,
  now: Date,
): Promise<{ parts: number; changes: number }> {
  const claims = file.claims ?? [];
  const claimIds = new Map<string, number>();
  for (const batch of chunks(claims)) {
    const rows = await upsertClaims(
      tx,
      batch.map((c) => ({ claim_number: c.claim_number, registration: c.registration })),
    );
    for (const r of rows) claimIds.set(r.claim_number, r.id);
  }

  const repairerIds = await repairerIdsByName(tx);
  const managed = claims.filter((c) => c.management);
  for (const batch of chunks(managed)) {
    await upsertClaimManagement(
      tx,
      batch.map((c) => ({
        claim_id: claimIds.get(c.claim_number)!,
        repairer_id: c.management!.repairer === null ? null : repairerIds.get(c.management!.repairer)!,
      })),
    );
  }
  // `management` absent or null means the claim has no management record (D5).
  const unmanaged = claims.filter((c) => !c.management).map((c) => claimIds.get(c.claim_number)!);
  for (const batch of chunks(unmanaged)) {
    await deleteClaimManagement(tx, batch);
  }

  const parts = claims.flatMap((c) =>
    (c.parts ?? []).map((p) => ({ ...p, claim_id: claimIds.get(c.claim_number)! }))
  );
  let changes = 0;
  for (const batch of chunks(parts)) {
    // Lock the existing rows first so the history records the status each part really left.
    const before = new Map(
      (await lockPartStatusesOfClaims(tx, [...new Set(batch.map((p) => p.claim_id))]))
        .map((p) => [`${p.claim_id}\u0000${p.part_no}`, p.status]),
    );
    const written = await upsertParts(
      tx,
      batch.map((p) => ({
        claim_id: p.claim_id,
        part_no: p.part_no,
        description: p.description,
        qty_ordered: p.qty,
        status: p.status,
      })),
      now,
    );
    const history = written.flatMap((p): NewHistoryRow[] => {
      const from = before.get(`${p.claim_id}\u0000${p.part_no}`) ?? null;
      return from === p.status ? [] : [{
        part_id: p.id,
        from_status: from,
        to_status: p.status,
        changed_at: now,
        changed_by: null,
        via: "import" as const,
      }];
    });
    if (history.length) await insertHistoryRows(tx, history);
    changes += history.length;
  }
  return { parts: parts.length, changes };
}

/**
 * Validates, then writes everything in one transaction. Throws ImportRejected with every problem.
 * `actorId`: the admin who uploaded the file (null: a task or the demo data), for the audit entry;
 * `keepSession`: the token hash of that admin's session, which a password the file sets for them keeps.
 */
export async function importData(
  db: Db,
  input: unknown,
  clock: Clock,
  actorId: number | null = null,
  keepSession: string | null = null,
): Promise<ImportSummary> {
  const file = await validateImport(db, input);
  const now = clock.now();
  // Hashing is deliberately slow, so it happens before the transaction opens.
  const users = await Promise.all(
    (file.users ?? []).map(async (u) => ({
      email: u.email,
      name: u.name,
      role: u.role,
      active: u.active ?? true,
      pin_hash: u.pin ? await hashPin(u.pin) : null,
      password_hash: u.password ? await hashPin(normalisePassword(u.password)) : null,
    })),
  );
  return await db.transaction().execute(async (tx) => {
    // A place's field left out (or null) keeps the value on record (docs/operations.md "Import").
    for (const batch of chunks(file.hq_locations ?? [])) {
      await upsertHqLocations(
        tx,
        batch.map((h) => ({ name: h.name, latitude: h.latitude ?? null, longitude: h.longitude ?? null })),
      );
    }
    for (const batch of chunks(file.repairers ?? [])) {
      await upsertRepairers(
        tx,
        batch.map((r) => ({
          name: r.name,
          address: r.address ?? null,
          phone: r.phone ?? null,
          emails: r.emails,
          latitude: r.latitude ?? null,
          longitude: r.longitude ?? null,
          opening_hours: r.opening_hours ? JSON.stringify(r.opening_hours) : null,
        })),
      );
    }
    // A re-import without a PIN keeps the PIN the user already has (upsertUsers). Like the admin pages, a
    // file may not leave no active admin (decided under the admins' row locks, lib/admin/users.ts).
    const hadAdmin = users.length > 0 && (await lockActiveAdmins(tx)).length > 0;
    const written = [];
    for (const batch of chunks(users)) written.push(...await upsertUsers(tx, batch));
    // A password set by the file, like one set on the admin pages, lifts the user's locks and ends their
    // other sessions (all but the importing admin's own, `keepSession`).
    const passwordSet = new Set(users.filter((u) => u.password_hash).map((u) => u.email));
    for (const user of written.filter((w) => passwordSet.has(w.email))) {
      await clearPinWindows(tx, userSubject(user.id));
      await deleteOtherSessionsOfUser(tx, user.id, user.id === actorId ? keepSession : null);
    }
    if (hadAdmin && (await lockActiveAdmins(tx)).length === 0) {
      throw new ImportRejected([{ path: "users", problem: "would leave no active admin" }]);
    }
    const { parts, changes } = await writeClaims(tx, file, now);
    const summary: ImportSummary = {
      hq_locations: file.hq_locations?.length ?? 0,
      repairers: file.repairers?.length ?? 0,
      users: users.length,
      claims: file.claims?.length ?? 0,
      parts,
      status_changes: changes,
    };
    // Audit trail (docs/dashboard.md "Audit trail"): one entry with the counts, not one per row.
    await insertAuditEntry(tx, {
      actorId,
      action: "import",
      subject: "import",
      after: { ...summary },
      at: now,
    });
    return summary;
  });
}
