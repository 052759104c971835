/**
 * The trends page's figures (docs/trends.md) that bench/dashboard.ts times beside the lists, over the
 * default range (the 8 weeks ending today at the depot, the bench's zone): each figure alone, as its CSV,
 * and the whole page. The scale data (bench/generate_scale.ts) dates its movements and history back from
 * the time it was generated, so the range holds the newest of them whatever their spread. Rows
 * `dashboard GET /hq/trends…`.
 */
import type { Db } from "@/db/client.ts";
import { systemClock } from "@/io/clock.ts";
import {
  driverFigure,
  movementFigure,
  trendFigures,
  trendRangeOf,
  turnaroundFigure,
} from "@/lib/dashboard/trends.ts";
import type { DashPage } from "@/bench/dashboard_pages.ts";

/** The three figures and the page, over the default range at the time of each call. */
export function trendsPages(_db: Db): Promise<DashPage[]> {
  // The served bench's zone: the child inherits this environment (bench/target.ts serviceEnv).
  const zone = Deno.env.get("DEPOT_TIME_ZONE") || "UTC";
  const range = () => trendRangeOf({}, systemClock.now(), zone);
  const page = (path: string, data: (db: Db) => Promise<unknown>): DashPage => ({ path, label: path, data });
  return Promise.resolve([
    page("/hq/trends/movements.csv", (db) => movementFigure(db, range())),
    page("/hq/trends/turnaround.csv", (db) => turnaroundFigure(db, range())),
    page("/hq/trends/drivers.csv", (db) => driverFigure(db, range())),
    page("/hq/trends", (db) => trendFigures(db, range())),
  ]);
}
