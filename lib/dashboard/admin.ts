/** The data of the dashboard's admin pages: the users, the repair shops and the HQ locations. */
import type { Db } from "@/db/client.ts";
import { listHqLocations, listRepairers } from "@/db/queries/places.ts";
import { listUsers } from "@/db/queries/users.ts";
import { MAX_PIN_CHECKS } from "@/lib/pin_attempts.ts";

/** Every user, active ones first. */
export const usersPage = (db: Db) => listUsers(db, MAX_PIN_CHECKS);

export type UserRow = Awaited<ReturnType<typeof usersPage>>[number];

/** Every repair shop (inactive ones last) and every HQ location. */
export async function placesPage(db: Db) {
  const [repairers, hqLocations] = await Promise.all([listRepairers(db), listHqLocations(db)]);
  return { repairers, hqLocations };
}

export type PlacesPageData = Awaited<ReturnType<typeof placesPage>>;
