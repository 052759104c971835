/** `/hq/parts`: the parts search, one part's page, and the dispatcher's status changes (POST). */
import { Hono } from "hono";
import { partDetail, searchParts } from "@/db/queries/parts.ts";
import { listRepairers } from "@/db/queries/places.ts";
import { openReturnTripOf } from "@/db/queries/movements.ts";
import { PART_STATUSES, type PartStatus } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { normaliseRego } from "@/lib/rego.ts";
import { changeStatusByDispatcher, StatusRaced, transitionsFrom } from "@/lib/part_status.ts";
import type { Notice } from "@/components/hq/ui.tsx";
import type { SessionEnv } from "@/routes/web/session.ts";
import {
  field,
  type HqContext,
  hqPage,
  listRequest,
  mustViewer,
  notFoundPage,
  parseId,
} from "@/routes/hq/render.tsx";
import { PartsPage } from "@/routes/hq/parts_page.tsx";
import { PartPage } from "@/routes/hq/part_page.tsx";

export const PART_FILTERS = ["rego", "claim", "status", "repairer"] as const;

/** The parts filters of a query string (shared with the parts export). */
export function partFilters(query: Record<string, string>) {
  return {
    rego: query.rego ? normaliseRego(query.rego) : undefined,
    claim: query.claim,
    status: (PART_STATUSES as readonly string[]).includes(query.status ?? "")
      ? query.status as PartStatus
      : undefined,
    repairerId: parseId(query.repairer) ?? undefined,
  };
}

export function partsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    const { query, page, paging } = listRequest(c, PART_FILTERS);
    const [{ rows, more }, repairers] = await Promise.all([
      searchParts(deps.db, partFilters(query), paging),
      listRepairers(deps.db),
    ]);
    return hqPage(
      c,
      { title: "Parts", section: "parts" },
      <PartsPage data={{ query, page, rows, more, repairers }} />,
    );
  });

  const showPart = async (
    c: HqContext,
    id: number,
    notice: Notice | null,
    reason = "",
    status: 200 | 409 | 422 = 200,
  ) => {
    const detail = await partDetail(deps.db, id);
    if (!detail) return notFoundPage(c, "part");
    const openTrip = detail.part.status === "Picked Up from Repair Shop"
      ? await openReturnTripOf(deps.db, id)
      : null;
    return hqPage(
      c,
      { title: `Part ${detail.part.part_no}`, section: "parts", status },
      <PartPage
        data={{
          detail,
          transitions: transitionsFrom(detail.part.status),
          openTrip,
          csrfToken: mustViewer(c).csrfToken,
          notice,
          reason,
        }}
      />,
    );
  };

  app.get("/:id", (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "part");
    const done = c.req.query("done");
    const notice = done && (PART_STATUSES as readonly string[]).includes(done)
      ? { kind: "ok" as const, text: `Status changed to ${done}.` }
      : null;
    return showPart(c, id, notice);
  });

  app.post("/:id/status", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "part");
    const form = await c.req.parseBody();
    const reason = field(form, "reason");
    try {
      const result = await changeStatusByDispatcher(deps.db, deps.clock, {
        partId: id,
        from: field(form, "from"),
        to: field(form, "to"),
        reason,
        userId: mustViewer(c).userId,
      });
      return c.redirect(`/hq/parts/${id}?done=${encodeURIComponent(result.to)}`, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.kind === "not_found") return notFoundPage(c, "part");
      const raced = error instanceof StatusRaced;
      return showPart(c, id, { kind: "error", text: error.message }, raced ? "" : reason, raced ? 409 : 422);
    }
  });

  return app;
}
