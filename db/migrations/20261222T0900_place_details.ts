/**
 * Places gain what a driver's day needs (docs/dashboard.md "Places"): a repair shop's
 * phone, contact e-mail addresses, coordinates and opening hours; an HQ location's coordinates.
 *
 * - `emails` is a text[] (not a child table): a shop has a handful, always read with the shop, never
 *   searched by address. Empty when none.
 * - Coordinates are numeric(9,6) (about 0.1 m), both or neither, in range: the database refuses the rest
 *   so a row written by any path (import, admin page, a hand-made statement) can be placed on a map.
 * - `opening_hours` is jsonb holding a week of intervals (lib/places/hours.ts validates its shape; the
 *   database checks only that it is an object); null when not known.
 *
 * Nullable columns without defaults, and one with a constant default: adding them rewrites nothing.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
async function addCoordinates(db: Kysely<any>, table: string): Promise<void> {
  await sql`alter table ${sql.table(table)}
    add column latitude numeric(9, 6),
    add column longitude numeric(9, 6),
    add constraint ${sql.id(`${table}_coordinates_paired`)}
      check ((latitude is null) = (longitude is null)),
    add constraint ${sql.id(`${table}_coordinates_range`)}
      check (latitude between -90 and 90 and longitude between -180 and 180)`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table repairers
    add column phone text,
    add column emails text[] not null default '{}',
    add column opening_hours jsonb,
    add constraint repairers_opening_hours_object
      check (opening_hours is null or jsonb_typeof(opening_hours) = 'object')`.execute(db);
  await addCoordinates(db, "repairers");
  await addCoordinates(db, "hq_locations");
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table hq_locations drop column latitude, drop column longitude`.execute(db);
  await sql`alter table repairers drop column latitude, drop column longitude, drop column phone,
    drop column emails, drop column opening_hours`.execute(db);
}
