/**
 * What a repair shop's page shows (docs/shop-page.md "What the page shows"), for that shop only: parts on the
 * way (at HQ for its claims, and whether today's run plan has a driver on it), parts it holds with the
 * delivery that brought each (time, driver, photo), parts flagged for return and not yet collected, and its
 * last collections.
 */
import type { Db } from "@/db/client.ts";
import { runStopsOf } from "@/db/queries/run_sheet.ts";
import {
  type CollectionRow,
  collectionsFromShop,
  deliveriesOfParts,
  type DeliveryOfPart,
  type ShopPartRow,
  shopParts,
} from "@/db/queries/shop_page.ts";
import type { PartStatus } from "@/db/schema.ts";
import type { Clock } from "@/io/clock.ts";
import { dateInZone } from "@/io/time_zone.ts";

export const ON_THE_WAY: PartStatus = "Arrived";
export const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";
export const FLAGGED: PartStatus = "Pending Repair Shop Pick-Up";

/** Enough for any shop's day; the page says when a list is cut. */
export const SHOP_LIST_LIMIT = 200;
const COLLECTIONS_SHOWN = 10;

export interface HeldPart extends ShopPartRow {
  delivery: DeliveryOfPart | null;
}

export interface ShopPageData {
  repairerId: number;
  name: string;
  /** Today's plan for the shop: the driver assigned, if any (docs/runs.md). */
  todaysDriver: string | null;
  onTheWay: ShopPartRow[];
  held: HeldPart[];
  flagged: ShopPartRow[];
  collections: CollectionRow[];
  /** A list reached SHOP_LIST_LIMIT. */
  cut: boolean;
}

export async function shopPageData(
  db: Db,
  clock: Clock,
  timeZone: string,
  shop: { repairerId: number; name: string },
): Promise<ShopPageData> {
  const today = dateInZone(clock.now(), timeZone);
  const [onTheWay, held, flagged, collections, plan] = await Promise.all([
    shopParts(db, shop.repairerId, [ON_THE_WAY], SHOP_LIST_LIMIT),
    shopParts(db, shop.repairerId, [AT_SHOP], SHOP_LIST_LIMIT),
    shopParts(db, shop.repairerId, [FLAGGED], SHOP_LIST_LIMIT),
    collectionsFromShop(db, shop.repairerId, COLLECTIONS_SHOWN),
    runStopsOf(db, today),
  ]);
  const deliveries = new Map((await deliveriesOfParts(db, held.map((p) => p.id))).map((d) => [d.part_id, d]));
  return {
    repairerId: shop.repairerId,
    name: shop.name,
    todaysDriver: plan.find((s) => s.repairer_id === shop.repairerId)?.driver_name ?? null,
    onTheWay,
    held: held.map((p) => ({ ...p, delivery: deliveries.get(p.id) ?? null })),
    flagged,
    collections,
    cut: [onTheWay, held, flagged].some((list) => list.length === SHOP_LIST_LIMIT),
  };
}
