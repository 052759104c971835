/** The data of the dashboard's admin pages: the users, the repair shops and the HQ locations. */
import type { Db } from "@/db/client.ts";
import { listUsers } from "@/db/queries/users.ts";
import { MAX_PIN_CHECKS } from "@/lib/pin_attempts.ts";
import { hqLocationsWithDetails, repairersWithDetails } from "@/lib/places/read.ts";

/** Every user, active ones first. */
export const usersPage = (db: Db) => listUsers(db, MAX_PIN_CHECKS);

export type UserRow = Awaited<ReturnType<typeof usersPage>>[number];

/** Every repair shop (inactive ones last) and every HQ location, with their details. */
export async function placesPage(db: Db) {
  const [repairers, hqLocations] = await Promise.all([repairersWithDetails(db), hqLocationsWithDetails(db)]);
  return { repairers, hqLocations };
}

export type PlacesPageData = Awaited<ReturnType<typeof placesPage>>;
