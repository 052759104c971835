/** The data of the dashboard's movement pages: the filtered list, one movement, the open return trips. */
import type { Db } from "@/db/client.ts";
import {
  movementDetail,
  type MovementFilters,
  openReturnTrips,
  searchMovements,
} from "@/db/queries/movement_reads.ts";
import { listMovers } from "@/db/queries/users.ts";
import type { PageWindow } from "@/db/queries/paging.ts";

/** One page of movements, and the people the driver filter offers. */
export async function movementsPage(db: Db, filters: MovementFilters, paging: PageWindow) {
  const [{ rows, more }, drivers] = await Promise.all([searchMovements(db, filters, paging), listMovers(db)]);
  return { rows, more, drivers };
}

export type MovementsPageData = Awaited<ReturnType<typeof movementsPage>>;
export type MovementRow = MovementsPageData["rows"][number];

/** One movement with its parts, photos and announcements; null when there is none. */
export const movementPage = (db: Db, id: number) => movementDetail(db, id);

export type MovementPageData = NonNullable<Awaited<ReturnType<typeof movementPage>>>;

/** Return trips picked up and not yet back at HQ, oldest first, with the parts still on the truck. */
export const openTripsPage = (db: Db) => openReturnTrips(db);

export type OpenTrip = Awaited<ReturnType<typeof openTripsPage>>[number];
