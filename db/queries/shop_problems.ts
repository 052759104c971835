/**
 * The shops' problem reports (docs/shop-page.md "Report a problem"): written by the shop's page, read and
 * resolved by the dispatchers (routes/hq/problem_reports.tsx). A resolution is a conditional UPDATE on the
 * open state, the one guard between two dispatchers.
 */
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";
import type { ProblemReason } from "@/db/schema.ts";

export async function insertProblemReport(
  tx: Tx,
  r: { repairerId: number; partId: number; reason: ProblemReason; note: string | null; at: Date },
): Promise<number> {
  const row = await tx.insertInto("shop_problem_reports").values({
    repairer_id: r.repairerId,
    part_id: r.partId,
    reason: r.reason,
    note: r.note,
    reported_at: r.at,
  }).returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/** Puts the photo on the shop's open report; whether it did. */
export async function setProblemPhotoIf(tx: Tx, id: number, repairerId: number, photoId: number) {
  const row = await tx.updateTable("shop_problem_reports").set({ photo_id: photoId })
    .where("id", "=", id).where("repairer_id", "=", repairerId).where("state", "=", "open")
    .returning("id").executeTakeFirst();
  return row !== undefined;
}

/** Resolves an open report; its part's claim when this call did, undefined when it was not open. */
export async function resolveProblemReportIf(tx: Tx, id: number, userId: number, at: Date) {
  return await tx.updateTable("shop_problem_reports as r")
    .set({ state: "resolved", resolved_by: userId, resolved_at: at })
    .from("parts_orders as p")
    .whereRef("p.id", "=", "r.part_id")
    .where("r.id", "=", id).where("r.state", "=", "open")
    .returning(["p.claim_id", "r.repairer_id"]).executeTakeFirst();
}

function reportsWithNames(db: Db) {
  return db.selectFrom("shop_problem_reports as r")
    .innerJoin("parts_orders as p", "p.id", "r.part_id")
    .innerJoin("claims as c", "c.id", "p.claim_id")
    .innerJoin("repairers as s", "s.id", "r.repairer_id")
    .leftJoin("users as u", "u.id", "r.resolved_by")
    .select([
      "r.id",
      "r.repairer_id",
      "s.name as repairer_name",
      "r.part_id",
      "p.part_no",
      "p.description",
      "p.status",
      "c.claim_number",
      "c.registration",
      "r.reason",
      "r.note",
      "r.photo_id",
      "r.reported_at",
      "r.state",
      "u.name as resolved_by_name",
      "r.resolved_at",
    ]);
}

export type ProblemReportRow = Awaited<ReturnType<ReturnType<typeof reportsWithNames>["execute"]>>[number];

/** The open reports oldest first, at most `limit`. */
export async function openProblemReports(db: Db, limit: number): Promise<ProblemReportRow[]> {
  return await reportsWithNames(db).where("r.state", "=", "open").orderBy("r.id").limit(limit).execute();
}

/** The newest resolved reports, at most `limit`. */
export async function resolvedProblemReports(db: Db, limit: number): Promise<ProblemReportRow[]> {
  return await reportsWithNames(db).where("r.state", "=", "resolved")
    .orderBy("r.resolved_at", "desc").orderBy("r.id", "desc").limit(limit).execute();
}

/** One shop's reports, newest first (its page shows what it sent and whether HQ dealt with it). */
export async function problemReportsOfShop(
  db: Db,
  repairerId: number,
  limit: number,
): Promise<ProblemReportRow[]> {
  return await reportsWithNames(db).where("r.repairer_id", "=", repairerId)
    .orderBy("r.id", "desc").limit(limit).execute();
}

export async function problemReportById(db: Db | Tx, id: number): Promise<ProblemReportRow | undefined> {
  return await reportsWithNames(db).where("r.id", "=", id).executeTakeFirst();
}
