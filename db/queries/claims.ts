/**
 * Queries of the claims family: claims and their management record (claim_management). Claims are looked
 * up by normalised registration (D11): callers pass `norm` already normalised (lib/rego.ts).
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { compiledQuery, type QueryRunner, type Tx } from "@/db/queries/compiled.ts";
import { containsPattern } from "@/db/queries/like.ts";
import { hqLocationQuery } from "@/db/queries/places.ts";

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

const claimOfVehicle = (flow: ClaimFlow) =>
  compiledQuery((db, norm: string) =>
    db.selectFrom("claims")
      .select(["id", "claim_number", "registration"])
      .where("registration_norm", "=", norm)
      .orderBy(hasWork(flow), "desc")
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
  );
const claimOfVehicleFor = { direct: claimOfVehicle("direct"), reverse: claimOfVehicle("reverse") };

/** The claim of one vehicle to act on: the newest with work for the flow, else the newest. */
export async function pickClaimOfVehicle(db: QueryRunner, norm: string, flow: ClaimFlow) {
  return await claimOfVehicleFor[flow].executeTakeFirstOrThrow(db, norm);
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

/**
 * What a reverse pickup needs of its claim, read under a lock on the claim row: two pickups racing on one
 * claim queue on the lock, and the read that follows (a statement of its own, so its snapshot is taken
 * after the wait) sees the first's trip. In one statement: the claim's open return trip (a reverse movement
 * still `Parts Picked Up`) if any, the HQ the trip goes to (`hqLocationQuery`, D15) and the name of the
 * claim's repairer (the shop the parts are collected from).
 */
export async function lockClaimForPickup(
  trx: Tx,
  claimId: number,
  homeHqId: number | null,
): Promise<{ open_trip: number | null; hq: { id: number; name: string } | null; shop: string | null }> {
  await trx.selectFrom("claims").select("id").where("id", "=", claimId).forUpdate().execute();
  const { rows: [row] } = await sql<
    { open_trip: number | null; hq: { id: number; name: string } | null; shop: string | null }
  >`select
      (select id from parts_movements
        where claim_id = ${claimId}::int and movement_type = 'reverse' and movement_status = 'Parts Picked Up'
        limit 1) as open_trip,
      (select row_to_json(h) from (${hqLocationQuery(trx, homeHqId)}) h) as hq,
      (select r.name from claim_management cm join repairers r on r.id = cm.repairer_id
        where cm.claim_id = ${claimId}::int) as shop`.execute(trx);
  return row;
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
