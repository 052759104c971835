/**
 * Reads of the movements family for pages: the dashboard's filtered list, one movement in full, the open
 * return trips, the export batches, the movements of a part, and the tablet's receipt. Every one starts
 * from the movement with its claim, drivers, own repair shop and HQ (`movementsWithNames`).
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { MovementStatus, MovementType } from "@/db/schema.ts";
import { announcementsOfMovement } from "@/db/queries/announcements.ts";
import { regoContains } from "@/db/queries/like.ts";
import { fetchKeysetPage, type KeysetPage, type KeysetWindow } from "@/db/queries/paging.ts";
import { col, type ListSort, namesOf, type SortColumns, walked } from "@/db/queries/sorting.ts";

/**
 * Movements with their claim, the drivers' names and the names of the repair shop and HQ the movement
 * itself records (callers add columns, joins and filters). A return trip records no repair shop: `r` is
 * then empty.
 */
function movementsWithNames(db: Db) {
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

export interface MovementFilters {
  type?: MovementType;
  status?: MovementStatus;
  /** Normalised (lib/rego.ts): the caller normalises what was typed. */
  rego?: string;
  driverId?: number;
  /** Picked up from `from` (included) to `before` (excluded): the depot's days the caller resolved. */
  pickedUp?: { from?: Date; before?: Date };
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
  /** Who picked the parts up, for the driver filter link. */
  picked_up_by: number;
}

/** A row of the movements list: with its first part's photo (delivery, else pick-up). */
export interface MovementListRow extends MovementRow {
  photo_id: number | null;
}

function movementsQuery(db: Db, f: MovementFilters) {
  let q = movementsWithNames(db)
    // The movement's place: its own repair shop, or a return trip's claim's shop when it was picked up
    // (`place_repairer_id`, migration 20261218T0900_movement_place).
    .leftJoin("repairers as pr", "pr.id", "m.place_repairer_id")
    .select([
      "c.id as claim_id",
      "pr.name as repairer_name",
      "m.part_count",
      "m.picked_up_by",
    ]);
  if (f.type) q = q.where("m.movement_type", "=", f.type);
  if (f.status) q = q.where("m.movement_status", "=", f.status);
  if (f.rego) q = q.where(regoContains("m.claim_id", "c.registration_norm", f.rego));
  if (f.driverId) {
    const id = f.driverId;
    q = q.where((eb) => eb.or([eb("m.picked_up_by", "=", id), eb("m.dropped_off_by", "=", id)]));
  }
  if (f.pickedUp?.from) q = q.where("m.pick_up_at", ">=", f.pickedUp.from);
  if (f.pickedUp?.before) q = q.where("m.pick_up_at", "<", f.pickedUp.before);
  return q;
}

/** The columns the movements list sorts by (sorting.ts), as its headings name them. */
export const MOVEMENT_SORT_COLUMNS = {
  id: col("m.id", "int"),
  type: col("m.movement_type", "text"),
  status: col("m.movement_status", "text"),
  rego: col("c.registration", "text"),
  // The movement's place (stored: its own repair shop, or a return trip's claim's when picked up): walked
  // like the driver, the shops in name order and each one's movements through (place_repairer_id, id);
  // movements without a place are read only when a page reaches them (paging.ts).
  place: {
    ...col("pr.name", "text", true),
    walk: {
      entities: namesOf("repairers"),
      paths: [{ ref: sql.ref("m.place_repairer_id") }],
      nulls: sql<boolean>`m.place_repairer_id is null`,
    },
  },
  // The driver's name: walked (sorting.ts `walked`), the users in name order and each one's movements.
  driver: walked("pu.name", "users", "m.picked_up_by"),
  picked_up: col("m.pick_up_at", "time"),
  dropped_off: col("m.dropped_off_at", "time", true),
  parts: col("m.part_count", "int"),
} satisfies SortColumns<string>;
export type MovementSortColumn = keyof typeof MOVEMENT_SORT_COLUMNS;
export const MOVEMENT_SORTS = Object.keys(MOVEMENT_SORT_COLUMNS) as [
  MovementSortColumn,
  ...MovementSortColumn[],
];
/** Newest pick-up first, unless the list asks otherwise. */
export const MOVEMENT_DEFAULT_SORT: ListSort<MovementSortColumn> = { column: "picked_up", dir: "desc" };

/** The columns the open return trips sort by: the movements' own, less those every open trip shares. */
const TRIP_SORT_SQL = {
  id: MOVEMENT_SORT_COLUMNS.id,
  rego: MOVEMENT_SORT_COLUMNS.rego,
  driver: MOVEMENT_SORT_COLUMNS.driver,
  picked_up: MOVEMENT_SORT_COLUMNS.picked_up,
  place: MOVEMENT_SORT_COLUMNS.place,
  hq: col("hq.name", "text", true),
  parts: MOVEMENT_SORT_COLUMNS.parts,
} satisfies SortColumns<string>;
export type TripSortColumn = keyof typeof TRIP_SORT_SQL;
export const TRIP_SORTS = Object.keys(TRIP_SORT_SQL) as [TripSortColumn, ...TripSortColumn[]];
/** Oldest pick-up first (the longest on the road), unless the list asks otherwise. */
export const TRIP_DEFAULT_SORT: ListSort<TripSortColumn> = { column: "picked_up", dir: "asc" };

/**
 * Whether the driver sort walks the users (sorting.ts `SortWalk`) under these filters. The walk reads each
 * driver's movements in id order until a page of them passes the filters: fast when most do (none, or a
 * type: one in five at least). A status, rego, driver or date filter can leave a few rows in a million,
 * which the walk would read a whole driver's movements to find; the list then sorts the rows the filter's
 * own index finds, as before.
 */
const walksUnder = (f: MovementFilters) => !f.status && !f.rego && !f.driverId && !f.pickedUp;

/** One page of movements in the sort's order (then by id), with the cursors of the pages beside it. */
export async function searchMovements(
  db: Db,
  filters: MovementFilters,
  page: KeysetWindow,
  sort: ListSort<MovementSortColumn> = MOVEMENT_DEFAULT_SORT,
): Promise<KeysetPage<MovementListRow>> {
  const firstPhoto = sql<number | null>`(select coalesce(d.delivery_photo_id, d.pickup_photo_id)
    from deliver_parts d where d.movement_id = m.id
    and coalesce(d.delivery_photo_id, d.pickup_photo_id) is not null order by d.id limit 1)`;
  const column = MOVEMENT_SORT_COLUMNS[sort.column];
  return await fetchKeysetPage(
    movementsQuery(db, filters).select(firstPhoto.as("photo_id")),
    {
      column: walksUnder(filters) ? column : { ...column, walk: undefined },
      dir: sort.dir,
      id: sql.ref("m.id"),
    },
    page,
  );
}

/** One movement with its parts and its announcements; null when there is none. */
export async function movementDetail(db: Db, movementId: number) {
  const movement = await movementsQuery(db, {}).where("m.id", "=", movementId).executeTakeFirst();
  if (!movement) return null;
  const [parts, announcements] = await Promise.all([
    movementParts(db, movementId),
    announcementsOfMovement(db, movementId),
  ]);
  return { movement, parts, announcements };
}

/** Reverse movements picked up and not yet back at HQ, oldest first, with the parts still on the truck. */
export async function openReturnTrips(
  db: Db,
  sort: ListSort<TripSortColumn> = TRIP_DEFAULT_SORT,
) {
  return await movementsQuery(db, { type: "reverse", status: "Parts Picked Up" })
    .select(
      sql<number>`(select count(*) from deliver_parts d where d.movement_id = m.id and not d.delivery)`
        .as("parts_on_truck"),
    )
    .orderBy(TRIP_SORT_SQL[sort.column].expr, sort.dir).orderBy("m.id", sort.dir)
    .execute();
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

/** The movements that carried a part, newest first, with the part's photos on each. */
export async function movementsOfPart(db: Db, partId: number) {
  return await db.selectFrom("deliver_parts as d")
    .innerJoin("parts_movements as m", "m.id", "d.movement_id")
    .select([
      "m.id",
      "m.movement_type",
      "m.movement_status",
      "m.pick_up_at",
      "m.dropped_off_at",
      "d.pickup_photo_id",
      "d.delivery_photo_id",
    ])
    .where("d.part_id", "=", partId)
    .orderBy("m.id", "desc")
    .execute();
}

/**
 * A movement for the tablet's receipt, with the ids of its drivers; undefined when there is none. The
 * repair shop is the movement's place (`place_repairer_id`, recorded when it was written): a delivery's own
 * shop, a return trip's pickup shop, never the claim's shop of today.
 */
export async function receiptMovement(db: Db, movementId: number) {
  return await movementsWithNames(db)
    .leftJoin("repairers as pr", "pr.id", "m.place_repairer_id")
    .select([
      "pr.name as repairer",
      "m.picked_up_by as picked_up_by_id",
      "m.dropped_off_by as dropped_off_by_id",
    ])
    .where("m.id", "=", movementId)
    .executeTakeFirst();
}

/**
 * Every part carried on every movement of a claim (one row per Deliver_Parts), in movement then part
 * order: the movement's times, drivers and places, and the stored file of each photo (its storage key is
 * the SHA-256 recorded when it was stored).
 */
export async function carriedPartsOfClaim(db: Db, claimId: number) {
  return await movementsWithNames(db)
    .innerJoin("deliver_parts as d", "d.movement_id", "m.id")
    .innerJoin("parts_orders as p", "p.id", "d.part_id")
    .innerJoin("photos as pp", "pp.id", "d.pickup_photo_id")
    .leftJoin("photos as dp", "dp.id", "d.delivery_photo_id")
    // The movement's place, as the movements list shows it: a return trip's is its pickup shop.
    .leftJoin("repairers as pr", "pr.id", "m.place_repairer_id")
    .select([
      "pr.name as repairer_name",
      "d.part_id",
      "p.part_no",
      "d.pickup_photo_id",
      "pp.storage_key as pickup_key",
      "pp.byte_size as pickup_bytes",
      "pp.content_type as pickup_type",
      "d.delivery_photo_id",
      "dp.storage_key as delivery_key",
      "dp.byte_size as delivery_bytes",
      "dp.content_type as delivery_type",
    ])
    .where("m.claim_id", "=", claimId)
    .orderBy("m.id").orderBy("d.id")
    .execute();
}
