/**
 * The overview's requests (docs/overview.md) that bench/dashboard.ts times beside the lists: `/hq` itself
 * (every figure: the page waits for the slowest), and the parts lists its counts link to, on the bench's
 * scale data (bench/generate_scale.ts). Rows `overview …`; the budget row "overview: slowest figure (ms)"
 * holds them to 200 ms.
 */
import type { Db } from "@/db/client.ts";
import { partPageOf, partQueryOf } from "@/lib/dashboard/lists.ts";
import { partsPage } from "@/lib/dashboard/parts.ts";
import { depotDay, overviewFigures, partsHref } from "@/lib/dashboard/overview.ts";
import { DEFAULT_AGEING_THRESHOLDS } from "@/lib/dashboard/ageing_thresholds.ts";
import type { DashPage } from "@/bench/dashboard_pages.ts";

/** The bench's service runs with the default zone (bench/target.ts serviceEnv). */
const ZONE = "UTC";

export const OVERVIEW_LABEL = "overview";

/** The overview and the lists behind its counts. */
export function overviewPages(_db: Db): Promise<DashPage[]> {
  const t = DEFAULT_AGEING_THRESHOLDS;
  const list = (filters: Record<string, string | number>, label: string): DashPage => {
    const href = partsHref(filters);
    const raw = Object.fromEntries(new URL(href, "http://x").searchParams);
    return {
      path: href,
      label: `${OVERVIEW_LABEL} ${label}`,
      data: (db) => {
        const q = partQueryOf(raw, { now: new Date(), zone: ZONE });
        return partsPage(db, q.filters, partPageOf(raw, q.sort), q.sort);
      },
    };
  };
  return Promise.resolve([
    {
      path: "/hq",
      label: `${OVERVIEW_LABEL} /hq (every figure)`,
      data: (db) => overviewFigures(db, new Date(), ZONE),
    },
    list({ status: "Arrived", repairer: "none" }, "/hq/parts?status=Arrived&repairer=none"),
    list({ returned: depotDay(new Date(), ZONE).date }, "/hq/parts?returned=<today>"),
    list(
      { status: "Delivered to Repair Shop directly", min_age_h: t.held_band_3_days * 24 },
      "/hq/parts?status=<at a shop>&min_age_h=<band 3>",
    ),
    list(
      { status: "Picked Up from Repair Shop", min_age_h: t.truck_hours },
      "/hq/parts?status=<on a truck>&min_age_h=<truck hours>",
    ),
  ]);
}
