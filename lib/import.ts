/**
 * The import (D5): one JSON document of HQ locations, repairers, users and claims with their parts.
 * The whole file is validated first and every problem listed (path and reason); only a clean file is
 * written, in one transaction, upserting by natural keys so a re-import updates instead of duplicating.
 * Every part status change it makes is recorded in the part's history (via `import`).
 */
import { z } from "zod";
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import { type NewHistoryRow, PART_STATUSES, ROLES } from "@/db/schema.ts";
import { deleteClaimManagement, upsertClaimManagement, upsertClaims } from "@/db/queries/claims.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import { insertHistoryRows } from "@/db/queries/history.ts";
import { lockPartStatusesOfClaims, upsertParts } from "@/db/queries/parts.ts";
import {
  existingRepairerNames,
  repairerIdsByName,
  upsertHqLocations,
  upsertRepairers,
} from "@/db/queries/places.ts";
import { lockActiveAdmins, upsertUsers } from "@/db/queries/users.ts";
import type { Clock } from "@/io/clock.ts";
import { hashPin, PIN_PATTERN } from "@/io/pin.ts";
import { deleteOtherSessionsOfUser } from "@/db/queries/sessions.ts";
import { clearPinWindows, userSubject } from "@/db/queries/pin_attempts.ts";
import { normalisePassword, passwordProblem } from "@/lib/passwords/rules.ts";
import { STAFF_ROLES } from "@/lib/staff_sign_in.ts";
import {
  coordinatesPaired,
  emailsField,
  latitudeField,
  longitudeField,
  openingHoursField,
  phoneField,
} from "@/lib/places/details.ts";
import {
  emailField,
  freeTextField,
  isLineText,
  listProblems,
  safeParseInput,
  textField,
} from "@/lib/validation.ts";

/** A name or key (text rules of lib/validation.ts: controls refused), not empty. */
const text = (max: number) => textField(max).min(1, { message: "must not be empty" });

/**
 * A place's coordinates (docs/operations.md "Import"): both or neither. The check runs even when another
 * field of the row is bad (`when`), so every problem is listed at once (D5).
 */
const coordinates = { latitude: latitudeField.nullish(), longitude: longitudeField.nullish() };
function pairedCoordinates(row: { latitude?: unknown; longitude?: unknown }, ctx: z.RefinementCtx) {
  const missing = coordinatesPaired(row);
  if (missing) {
    ctx.addIssue({
      code: "custom",
      path: [missing],
      message: `is required with ${missing === "latitude" ? "longitude" : "latitude"}`,
    });
  }
}
/** Runs `pairedCoordinates` whatever the row's other problems, when it is an object at all. */
const anyObject = { when: (payload: { value: unknown }) => typeof payload.value === "object" };

const importSchema = z.strictObject({
  hq_locations: z.array(
    z.strictObject({ name: text(200), ...coordinates }).superRefine(pairedCoordinates, anyObject),
  ).optional(),
  repairers: z.array(
    z.strictObject({
      name: text(200),
      address: freeTextField(500).nullish(),
      phone: phoneField.nullish(),
      emails: emailsField.optional(),
      ...coordinates,
      opening_hours: openingHoursField.nullish(),
    }).superRefine(pairedCoordinates, anyObject),
  ).optional(),
  users: z.array(z.strictObject({
    email: emailField,
    name: text(200),
    role: z.enum(ROLES),
    pin: z.string().regex(PIN_PATTERN, { message: "must be 4 to 8 digits" }).optional(),
    // A dispatcher's or admin's dashboard password (docs/sign-in.md "Dashboard passwords"); the rules are
    // checked with the roles, below (credentialProblems).
    password: z.string().optional(),
    active: z.boolean().optional(),
  })).optional(),
  claims: z.array(z.strictObject({
    claim_number: text(100),
    registration: text(64),
    management: z.strictObject({ repairer: text(200).nullable() }).nullish(),
    parts: z.array(z.strictObject({
      part_no: text(100),
      description: freeTextField(500),
      qty: z.number().int().positive().max(100_000).default(1),
      status: z.enum(PART_STATUSES),
    })).optional(),
  })).optional(),
});

export type ImportFile = z.output<typeof importSchema>;
export interface ImportProblem {
  path: string;
  problem: string;
}

export class ImportRejected extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(`Import rejected: ${problems.length} problem(s); nothing was written.`);
  }
}

export interface ImportSummary {
  hq_locations: number;
  repairers: number;
  users: number;
  claims: number;
  parts: number;
  status_changes: number;
}

