/**
 * The reads every page showing one movement starts from (the dashboard's movement pages and the tablet's
 * receipt): the movement with its claim, drivers, own repair shop and HQ, and the parts it carried.
 */
import type { Db } from "@/db/client.ts";

/**
 * Movements with their claim, the drivers' names and the names of the repair shop and HQ the movement
 * itself records (callers add columns, joins and filters). A return trip records no repair shop: `r` is
 * then empty.
 */
export function movementsWithNames(db: Db) {
  return db.selectFrom("parts_movements as m")
    .innerJoin("claims as c", "c.id", "m.claim_id")
    .innerJoin("users as pu", "pu.id", "m.picked_up_by")
    .leftJoin("users as du", "du.id", "m.dropped_off_by")
    .leftJoin("repairers as r", "r.id", "m.repairer_id")
    .leftJoin("hq_locations as hq", "hq.id", "m.hq_location_id")
    .select([
      "m.id",
      "m.movement_type",
      "m.movement_status",
      "m.pick_up_at",
      "m.dropped_off_at",
      "c.claim_number",
      "c.registration",
      "pu.name as picked_up_by_name",
      "du.name as dropped_off_by_name",
      "hq.name as hq_name",
    ]);
}

/** The parts a movement carried, in the order they were recorded, with their photos and status now. */
export async function movementParts(db: Db, movementId: number) {
  return await db.selectFrom("deliver_parts as d")
    .innerJoin("parts_orders as p", "p.id", "d.part_id")
    .select([
      "d.id as delivery_id",
      "d.pickup",
      "d.delivery",
      "d.qty_ordered",
      "d.pickup_photo_id",
      "d.delivery_photo_id",
      "p.id as part_id",
      "p.part_no",
      "p.description",
      "p.status",
    ])
    .where("d.movement_id", "=", movementId)
    .orderBy("d.id")
    .execute();
}
