/**
 * The parts as their labels and the scanners see them (docs/labels.md): each part with its claim's number
 * and registration. Label codes are derived from part ids (lib/labels/code.ts), so no table of codes.
 */
import { sql } from "kysely";
import type { QueryRunner } from "@/db/queries/compiled.ts";

/** Parts joined to their claims, with what a label prints and a scan checks. */
function labelledParts(db: QueryRunner) {
  return db.selectFrom("parts_orders")
    .innerJoin("claims", "claims.id", "parts_orders.claim_id")
    .select([
      "parts_orders.id",
      "parts_orders.part_no",
      "parts_orders.description",
      "parts_orders.status",
      "parts_orders.claim_id",
      "claims.claim_number",
      "claims.registration",
    ]);
}

export type LabelledPart = Awaited<ReturnType<ReturnType<typeof labelledParts>["execute"]>>[number];

/** Every part of the claim with this number, in id order (its label sheet). */
export async function labelledPartsOfClaim(db: QueryRunner, claimNumber: string): Promise<LabelledPart[]> {
  return await labelledParts(db).where("claims.claim_number", "=", claimNumber)
    .orderBy("parts_orders.id").execute();
}

/** The parts with these ids that exist, in id order (a sheet of selected parts). */
export async function labelledPartsByIds(db: QueryRunner, ids: readonly number[]): Promise<LabelledPart[]> {
  if (ids.length === 0) return [];
  return await labelledParts(db).where("parts_orders.id", "in", ids).orderBy("parts_orders.id").execute();
}

/** One part with its claim, if it exists (a scanned code). */
export async function labelledPart(db: QueryRunner, id: number): Promise<LabelledPart | undefined> {
  return await labelledParts(db).where("parts_orders.id", "=", id).executeTakeFirst();
}

/**
 * Up to two parts of a claim whose part number is `partNo` ignoring case and surrounding spaces (a supplier's
 * label scanned): two mean the number alone does not say which part.
 */
export async function claimPartsNumbered(
  db: QueryRunner,
  claimId: number,
  partNo: string,
): Promise<LabelledPart[]> {
  return await labelledParts(db)
    .where("parts_orders.claim_id", "=", claimId)
    .where(sql<string>`upper(trim(parts_orders.part_no))`, "=", partNo.trim().toUpperCase())
    .orderBy("parts_orders.id")
    .limit(2)
    .execute();
}
