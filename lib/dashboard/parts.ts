/** The data of the dashboard's parts pages: the filtered parts list, and one part with what may change. */
import type { Db } from "@/db/client.ts";
import { partDetail, type PartFilters, type PartSortColumn, searchParts } from "@/db/queries/parts.ts";
import type { ListSort } from "@/db/queries/sorting.ts";
import { listRepairers } from "@/db/queries/places.ts";
import { openReturnTripOf } from "@/db/queries/movements.ts";
import type { KeysetWindow } from "@/db/queries/paging.ts";
import { transitionsFrom } from "@/lib/part_status.ts";
import { handoversOfMovementLegs } from "@/lib/handover/shown.ts";

/** One page of parts in the asked order, and the repair shops the filter offers. */
export async function partsPage(
  db: Db,
  filters: PartFilters,
  paging: KeysetWindow,
  sort: ListSort<PartSortColumn>,
) {
  const [page, repairers] = await Promise.all([
    searchParts(db, filters, paging, sort),
    listRepairers(db),
  ]);
  return { ...page, repairers };
}

export type PartsPageData = Awaited<ReturnType<typeof partsPage>>;

/**
 * One part with its claim, history and movements, the status changes a dispatcher may make now, and the
 * open return trip carrying it (its status is then not the dashboard's to change), the handovers of its
 * movements' legs (docs/handover.md); null when there is none.
 */
export async function partPage(db: Db, id: number) {
  const detail = await partDetail(db, id);
  if (!detail) return null;
  const [openTrip, handovers] = await Promise.all([
    detail.part.status === "Picked Up from Repair Shop" ? openReturnTripOf(db, id) : null,
    handoversOfMovementLegs(
      db,
      detail.movements.map((m) => ({
        id: m.id,
        type: m.movement_type,
        returned: m.delivery_photo_id !== null,
      })),
    ),
  ]);
  return { detail, transitions: transitionsFrom(detail.part.status), openTrip, handovers };
}

export type PartPageData = NonNullable<Awaited<ReturnType<typeof partPage>>>;
