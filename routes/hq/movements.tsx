/** `/hq/movements` (list and one movement) and `/hq/trips` (open return trips, oldest first). */
import { Hono } from "hono";
import {
  movementDetail,
  type MovementFilters,
  openReturnTrips,
  searchMovements,
} from "@/db/queries/movement_reads.ts";
import { listMovers } from "@/db/queries/users.ts";
import { normaliseRego } from "@/lib/rego.ts";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, listRequest, notFoundPage, parseId } from "@/routes/hq/render.tsx";
import { MovementsPage, OpenTripsPage } from "@/routes/hq/movements_page.tsx";
import { MovementPage } from "@/routes/hq/movement_page.tsx";

export const MOVEMENT_FILTERS = ["type", "status", "rego", "driver"] as const;

/** The movement filters of a query string (shared with the movements export). */
export function movementFilters(query: Record<string, string>): MovementFilters {
  return {
    type: query.type === "direct" || query.type === "reverse" ? query.type : undefined,
    status: query.status === "Parts Picked Up" || query.status === "Parts Dropped off"
      ? query.status
      : undefined,
    rego: query.rego ? normaliseRego(query.rego) : undefined,
    driverId: parseId(query.driver) ?? undefined,
  };
}

export function movementsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/movements", async (c) => {
    const { query, page, paging } = listRequest(c, MOVEMENT_FILTERS);
    const [{ rows, more }, drivers] = await Promise.all([
      searchMovements(deps.db, movementFilters(query), paging),
      listMovers(deps.db),
    ]);
    return hqPage(
      c,
      { title: "Movements", section: "movements" },
      <MovementsPage data={{ query, page, rows, more, drivers }} />,
    );
  });

  app.get("/movements/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    const detail = id ? await movementDetail(deps.db, id) : null;
    if (!detail) return notFoundPage(c, "movement");
    return hqPage(
      c,
      { title: `Movement #${detail.movement.id}`, section: "movements" },
      <MovementPage data={detail} />,
    );
  });

  app.get("/trips", async (c) => {
    const trips = await openReturnTrips(deps.db);
    return hqPage(
      c,
      { title: "Open return trips", section: "trips" },
      <OpenTripsPage data={{ now: deps.clock.now().toISOString(), trips }} />,
    );
  });

  return app;
}
