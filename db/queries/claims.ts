/**
 * Queries of the claims family: claims and their management record (claim_management). Claims are looked
 * up by normalised registration (D11): callers pass `norm` already normalised (lib/rego.ts).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { asCompilable, compiledQuery, type QueryRunner } from "@/db/queries/compiled.ts";
import type { JsonRow } from "@/db/queries/json_row.ts";
import { containsPattern } from "@/db/queries/like.ts";
import type { Claim } from "@/db/schema.ts";

export type ClaimFlow = "direct" | "reverse";

// The search path's statements are compiled once (db/queries/compiled.ts): they run on every search.
const exactVehicle = compiledQuery((db, norm: string) =>
  db.selectFrom("claims").select(["registration_norm as norm", "registration"])
    .where("registration_norm", "=", norm).orderBy("id", "desc").limit(1)
);

/**
 * The distinct vehicles (normalised registrations) matching a normalised rego: the exact vehicle alone
 * when one matches exactly, else up to `limit` vehicles whose registration contains it.
 */
export async function matchingVehicles(
  db: QueryRunner,
  norm: string,
  limit: number,
): Promise<{ norm: string; registration: string }[]> {
  const exact = await exactVehicle.executeTakeFirst(db, norm);
  if (exact) return [exact];
  // The trigram GIN index serves this contains-match; ESCAPE makes % _ \ in the input literal.
  return await db.selectFrom("claims")
    .select(["registration_norm as norm", sql<string>`min(registration)`.as("registration")])
    .where(sql<boolean>`registration_norm like ${containsPattern(norm)} escape '\\'`)
    .groupBy("registration_norm")
    .orderBy("registration_norm")
    .limit(limit)
    .execute();
}

/** Whether a claim has work for a flow: Arrived parts (direct); an open return trip or parts to collect (reverse). */
function hasWork(flow: ClaimFlow) {
  return flow === "direct"
    ? sql<
      boolean
    >`exists (select 1 from parts_orders p where p.claim_id = claims.id and p.status = 'Arrived')`
    // coalesce: with no reverse movement the comparison is NULL, and NULL sorts first under DESC.
    : sql<boolean>`coalesce(exists (select 1 from parts_orders p
          where p.claim_id = claims.id and p.status = 'Pending Repair Shop Pick-Up')
        or (select m.movement_status from parts_movements m
          where m.claim_id = claims.id and m.movement_type = 'reverse' order by m.id desc limit 1) = 'Parts Picked Up',
        false)`;
}

/** What D11's resolution of a typed rego finds: the matching vehicles' registrations and the claim. */
export interface ClaimResolution {
  /** The exact vehicle alone, else up to `VEHICLES_READ` vehicles containing the rego, by registration. */
  registrations: Claim["registration"][];
  /** The claim of the single matching vehicle to act on (or the pinned claim); null otherwise. */
  claim: JsonRow<Pick<Claim, "id" | "claim_number" | "registration">> | null;
}

/** How many contains-matching vehicles the resolution reads: one more than a message names (lib/claims.ts). */
export const VEHICLES_READ = 6;

/**
 * D11's claim resolution as three CTEs of one statement (`vehicle_exact`, `vehicles`, `claim`), so the
 * search, the uploads and the submissions pay one round trip for it: the exact vehicle, else the vehicles
 * whose registration contains `norm` (trigram index; skipped by a one-time filter when the exact one
 * matched), then, when exactly one vehicle matched, its claim with work for the flow, else its newest.
 * `norm`/`pattern` null (a rego too short to search) match nothing. `pinned`: a claim id already resolved
 * (a submission's re-read, lib/movements/submission.ts): that claim, and no vehicle search.
 */
export function claimResolutionCtes(
  q: { norm: unknown; pattern: unknown; flow: ClaimFlow; pinned: unknown },
): RawBuilder<unknown> {
  return sql`vehicle_exact as (
      select registration_norm as norm, registration from claims
      where registration_norm = ${q.norm}::text and ${q.pinned}::int is null
      order by id desc limit 1),
    vehicles as (
      select norm, registration from vehicle_exact
      union all
      (select registration_norm, min(registration) from claims
        where not exists (select 1 from vehicle_exact) and ${q.pinned}::int is null
          and ${q.pattern}::text is not null and registration_norm like ${q.pattern}::text escape '\\'
        group by registration_norm order by registration_norm limit ${sql.lit(VEHICLES_READ)})),
    claim as (
      (select id, claim_number, registration, registration_norm from claims where id = ${q.pinned}::int)
      union all
      (select id, claim_number, registration, registration_norm from claims
        where registration_norm = (select min(norm) from vehicles) and (select count(*) from vehicles) = 1
        order by ${hasWork(q.flow)} desc, created_at desc, id desc limit 1))`;
}

