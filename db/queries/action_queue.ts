/**
 * The action queue's reads (docs/action-queue.md): the oldest waiting rows of each kind, and one statement
 * counting them all for the header. Every read is bounded by an index range and a limit, so its cost does
 * not grow with the depot's history: open return requests and problem reports (partial indexes on the open
 * state), parts Arrived on claims without a shop (`claims_without_shop`), failed announcements
 * (`announcements_state`), and late parts by status and the time they entered it (`parts_orders.updated_at`,
 * which every status change sets: index `parts_orders_status_updated`), of which only the oldest `window`
 * per status are read and grouped by shop.
 */
import { type ExpressionBuilder, sql } from "kysely";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import type { Database, PartStatus } from "@/db/schema.ts";

export async function openReturnRequestItems(db: QueryRunner, limit: number) {
  return await db.selectFrom("return_requests as r")
    .innerJoin("claims as c", "c.id", "r.claim_id")
    .innerJoin("users as u", "u.id", "r.requested_by")
    .leftJoin("repairers as s", "s.id", "r.repairer_id")
    .select((eb) => [
      "r.id",
      "r.requested_at",
      "r.note",
      "c.claim_number",
      "c.registration",
      "s.name as repairer_name",
      "u.name as requested_by_name",
      eb.selectFrom("return_request_parts as rp").innerJoin("parts_orders as p", "p.id", "rp.part_id")
        .whereRef("rp.request_id", "=", "r.id").where("p.status", "=", "Delivered to Repair Shop directly")
        .select(eb.fn.countAll<number>().as("n")).as("at_shop"),
    ])
    .where("r.state", "=", "open")
    .orderBy("r.requested_at").orderBy("r.id").limit(limit).execute();
}

export async function openProblemReportItems(db: QueryRunner, limit: number) {
  return await db.selectFrom("shop_problem_reports as r")
    .innerJoin("parts_orders as p", "p.id", "r.part_id")
    .innerJoin("claims as c", "c.id", "p.claim_id")
    .innerJoin("repairers as s", "s.id", "r.repairer_id")
    .select([
      "r.id",
      "r.reason",
      "r.note",
      "r.reported_at",
      "r.part_id",
      "p.part_no",
      "c.claim_number",
      "s.name as repairer_name",
    ])
    .where("r.state", "=", "open")
    .orderBy("r.reported_at").orderBy("r.id").limit(limit).execute();
}

/** Claims without a repair shop with parts Arrived at HQ (docs/runs.md "Needs HQ"), longest waiting first. */
export async function noShopClaimItems(db: QueryRunner, limit: number) {
  return await db.selectFrom("claims as c")
    .innerJoin("parts_orders as p", "p.claim_id", "c.id")
    .select((eb) => [
      "c.id",
      "c.claim_number",
      "c.registration",
      eb.fn.countAll<number>().as("parts"),
      eb.fn.min("p.updated_at").as("since"),
    ])
    .where("c.has_shop", "=", false).where("p.status", "=", "Arrived")
    .groupBy("c.id")
    .orderBy("since").orderBy("c.id").limit(limit).execute();
}

/** The failed announcement rows (one channel each), oldest first. */
export async function failedAnnouncementItems(db: QueryRunner, limit: number) {
  return await db.selectFrom("announcements as a")
    .leftJoin("repairers as s", "s.id", "a.repairer_id")
    .select([
      "a.id",
      "a.title",
      "a.channel",
      "a.created_at",
      "a.last_error",
      "s.name as repairer_name",
      sql<string | null>`a.body->>'rego'`.as("rego"),
    ])
    .where("a.state", "=", "failed")
    .orderBy("a.id").limit(limit).execute();
}

/**
 * The late parts in `status` (entered before `before`), the oldest `window` of them, grouped by the claim's
 * repair shop (null: no shop on record): how many and since when; and how many were read (= `window`: the
 * window was full and older groups may hold more).
 */
export async function latePartGroups(
  db: QueryRunner,
  p: { status: PartStatus; before: Date; window: number },
) {
  const rows = await db.selectFrom((eb) => oldestLate(eb, p).as("p"))
    .leftJoin("claim_management as cm", "cm.claim_id", "p.claim_id")
    .leftJoin("repairers as s", "s.id", "cm.repairer_id")
    .select((eb) => [
      "cm.repairer_id",
      "s.name as repairer_name",
      eb.fn.countAll<number>().as("parts"),
      eb.fn.min("p.updated_at").as("since"),
    ])
    .groupBy(["cm.repairer_id", "s.name"])
    .execute();
  return rows.map((r) => ({ ...r, parts: Number(r.parts) }));
}

/** The oldest `window` parts in `status` since before `before` (index parts_orders_status_updated). */
function oldestLate(
  eb: ExpressionBuilder<Database, never>,
  p: { status: PartStatus; before: Date; window: number },
) {
  return eb.selectFrom("parts_orders").select(["claim_id", "updated_at"])
    .where("status", "=", p.status).where("updated_at", "<", p.before)
    .orderBy("updated_at").orderBy("id").limit(p.window);
}

export interface QueueCountInput {
  /** Each kind's count stops here (+1 to tell "more"). */
  cap: number;
  late: { status: PartStatus; before: Date; window: number }[];
}

/**
 * The header's figure in one statement: each kind's count, capped at `cap + 1` rows read, and per late
 * status the number of shops among its oldest `window` late parts (the queue's late items).
 */
export async function queueCounts(db: QueryRunner, input: QueueCountInput) {
  const row = await db.selectFrom(sql`(select 1)`.as("one"))
    .select((eb) => [
      eb.selectFrom(
        eb.selectFrom("return_requests").select("id").where("state", "=", "open").limit(input.cap + 1)
          .as("x"),
      ).select(eb.fn.countAll<number>().as("n")).as("return_requests"),
      eb.selectFrom(
        eb.selectFrom("shop_problem_reports").select("id").where("state", "=", "open").limit(input.cap + 1)
          .as("x"),
      ).select(eb.fn.countAll<number>().as("n")).as("problem_reports"),
      eb.selectFrom(
        eb.selectFrom("claims as c").select("c.id").where("c.has_shop", "=", false)
          .where((w) =>
            w.exists(
              w.selectFrom("parts_orders as p").select("p.id").whereRef("p.claim_id", "=", "c.id")
                .where("p.status", "=", "Arrived"),
            )
          ).limit(input.cap + 1).as("x"),
      ).select(eb.fn.countAll<number>().as("n")).as("no_shop"),
      eb.selectFrom(
        eb.selectFrom("announcements").select("id").where("state", "=", "failed").limit(input.cap + 1)
          .as("x"),
      ).select(eb.fn.countAll<number>().as("n")).as("failed"),
      ...input.late.map((l, i) =>
        eb.selectFrom((e) => oldestLate(e, l).as("p"))
          .leftJoin("claim_management as cm", "cm.claim_id", "p.claim_id")
          .select(sql<number>`count(distinct coalesce(cm.repairer_id, 0))`.as("n"))
          .as(`late_${i}`)
      ),
    ])
    .executeTakeFirstOrThrow() as Record<string, unknown>;
  const n = (key: string) => Number(row[key] ?? 0);
  return {
    returnRequests: n("return_requests"),
    problemReports: n("problem_reports"),
    noShop: n("no_shop"),
    failed: n("failed"),
    late: input.late.map((_, i) => n(`late_${i}`)),
  };
}
