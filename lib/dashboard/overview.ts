/**
 * The overview at `/hq` (docs/overview.md): what is where today and what is late, each figure with the
 * address of the parts list that shows exactly its parts.
 *
 * - Today: parts at HQ ready to deliver (`Arrived`) by the claim's repair shop now, on trucks (`Picked Up
 *   from Repair Shop`), at shops (`Delivered to Repair Shop directly`), flagged for return and waiting
 *   (`Pending Repair Shop Pick-Up`), and returned to HQ during the depot's day (a history row to
 *   `Returned to HQ` from the day's local midnight to the next, 23 or 25 hours when summer time starts or
 *   ends).
 * - Ageing: a part's "since" is the time it entered its status now (`parts_orders.updated_at`: every status
 *   change writes it with its history row's `changed_at`); its age is now − since. Parts held at a shop by
 *   age band, parts on a truck for at least `truck_hours`, returns waiting for at least
 *   `return_waiting_days`, by shop (lib/dashboard/ageing_thresholds.ts).
 */
import type { PartStatus } from "@/db/schema.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import {
  partsInStatusByShop,
  partsInStatusByShopAndAge,
  partsReturnedBetween,
  type ShopCount,
  shopNames,
} from "@/db/queries/overview.ts";
import { dateInZone, dayInZone } from "@/io/time_zone.ts";
import { type AgeingThresholds, ageingThresholds } from "@/lib/dashboard/ageing_thresholds.ts";

export const READY: PartStatus = "Arrived";
export const ON_TRUCK: PartStatus = "Picked Up from Repair Shop";
export const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";
export const FLAGGED: PartStatus = "Pending Repair Shop Pick-Up";

const HOUR_MS = 3_600_000;
const DAY_HOURS = 24;

/** A figure and the list that shows its parts. */
export interface Figure {
  count: number;
  href: string;
}

/** A shop's figure; `repairerId` null: claims without a repair shop. */
export interface ShopFigure extends Figure {
  repairerId: number | null;
  name: string;
}

export interface HeldRow {
  repairerId: number | null;
  name: string;
  /** Under band 1, band 1 to band 2, band 2 to band 3, band 3 and over (days). */
  bands: Figure[];
  /** Flagged for return and waiting at least `return_waiting_days`. */
  waitingLate: Figure;
}

export interface OverviewFigures {
  /** The depot's date now ("2026-11-21", DEPOT_TIME_ZONE). */
  date: string;
  ready: { total: Figure; shops: ShopFigure[]; noShop: Figure };
  onTrucks: Figure;
  atShops: Figure;
  flagged: Figure;
  returnedToday: Figure;
  thresholds: AgeingThresholds;
  /** One row per shop with parts held there or flagged for return, by name; claims without a shop last. */
  held: HeldRow[];
  truckLate: Figure;
  waitingLate: Figure;
}

export const NO_SHOP_NAME = "No repair shop";

/** The parts list's address for these filters (lib/dashboard/lists.ts). */
export function partsHref(filters: Record<string, string | number>): string {
  const q = new URLSearchParams(Object.entries(filters).map(([k, v]) => [k, String(v)]));
  return `/hq/parts?${q}`;
}

const shopParam = (id: number | null) => id === null ? "none" : id;

/** The instants of the depot's day of `now`. */
export function depotDay(now: Date, zone: string): { date: string; start: Date; end: Date } {
  const date = dateInZone(now, zone);
  return { date, ...dayInZone(date, zone) };
}

/** The age bands of held parts, in hours: [from, to) each, the last open-ended. */
export function heldBands(t: AgeingThresholds): { minHours?: number; maxHours?: number }[] {
  const edges = [t.held_band_1_days, t.held_band_2_days, t.held_band_3_days].map((d) => d * DAY_HOURS);
  return [
    { maxHours: edges[0] },
    { minHours: edges[0], maxHours: edges[1] },
    { minHours: edges[1], maxHours: edges[2] },
    { minHours: edges[2] },
  ];
}