/** Keys listed twice in one file are a mistake the upsert would hide (the later row would win silently). */
function duplicateProblems(file: LooseFile): ImportProblem[] {
  const problems: ImportProblem[] = [];
  const once = <T>(
    rows: T[] | undefined,
    key: (row: T) => string | undefined,
    path: (i: number) => string,
    what: string,
  ) => {
    const seen = new Set<string>();
    rows?.forEach((row, i) => {
      const k = key(row);
      if (k === undefined) return;
      if (seen.has(k)) problems.push({ path: path(i), problem: `lists ${what} ${JSON.stringify(k)} twice` });
      seen.add(k);
    });
  };
  once(file.hq_locations, (r) => r.name, (i) => `hq_locations[${i}].name`, "HQ location");
  once(file.repairers, (r) => r.name, (i) => `repairers[${i}].name`, "repairer");
  once(file.users, (r) => r.email, (i) => `users[${i}].email`, "user");
  once(file.claims, (r) => r.claim_number, (i) => `claims[${i}].claim_number`, "claim");
  file.claims?.forEach((claim, c) =>
    once(claim.parts, (p) => p.part_no, (i) => `claims[${c}].parts[${i}].part_no`, "part")
  );
  return problems;
}

/**
 * Each user gets the secret of their role (docs/sign-in.md "Dashboard passwords"): a driver a PIN (the
 * tablet's), a dispatcher or admin a password (the dashboard's), never the other one; a password must pass
 * the rules of lib/passwords/rules.ts. Each problem names the row and the field.
 */
async function credentialProblems(file: LooseFile): Promise<ImportProblem[]> {
  const problems: ImportProblem[] = [];
  for (const [i, user] of (file.users ?? []).entries()) {
    if (!user.role) continue; // the schema reports a missing or unknown role
    const staff = STAFF_ROLES.includes(user.role);
    if (staff && user.pin !== undefined) {
      problems.push({
        path: `users[${i}].pin`,
        problem:
          `a ${user.role} signs in to the dashboard with a password, not a PIN: give "password" instead`,
      });
    }
    if (!staff && user.password !== undefined) {
      problems.push({
        path: `users[${i}].password`,
        problem: `a ${user.role} signs in on the tablet with a PIN, not a password: give "pin" instead`,
      });
    }
    if (staff && typeof user.password === "string") {
      const problem = await passwordProblem(user.password);
      if (problem) problems.push({ path: `users[${i}].password`, problem });
    }
  }
  return problems;
}

/** Repairers named by claims must exist in the file or the database. */
async function referenceProblems(db: Db, file: LooseFile): Promise<ImportProblem[]> {
  const named = new Set(file.repairers?.flatMap((r) => r.name ?? []));
  const wanted = [...new Set(file.claims?.flatMap((c) => c.management?.repairer ?? []) ?? [])]
    .filter((name) => !named.has(name));
  if (wanted.length === 0) return [];
  const known = await existingRepairerNames(db, wanted);
  const problems: ImportProblem[] = [];
  file.claims?.forEach((claim, i) => {
    const name = claim.management?.repairer;
    if (name && !named.has(name) && !known.has(name)) {
      problems.push({
        path: `claims[${i}].management.repairer`,
        problem: `names unknown repairer ${JSON.stringify(name)}`,
      });
    }
  });
  return problems;
}

/**
 * The keys the cross-row checks need, read leniently: a row with a bad field elsewhere still takes part,
 * so a file with schema problems also gets its duplicate and unknown-repairer problems listed (D5: every
 * problem). A key that is itself malformed is left out here; the schema reports it.
 */
// A key holding a control character is malformed (the schema reports it) and never reaches a query.
const looseKey = z.string().trim().min(1).refine(isLineText).optional().catch(undefined);
const looseRows = <T extends z.ZodRawShape>(shape: T) =>
  z.array(z.object(shape).catch(() => z.object(shape).parse({}))).optional().catch(undefined);
const looseSchema = z.object({
  hq_locations: looseRows({ name: looseKey }),
  repairers: looseRows({ name: looseKey }),
  users: looseRows({
    email: looseKey.transform((v) => v?.toLowerCase()),
    role: z.enum(ROLES).optional().catch(undefined),
    pin: z.unknown().optional(),
    password: z.unknown().optional(),
  }),
  claims: looseRows({
    claim_number: looseKey,
    management: z.object({ repairer: looseKey }).nullish().catch(undefined),
    parts: looseRows({ part_no: looseKey }),
  }),
}).catch({});
type LooseFile = z.output<typeof looseSchema>;

/** Validates without writing: the parsed file, or every problem found. */
async function validateImport(db: Db, input: unknown): Promise<ImportFile> {
  const parsed = safeParseInput(importSchema, input);
  const loose = looseSchema.parse(input);
  const problems = [
    ...(parsed.success ? [] : listProblems(parsed.error)),
    ...duplicateProblems(loose),
    ...await credentialProblems(loose),
    ...await referenceProblems(db, loose),
  ];
  if (problems.length || !parsed.success) throw new ImportRejected(problems);
  return parsed.data;
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
