/** The data of the dashboard's movement pages: the filtered list, one movement, the open return trips. */
import type { Db } from "@/db/client.ts";
import {
  movementDetail,
  type MovementFilters,
  type MovementSortColumn,
  openReturnTrips,
  searchMovements,
  type TripSortColumn,
} from "@/db/queries/movement_reads.ts";
import { listMovers } from "@/db/queries/users.ts";
import type { KeysetWindow } from "@/db/queries/paging.ts";
import type { ListSort } from "@/db/queries/sorting.ts";
import { handoversOfMovementLegs } from "@/lib/handover/shown.ts";

/** One page of movements in the asked order, and the people the driver filter offers. */
export async function movementsPage(
  db: Db,
  filters: MovementFilters,
  paging: KeysetWindow,
  sort: ListSort<MovementSortColumn>,
) {
  const [page, drivers] = await Promise.all([
    searchMovements(db, filters, paging, sort),
    listMovers(db),
  ]);
  return { ...page, drivers };
}

export type MovementsPageData = Awaited<ReturnType<typeof movementsPage>>;
export type MovementRow = MovementsPageData["rows"][number];

/** One movement with its parts, photos, announcements and the handover of each leg; null when there is none. */
export async function movementPage(db: Db, id: number) {
  const detail = await movementDetail(db, id);
  if (!detail) return null;
  const { movement: m, parts } = detail;
  const returned = m.movement_type === "reverse" && parts.some((p) => p.delivery);
  const handovers = await handoversOfMovementLegs(db, [{ id: m.id, type: m.movement_type, returned }]);
  return { ...detail, handovers: handovers.get(m.id)! };
}

export type MovementPageData = NonNullable<Awaited<ReturnType<typeof movementPage>>>;

/** Return trips picked up and not yet back at HQ, in the asked order, with the parts still on the truck. */
export const openTripsPage = (db: Db, sort: ListSort<TripSortColumn>) => openReturnTrips(db, sort);

export type OpenTrip = Awaited<ReturnType<typeof openTripsPage>>[number];