/** The resolution's two answers, as the final select list of a statement over `claimResolutionCtes`. */
export const claimResolutionColumns = sql`
  (select coalesce(json_agg(v.registration order by v.norm), '[]'::json) from vehicles v) as registrations,
  (select row_to_json(c) from (select id, claim_number, registration from claim) c) as claim`;

// Compiled once per flow: every search and upload runs it.
const resolution = (flow: ClaimFlow) =>
  compiledQuery((_db, norm: string, pattern: string | null) =>
    asCompilable(sql<ClaimResolution>`with ${claimResolutionCtes({ norm, pattern, flow, pinned: null })}
      select ${claimResolutionColumns}`)
  );
const resolutionFor = { direct: resolution("direct"), reverse: resolution("reverse") };

/**
 * D11's resolution of a normalised rego for a flow, in one statement (see `claimResolutionCtes`); without
 * `contains`, only a whole registration matches (D30).
 */
export async function resolveClaimOfRego(
  db: QueryRunner,
  norm: string,
  flow: ClaimFlow,
  contains = true,
): Promise<ClaimResolution> {
  return await resolutionFor[flow].executeTakeFirstOrThrow(db, norm, contains ? containsPattern(norm) : null);
}

const management = compiledQuery((db, claimId: number) =>
  db.selectFrom("claim_management as cm")
    .leftJoin("repairers as r", "r.id", "cm.repairer_id")
    .select(["cm.repairer_id", "r.name as repairer_name"])
    .where("cm.claim_id", "=", claimId)
);

/** The claim's management record with its repairer's name (one query: the search runs it on every call). */
export async function managementOf(db: QueryRunner, claimId: number) {
  return await management.executeTakeFirst(db, claimId);
}

/**
 * The repair shop on a claim's management record, by claim number; undefined when the claim has none. The
 * tablet's collection names the shop the parts are picked up from (docs/tablet.md "Using it").
 */
export async function repairerOfClaimNumber(db: QueryRunner, claimNumber: string) {
  return await db.selectFrom("claims as c")
    .innerJoin("claim_management as cm", "cm.claim_id", "c.id")
    .innerJoin("repairers as r", "r.id", "cm.repairer_id")
    .select(["r.id", "r.name"])
    .where("c.claim_number", "=", claimNumber)
    .executeTakeFirst();
}

/** The claim's latest reverse movement (its open or last return trip), if any. */
export async function latestReverseMovement(db: QueryRunner, claimId: number) {
  return await db.selectFrom("parts_movements")
    .selectAll()
    .where("claim_id", "=", claimId)
    .where("movement_type", "=", "reverse")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** Whether any claim exists (the demo data loads only into an empty database). */
export async function anyClaim(db: QueryRunner): Promise<boolean> {
  return await db.selectFrom("claims").select("id").limit(1).executeTakeFirst() !== undefined;
}

// --- the import (D5): upserts by natural key, one statement per batch ---

/** Inserts or updates claims by claim number; returns each one's id by claim number. */
export async function upsertClaims(
  db: Db,
  rows: { claim_number: string; registration: string }[],
): Promise<{ id: number; claim_number: string }[]> {
  return await db.insertInto("claims")
    .values(rows)
    .onConflict((oc) =>
      oc.column("claim_number").doUpdateSet({ registration: (eb) => eb.ref("excluded.registration") })
    )
    .returning(["id", "claim_number"])
    .execute();
}

/** Sets each claim's management record (its repairer), creating the record when missing. */
export async function upsertClaimManagement(
  db: Db,
  rows: { claim_id: number; repairer_id: number | null }[],
): Promise<void> {
  await db.insertInto("claim_management")
    .values(rows)
    .onConflict((oc) =>
      oc.column("claim_id").doUpdateSet({ repairer_id: (eb) => eb.ref("excluded.repairer_id") })
    )
    .execute();
}

/** Removes the management records of these claims. */
export async function deleteClaimManagement(db: Db, claimIds: number[]): Promise<void> {
  await db.deleteFrom("claim_management").where("claim_id", "in", claimIds).execute();
}

/** The claim with this number, with its repair shop (from its management record); undefined when none. */
export async function claimByNumber(db: QueryRunner, claimNumber: string) {
  return await db.selectFrom("claims as c")
    .leftJoin("claim_management as cm", "cm.claim_id", "c.id")
    .leftJoin("repairers as r", "r.id", "cm.repairer_id")
    .select([
      "c.id",
      "c.claim_number",
      "c.registration",
      "c.created_at",
      "r.name as repairer_name",
      "r.address as repairer_address",
    ])
    .where("c.claim_number", "=", claimNumber)
    .executeTakeFirst();
}
