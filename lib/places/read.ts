/**
 * Places with their details, typed for the pages that show them (the admin page, the run sheet): numbers
 * for coordinates, OpeningHours for the stored JSON, and the hours as a person reads them.
 */
import type { Db } from "@/db/client.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import { hqLocationDetailRows, repairerDetailRows } from "@/db/queries/places.ts";
import { formatOpeningHours, type OpeningHours, storedOpeningHours } from "@/lib/places/hours.ts";

export interface LatLng {
  latitude: number;
  longitude: number;
}

export interface RepairerDetails {
  id: number;
  name: string;
  address: string | null;
  active: boolean;
  phone: string | null;
  /** Contact e-mail addresses, lower case. */
  emails: string[];
  /** Null when not known. */
  coordinates: LatLng | null;
  /** Null when not known. */
  openingHours: OpeningHours | null;
  /** "Mon–Fri 07:30–17:00, Sat 08:00–12:00", or null when not known. */
  openingHoursText: string | null;
}

export interface HqLocationDetails {
  id: number;
  name: string;
  coordinates: LatLng | null;
}

/** Coordinates from the two numeric columns, both or neither (check constraint). */
function coordinatesOf(row: { latitude: number | null; longitude: number | null }): LatLng | null {
  return row.latitude === null || row.longitude === null
    ? null
    : { latitude: row.latitude, longitude: row.longitude };
}

/** Repair shops with their details, active first then by name; only `ids` when given (missing ids left out). */
export async function repairersWithDetails(
  db: QueryRunner | Db,
  ids?: readonly number[],
): Promise<RepairerDetails[]> {
  const rows = await repairerDetailRows(db, ids);
  return rows.map((row) => {
    const openingHours = storedOpeningHours(row.opening_hours);
    return {
      id: row.id,
      name: row.name,
      address: row.address,
      active: row.active,
      phone: row.phone,
      emails: row.emails,
      coordinates: coordinatesOf(row),
      openingHours,
      openingHoursText: openingHours && formatOpeningHours(openingHours),
    };
  });
}

/** One repair shop with its details; undefined when there is none. */
export async function repairerWithDetails(db: QueryRunner | Db, id: number) {
  return (await repairersWithDetails(db, [id]))[0];
}

/** HQ locations with their coordinates, by id. */
export async function hqLocationsWithDetails(db: QueryRunner | Db): Promise<HqLocationDetails[]> {
  return (await hqLocationDetailRows(db)).map((row) => ({
    id: row.id,
    name: row.name,
    coordinates: coordinatesOf(row),
  }));
}
