/**
 * `/hq` (dispatcher, admin): the overview (docs/overview.md), what a dispatcher reads first: today's counts
 * and what is late, each count a link to its list. Live like the lists (components/hq/overview.tsx).
 */
import { Hono } from "hono";
import { Overview } from "@/components/hq/overview.tsx";
import { hqPage } from "@/components/hq/page.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { overviewFigures } from "@/lib/dashboard/overview.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

export function overviewRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.get("/", async (c) => {
    const figures = await overviewFigures(deps.db, deps.clock.now(), deps.config.depotTimeZone);
    return hqPage(c, { title: "Today", section: "overview" }, <Overview figures={figures} />);
  });
  return app;
}
