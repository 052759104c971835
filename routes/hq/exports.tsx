/**
 * `/hq/exports`: CSV downloads of parts and movements (same filters as their list pages). Streamed: rows
 * are fetched 500 at a time by keyset as the client reads (io/csv.ts), never the whole export in memory.
 */
import { Hono } from "hono";
import { partExportBatch, type PartExportRow } from "@/db/queries/parts.ts";
import { movementExportBatch, type MovementExportRow } from "@/db/queries/movement_reads.ts";
import { csvStream } from "@/io/csv.ts";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { filterQuery, type HqContext, hqPage } from "@/routes/hq/render.tsx";
import { PART_FILTERS, partFilters } from "@/routes/hq/parts.tsx";
import { MOVEMENT_FILTERS, movementFilters } from "@/routes/hq/movements.tsx";
import { ExportsPage } from "@/routes/hq/exports_page.tsx";

export const EXPORT_BATCH = 500;

/** The parts CSV's columns, in order. */
export const PART_HEADER = [
  "Part ID",
  "Part No.",
  "Description",
  "Qty",
  "Status",
  "Status since",
  "Claim number",
  "Rego",
  "Repair shop",
  "Arrived at",
  "Delivered to repair shop at",
  "Flagged for pick-up at",
  "Picked up from repair shop at",
  "Returned to HQ at",
];

/** The movements CSV's columns, in order. */
export const MOVEMENT_HEADER = [
  "Movement ID",
  "Type",
  "Status",
  "Claim number",
  "Rego",
  "Repair shop",
  "HQ location",
  "Picked up by",
  "Picked up at",
  "Dropped off by",
  "Dropped off at",
  "Parts",
  "Part numbers",
];

/** Pulls batches after the last id seen, until one comes back empty. */
function keyset<T extends { id: number }>(fetch: (afterId: number) => Promise<T[]>): () => Promise<T[]> {
  let afterId = 0;
  return async () => {
    const rows = await fetch(afterId);
    if (rows.length) afterId = rows[rows.length - 1].id;
    return rows;
  };
}

function csvResponse(c: HqContext, name: string, body: ReadableStream<Uint8Array>, today: Date) {
  return c.body(body, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${name}-${today.toISOString().slice(0, 10)}.csv"`,
    "Cache-Control": "no-store",
  });
}

export function exportsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", (c) => hqPage(c, { title: "Exports", section: "exports" }, <ExportsPage />));

  app.get("/parts.csv", (c) => {
    const filters = partFilters(filterQuery(c, PART_FILTERS));
    const next = keyset((afterId) => partExportBatch(deps.db, filters, afterId, EXPORT_BATCH));
    const body = csvStream(PART_HEADER, next, (p: PartExportRow) => [
      p.id,
      p.part_no,
      p.description,
      p.qty_ordered,
      p.status,
      p.updated_at,
      p.claim_number,
      p.registration,
      p.repairer_name,
      p.arrived_at,
      p.delivered_at,
      p.flagged_at,
      p.picked_up_at,
      p.returned_at,
    ]);
    return csvResponse(c, "parts", body, deps.clock.now());
  });

  app.get("/movements.csv", (c) => {
    const filters = movementFilters(filterQuery(c, MOVEMENT_FILTERS));
    const next = keyset((afterId) => movementExportBatch(deps.db, filters, afterId, EXPORT_BATCH));
    const body = csvStream(MOVEMENT_HEADER, next, (m: MovementExportRow) => [
      m.id,
      m.movement_type,
      m.movement_status,
      m.claim_number,
      m.registration,
      m.repairer_name,
      m.hq_name,
      m.picked_up_by_name,
      m.pick_up_at,
      m.dropped_off_by_name,
      m.dropped_off_at,
      m.part_count,
      m.part_numbers,
    ]);
    return csvResponse(c, "movements", body, deps.clock.now());
  });

  return app;
}
