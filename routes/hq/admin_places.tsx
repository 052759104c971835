/** `/hq/admin/places` (admins only): repair shops (add, rename, deactivate) and HQ locations (add, rename). */
import { Hono } from "hono";
import { listHqLocations, listRepairers } from "@/db/queries/places.ts";
import {
  addHqLocation,
  addRepairer,
  renameHqLocation,
  setRepairerActive,
  updateRepairer,
} from "@/lib/admin/places.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import type { Notice } from "@/components/hq/ui.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";
import { field, type HqContext, hqPage, mustViewer, notFoundPage, parseId } from "@/routes/hq/render.tsx";
import { PlacesPage } from "@/routes/hq/admin_places_page.tsx";

const DONE: Record<string, string> = {
  repairer: "Repair shop added.",
  saved: "Repair shop saved.",
  deactivated: "Repair shop deactivated: it is no longer offered for new deliveries.",
  activated: "Repair shop reactivated.",
  hq: "HQ location added.",
  "hq-saved": "HQ location renamed.",
};

export function adminPlacesRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (c: HqContext, notice: Notice | null, status: 200 | 422 = 200) => {
    const [repairers, hqLocations] = await Promise.all([listRepairers(deps.db), listHqLocations(deps.db)]);
    return hqPage(
      c,
      { title: "Repair shops and HQ", section: "places", status },
      <PlacesPage data={{ repairers, hqLocations, csrfToken: mustViewer(c).csrfToken, notice }} />,
    );
  };

  const act = async (c: HqContext, work: () => Promise<string>) => {
    try {
      return c.redirect(`/hq/admin/places?done=${await work()}`, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return show(c, { kind: "error", text: error.message }, 422);
    }
  };

  app.get("/", (c) => {
    const done = DONE[c.req.query("done") ?? ""];
    return show(c, done ? { kind: "ok", text: done } : null);
  });

  app.post("/repairers", async (c) => {
    const form = await c.req.parseBody();
    return act(c, async () => {
      await addRepairer(deps.db, { name: field(form, "name"), address: field(form, "address") });
      return "repairer";
    });
  });

  app.post("/repairers/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "repair shop");
    const form = await c.req.parseBody();
    return act(c, async () => {
      await updateRepairer(deps.db, { id, name: field(form, "name"), address: field(form, "address") });
      return "saved";
    });
  });

  app.post("/repairers/:id/active", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "repair shop");
    const active = field(await c.req.parseBody(), "active") === "true";
    return act(c, async () => {
      await setRepairerActive(deps.db, { id, active });
      return active ? "activated" : "deactivated";
    });
  });

  app.post("/hq", async (c) => {
    const form = await c.req.parseBody();
    return act(c, async () => {
      await addHqLocation(deps.db, { name: field(form, "name") });
      return "hq";
    });
  });

  app.post("/hq/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "HQ location");
    const form = await c.req.parseBody();
    return act(c, async () => {
      await renameHqLocation(deps.db, { id, name: field(form, "name") });
      return "hq-saved";
    });
  });

  return app;
}