function ageFilters(band: { minHours?: number; maxHours?: number }): Record<string, number> {
  return {
    ...(band.minHours !== undefined ? { min_age_h: band.minHours } : {}),
    ...(band.maxHours !== undefined ? { max_age_h: band.maxHours } : {}),
  };
}

const before = (now: Date, hours: number) => new Date(now.getTime() - hours * HOUR_MS);

/** Every figure of the overview at `now`, the depot's day being `zone`'s. */
export async function overviewFigures(db: QueryRunner, now: Date, zone: string): Promise<OverviewFigures> {
  const thresholds = await ageingThresholds(db);
  const day = depotDay(now, zone);
  const bands = heldBands(thresholds);
  const waitingHours = thresholds.return_waiting_days * DAY_HOURS;
  const [ready, held, flagged, onTruck, returned] = await Promise.all([
    partsInStatusByShop(db, READY),
    partsInStatusByShopAndAge(db, AT_SHOP, bands.slice(1).map((b) => before(now, b.minHours!))),
    partsInStatusByShopAndAge(db, FLAGGED, [before(now, waitingHours)]),
    partsInStatusByShopAndAge(db, ON_TRUCK, [before(now, thresholds.truck_hours)]),
    partsReturnedBetween(db, day.start, day.end),
  ]);
  const ids = [...ready, ...held, ...flagged].map((r) => r.repairer_id).filter((id) => id !== null);
  const names = await shopNames(db, [...new Set(ids)]);
  const nameOf = (id: number | null) => id === null ? NO_SHOP_NAME : names.get(id) ?? `Repair shop ${id}`;
  const byName = (a: { repairerId: number | null; name: string }, b: typeof a) =>
    (a.repairerId === null ? 1 : 0) - (b.repairerId === null ? 1 : 0) || a.name.localeCompare(b.name);

  const readyShops = ready.filter((r) => r.repairer_id !== null).map((r: ShopCount) => ({
    repairerId: r.repairer_id,
    name: nameOf(r.repairer_id),
    count: r.parts,
    href: partsHref({ status: READY, repairer: shopParam(r.repairer_id) }),
  })).sort(byName);
  const noShop = ready.find((r) => r.repairer_id === null)?.parts ?? 0;

  const heldRows = new Map<number | null, HeldRow>();
  const rowOf = (id: number | null): HeldRow => {
    let row = heldRows.get(id);
    if (!row) {
      row = {
        repairerId: id,
        name: nameOf(id),
        bands: bands.map((b) => ({
          count: 0,
          href: partsHref({ status: AT_SHOP, repairer: shopParam(id), ...ageFilters(b) }),
        })),
        waitingLate: {
          count: 0,
          href: partsHref({ status: FLAGGED, repairer: shopParam(id), min_age_h: waitingHours }),
        },
      };
      heldRows.set(id, row);
    }
    return row;
  };
  for (const shop of held) shop.counts.forEach((n, i) => rowOf(shop.repairer_id).bands[i].count = n);
  for (const shop of flagged) rowOf(shop.repairer_id).waitingLate.count = shop.counts[1];
  const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);

  return {
    date: day.date,
    ready: {
      total: { count: sum(ready.map((r) => r.parts)), href: partsHref({ status: READY }) },
      shops: readyShops,
      noShop: { count: noShop, href: partsHref({ status: READY, repairer: "none" }) },
    },
    onTrucks: { count: sum(onTruck.flatMap((r) => r.counts)), href: partsHref({ status: ON_TRUCK }) },
    atShops: { count: sum(held.flatMap((r) => r.counts)), href: partsHref({ status: AT_SHOP }) },
    flagged: { count: sum(flagged.flatMap((r) => r.counts)), href: partsHref({ status: FLAGGED }) },
    returnedToday: { count: returned, href: partsHref({ returned: day.date }) },
    thresholds,
    held: [...heldRows.values()].sort(byName),
    truckLate: {
      count: sum(onTruck.map((r) => r.counts[1])),
      href: partsHref({ status: ON_TRUCK, min_age_h: thresholds.truck_hours }),
    },
    waitingLate: {
      count: sum(flagged.map((r) => r.counts[1])),
      href: partsHref({ status: FLAGGED, min_age_h: waitingHours }),
    },
  };
}
