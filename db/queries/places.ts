/**
 * Queries of the places: repair shops (repairers) and HQ locations. Names are unique per kind; the unique
 * index decides a clash between two writers (`ON CONFLICT`, or error 23505 for a rename).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";

/** The two tables of places, which share name handling. */
export type PlaceTable = "repairers" | "hq_locations";

/** Repair shops for filter and form choices; inactive ones last. */
export async function listRepairers(db: Db) {
  return await db.selectFrom("repairers").select(["id", "name", "address", "active"])
    .orderBy("active", "desc").orderBy("name").execute();
}

/** The repair shops a direct delivery may go to: active repairers, by name. */
export async function activeRepairersByName(db: Db): Promise<{ id: number; name: string }[]> {
  return await db.selectFrom("repairers").select(["id", "name"]).where("active", "=", true)
    .orderBy("name").orderBy("id").execute();
}

/** The repairer with this id if it is active (D15): a query to embed in a drop-off's read statement. */
export function activeRepairerQuery(db: QueryRunner, id: number | null) {
  return db.selectFrom("repairers").select(["id", "name"])
    .where("id", "=", sql<number>`${id}::int`).where("active", "=", true);
}

/**
 * The HQ a reverse trip goes to (D15): the user's home HQ, else the first HQ location by id. `homeHqId`: an
 * SQL expression (a submission reads its user in the same statement).
 */
export function hqLocationQuery(db: QueryRunner, homeHqId: RawBuilder<number | null>) {
  return db.selectFrom("hq_locations").select(["id", "name"])
    .orderBy(sql`case when id = coalesce(${homeHqId}, 0) then 0 else 1 end`)
    .orderBy("id")
    .limit(1);
}

/** One HQ location; Kysely's NoResultError when there is none (callers hold a reference to it). */
export async function hqLocationById(db: QueryRunner, id: number) {
  return await db.selectFrom("hq_locations").select(["id", "name"]).where("id", "=", id)
    .executeTakeFirstOrThrow();
}

export async function listHqLocations(db: Db) {
  return await db.selectFrom("hq_locations").select(["id", "name"]).orderBy("id").execute();
}

/** Inserts a repair shop; undefined when the name is taken. */
export async function insertRepairerUnlessNameTaken(db: Db, shop: { name: string; address: string | null }) {
  return await db.insertInto("repairers").values(shop)
    .onConflict((oc) => oc.column("name").doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Inserts an HQ location; undefined when the name is taken. */
export async function insertHqLocationUnlessNameTaken(db: Db, name: string) {
  return await db.insertInto("hq_locations").values({ name })
    .onConflict((oc) => oc.column("name").doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function updateRepairerActive(db: Db, id: number, active: boolean) {
  return await db.updateTable("repairers").set({ active })
    .where("id", "=", id).returningAll().executeTakeFirst();
}

/** A place's row, locked for the rest of the transaction (its state before an edit); undefined when none. */
export async function placeRowForUpdate(db: Db, table: PlaceTable, id: number) {
  return await db.selectFrom(table).selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

/** Whether another place of this kind (not `exceptId`) already has the name. */
export async function placeNameTaken(db: QueryRunner, table: PlaceTable, name: string, exceptId: number) {
  const clash = await db.selectFrom(table).select("id")
    .where("name", "=", name).where("id", "<>", exceptId).executeTakeFirst();
  return clash !== undefined;
}

/** Renames a place (with `also`, e.g. a repair shop's address); undefined when there is no such place. */
export async function renamePlaceRow(
  db: Db,
  table: PlaceTable,
  id: number,
  name: string,
  also: { address?: string | null } = {},
) {
  return await db.updateTable(table)
    .set({ name, ...also })
    .where("id", "=", id)
    .returning(["id", "name"])
    .executeTakeFirst();
}

/** Which of these repair shop names exist. */
export async function existingRepairerNames(db: QueryRunner, names: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom("repairers").select("name").where("name", "in", names).execute();
  return new Set(rows.map((r) => r.name));
}

/** Every repair shop's id by name. */
export async function repairerIdsByName(db: QueryRunner): Promise<Map<string, number>> {
  const rows = await db.selectFrom("repairers").select(["id", "name"]).execute();
  return new Map(rows.map((r) => [r.name, r.id]));
}

/** Inserts HQ locations, leaving the ones that exist by name. */
export async function upsertHqLocations(db: Db, rows: { name: string }[]): Promise<void> {
  await db.insertInto("hq_locations").values(rows).onConflict((oc) => oc.column("name").doNothing())
    .execute();
}

/** Inserts or updates repair shops by name; a row without an address keeps the address on record. */
export async function upsertRepairers(
  db: Db,
  rows: { name: string; address: string | null }[],
): Promise<void> {
  await db.insertInto("repairers").values(rows)
    .onConflict((oc) =>
      oc.column("name").doUpdateSet({ address: sql`coalesce(excluded.address, repairers.address)` })
    )
    .execute();
}
