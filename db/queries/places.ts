/**
 * Queries of the places: repair shops (repairers) and HQ locations. Names are unique per kind; the unique
 * index decides a clash between two writers (`ON CONFLICT`, or error 23505 for a rename).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import type { HqLocationsTable, RepairersTable } from "@/db/schema.ts";
import type { Insertable, Updateable } from "kysely";

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

/** A repair shop's columns with its details (docs/dashboard.md "Places"). */
const REPAIRER_DETAILS = [
  "id",
  "name",
  "address",
  "active",
  "phone",
  "emails",
  "latitude",
  "longitude",
  "opening_hours",
] as const;

/**
 * Repair shops with their details, inactive ones last; only `ids` when given. Opening hours come as stored
 * JSON: lib/places/read.ts types them.
 */
export async function repairerDetailRows(db: QueryRunner, ids?: readonly number[]) {
  let query = db.selectFrom("repairers").select(REPAIRER_DETAILS);
  if (ids) {
    if (ids.length === 0) return [];
    query = query.where("id", "=", sql<number>`any(${[...ids]}::int[])`);
  }
  return await query.orderBy("active", "desc").orderBy("name").orderBy("id").execute();
}

/** HQ locations with their coordinates, by id. */
export async function hqLocationDetailRows(db: QueryRunner) {
  return await db.selectFrom("hq_locations").select(["id", "name", "latitude", "longitude"]).orderBy("id")
    .execute();
}

/** A repair shop's details as written (name aside): every field the admin form and the import set. */
export type RepairerDetailsWrite = Pick<
  Insertable<RepairersTable>,
  "address" | "phone" | "emails" | "latitude" | "longitude" | "opening_hours"
>;

/** What an edit of a place may set beside its name. */
export type PlaceUpdate = Pick<
  Updateable<RepairersTable>,
  "address" | "phone" | "emails" | "latitude" | "longitude" | "opening_hours"
>;

/** Inserts a repair shop; undefined when the name is taken. */
export async function insertRepairerUnlessNameTaken(
  db: Db,
  shop: { name: string } & RepairerDetailsWrite,
) {
  return await db.insertInto("repairers").values(shop)
    .onConflict((oc) => oc.column("name").doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Inserts an HQ location; undefined when the name is taken. */
export async function insertHqLocationUnlessNameTaken(
  db: Db,
  place: Pick<Insertable<HqLocationsTable>, "name" | "latitude" | "longitude">,
) {
  return await db.insertInto("hq_locations").values(place)
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

/**
 * Renames a place (with `also`: a repair shop's details, an HQ location's coordinates); undefined when there
 * is no such place.
 */
export async function renamePlaceRow(
  db: Db,
  table: PlaceTable,
  id: number,
  name: string,
  also: PlaceUpdate = {},
) {
  return await db.updateTable(table)
    // An HQ location is only ever given its coordinates here (lib/admin/places.ts).
    .set({ name, ...also } as Updateable<RepairersTable>)
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

/**
 * Inserts HQ locations, or sets the coordinates of the ones that exist by name; a row without coordinates
 * keeps those on record.
 */
export async function upsertHqLocations(
  db: Db,
  rows: { name: string; latitude: number | null; longitude: number | null }[],
): Promise<void> {
  await db.insertInto("hq_locations").values(rows)
    .onConflict((oc) =>
      oc.column("name").doUpdateSet({
        latitude: sql`coalesce(excluded.latitude, hq_locations.latitude)`,
        longitude: sql`coalesce(excluded.longitude, hq_locations.longitude)`,
      })
    )
    .execute();
}

/** A repair shop as the import writes it: null (or, for `emails`, undefined) keeps the value on record. */
export interface RepairerImportRow {
  name: string;
  address: string | null;
  phone: string | null;
  emails: string[] | undefined;
  latitude: number | null;
  longitude: number | null;
  /** The stored JSON text, or null. */
  opening_hours: string | null;
}

/**
 * Inserts or updates repair shops by name; a field left out keeps the value on record. The rows that give
 * their e-mails and those that do not go in two statements: `emails` is never null, so "left out" has no
 * value of its own in one statement.
 */
export async function upsertRepairers(db: Db, rows: RepairerImportRow[]): Promise<void> {
  const keep = (column: string) =>
    sql<never>`coalesce(${sql.ref(`excluded.${column}`)}, ${sql.ref(`repairers.${column}`)})`;
  const kept = {
    address: keep("address"),
    phone: keep("phone"),
    latitude: keep("latitude"),
    longitude: keep("longitude"),
    opening_hours: keep("opening_hours"),
  };
  const withEmails = rows.filter((r) => r.emails !== undefined);
  const without = rows.filter((r) => r.emails === undefined).map(({ emails: _, ...row }) => row);
  if (withEmails.length) {
    await db.insertInto("repairers").values(withEmails.map((r) => ({ ...r, emails: r.emails! })))
      .onConflict((oc) => oc.column("name").doUpdateSet({ ...kept, emails: sql<string[]>`excluded.emails` }))
      .execute();
  }
  if (without.length) {
    await db.insertInto("repairers").values(without)
      .onConflict((oc) => oc.column("name").doUpdateSet(kept))
      .execute();
  }
}
