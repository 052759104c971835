/**
 * The import's validation (D5): the whole file is checked before anything is written, and every problem is
 * listed with its path and reason: the schema (lib/places/import_rows.ts for places), keys listed twice,
 * each user's secret against their role, and repair shops named by claims but known nowhere.
 */
import { z } from "zod";
import type { Db } from "@/db/client.ts";
import { PART_STATUSES, ROLES } from "@/db/schema.ts";
import { existingRepairerNames } from "@/db/queries/places.ts";
import { PIN_PATTERN } from "@/io/pin.ts";
import { passwordProblem } from "@/lib/passwords/rules.ts";
import { hqLocationRow, repairerRow } from "@/lib/places/import_rows.ts";
import { STAFF_ROLES } from "@/lib/staff_sign_in.ts";
import {
  emailField,
  freeTextField,
  isLineText,
  listProblems,
  requiredTextField,
  safeParseInput,
} from "@/lib/validation.ts";

const importSchema = z.strictObject({
  hq_locations: z.array(hqLocationRow).optional(),
  repairers: z.array(repairerRow).optional(),
  users: z.array(z.strictObject({
    email: emailField,
    name: requiredTextField(200),
    role: z.enum(ROLES),
    pin: z.string().regex(PIN_PATTERN, { message: "must be 4 to 8 digits" }).optional(),
    // A dispatcher's or admin's dashboard password (docs/sign-in.md "Dashboard passwords"); the rules are
    // checked with the roles, below (credentialProblems).
    password: z.string().optional(),
    active: z.boolean().optional(),
  })).optional(),
  claims: z.array(z.strictObject({
    claim_number: requiredTextField(100),
    registration: requiredTextField(64),
    management: z.strictObject({ repairer: requiredTextField(200).nullable() }).nullish(),
    parts: z.array(z.strictObject({
      part_no: requiredTextField(100),
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
export async function validateImport(db: Db, input: unknown): Promise<ImportFile> {
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
