/**
 * Read queries of the HQ dashboard's movement pages: the filtered list, one movement with its parts and
 * photos, the open return trips, and the batches of the movements export.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { MovementStatus, MovementType } from "@/db/schema.ts";
import { fetchPage, type PageWindow } from "@/db/queries/dashboard_paging.ts";
import { movementParts, movementsWithNames } from "@/db/queries/movement_view.ts";
import { escapeLike, normaliseRego } from "@/lib/rego.ts";

export interface MovementFilters {
  type?: MovementType;
  status?: MovementStatus;
  rego?: string;
  driverId?: number;
}

export interface MovementRow {
  id: number;
  movement_type: MovementType;
  movement_status: MovementStatus;
  pick_up_at: Date;
  dropped_off_at: Date | null;
  claim_id: number;
  claim_number: string;
  registration: string;
  picked_up_by_name: string;
  dropped_off_by_name: string | null;
  repairer_name: string | null;
  hq_name: string | null;
  part_count: number;
}

function movementsQuery(db: Db, f: MovementFilters) {
  let q = movementsWithNames(db)
    // A return trip records no repair shop of its own: it comes from the claim's repairer.
    .leftJoin("claim_management as cm", "cm.claim_id", "c.id")
    .leftJoin("repairers as cr", "cr.id", "cm.repairer_id")
    .select([
      "c.id as claim_id",
      sql<string | null>`coalesce(r.name, cr.name)`.as("repairer_name"),
      sql<number>`(select count(*) from deliver_parts d where d.movement_id = m.id)`.as("part_count"),
    ]);
  if (f.type) q = q.where("m.movement_type", "=", f.type);
  if (f.status) q = q.where("m.movement_status", "=", f.status);
  const rego = f.rego ? normaliseRego(f.rego) : "";
  if (rego) q = q.where("c.registration_norm", "like", `%${escapeLike(rego)}%`);
  if (f.driverId) {
    const id = f.driverId;
    q = q.where((eb) => eb.or([eb("m.picked_up_by", "=", id), eb("m.dropped_off_by", "=", id)]));
  }
  return q;
}

/** One page of movements, newest first. */
export async function searchMovements(
  db: Db,
  filters: MovementFilters,
  page: PageWindow,
): Promise<{ rows: MovementRow[]; more: boolean }> {
  return await fetchPage(
    movementsQuery(db, filters).orderBy("m.pick_up_at", "desc").orderBy("m.id", "desc"),
    page,
  );
}

export async function movementDetail(db: Db, movementId: number) {
  const movement = await movementsQuery(db, {}).where("m.id", "=", movementId).executeTakeFirst();
  if (!movement) return null;
  const [parts, announcements] = await Promise.all([
    movementParts(db, movementId),
    db.selectFrom("announcements")
      .select(["id", "title", "channel", "state", "attempts", "last_error", "delivered_at", "created_at"])
      .where("movement_id", "=", movementId)
      .orderBy("id")
      .execute(),
  ]);
  return { movement, parts, announcements };
}

export type MovementDetail = NonNullable<Awaited<ReturnType<typeof movementDetail>>>;

/** Reverse movements picked up and not yet back at HQ, oldest first, with the parts still on the truck. */
export async function openReturnTrips(db: Db) {
  return await movementsQuery(db, { type: "reverse", status: "Parts Picked Up" })
    .select(
      sql<number>`(select count(*) from deliver_parts d where d.movement_id = m.id and not d.delivery)`
        .as("parts_on_truck"),
    )
    .orderBy("m.pick_up_at").orderBy("m.id")
    .execute();
}

/** Drivers and other users who may appear on movements, for the driver filter. */
export async function listMovers(db: Db) {
  return await db.selectFrom("users").select(["id", "name", "role"]).orderBy("name").execute();
}

export interface MovementExportRow extends MovementRow {
  part_numbers: string | null;
}

/** The next batch of the movements export, in id order after `afterId` (keyset pagination). */
export async function movementExportBatch(
  db: Db,
  filters: MovementFilters,
  afterId: number,
  limit: number,
): Promise<MovementExportRow[]> {
  return await movementsQuery(db, filters)
    .select(
      sql<string | null>`(select string_agg(p.part_no, '; ' order by d.id) from deliver_parts d
        join parts_orders p on p.id = d.part_id where d.movement_id = m.id)`.as("part_numbers"),
    )
    .where("m.id", ">", afterId)
    .orderBy("m.id")
    .limit(limit)
    .execute();
}
