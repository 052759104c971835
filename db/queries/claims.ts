/** Claim lookups by registration (D11) and the records hanging off a claim. */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { compiledQuery, type QueryRunner } from "@/db/queries/compiled.ts";
import { escapeLike } from "@/lib/rego.ts";

type Executor = Pick<Db, "selectFrom">;

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
    .where(sql<boolean>`registration_norm like ${`%${escapeLike(norm)}%`} escape '\\'`)
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

const arrivedParts = compiledQuery((db, claimId: number) =>
  db.selectFrom("parts_orders")
    .select(["id", "description", "part_no"])
    .where("claim_id", "=", claimId)
    .where("status", "=", "Arrived")
    .orderBy("id")
);

/** The claim's parts waiting at HQ for a direct delivery (Arrived), in id order. */
export async function arrivedPartsOf(db: QueryRunner, claimId: number) {
  return await arrivedParts.execute(db, claimId);
}

export async function latestReverseMovement(db: Executor, claimId: number) {
  return await db.selectFrom("parts_movements")
    .selectAll()
    .where("claim_id", "=", claimId)
    .where("movement_type", "=", "reverse")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}
