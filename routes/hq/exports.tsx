/**
 * `/hq/exports`: the exports page (what each CSV holds, its filters as plain GET forms, no JavaScript) and
 * the CSV downloads of parts and movements, filtered like their lists (lib/dashboard/exports.ts).
 */
import { Hono } from "hono";
import type { ComponentChildren } from "preact";
import { PART_STATUSES } from "@/db/schema.ts";
import { isoInZone } from "@/io/time_zone.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { movementsCsv, partsCsv } from "@/lib/dashboard/exports.ts";
import { movementQueryOf, partQueryOf } from "@/lib/dashboard/lists.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, refusedQueryPage } from "@/components/hq/page.tsx";
import { buttonClass, Field, inputClass, PageTitle } from "@/components/hq/ui.tsx";
import { DateRangeFields } from "@/components/hq/filter_form.tsx";

/** A download named after what it holds and the day it was made (at the depot). */
export function csvResponse(c: HqContext, name: string, body: ReadableStream<Uint8Array>, deps: AppDeps) {
  const today = isoInZone(deps.clock.now(), deps.config.depotTimeZone).slice(0, 10);
  return c.body(body, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${name}-${today}.csv"`,
    "Cache-Control": "no-store",
  });
}

export function exportsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", (c) => hqPage(c, { title: "Exports", section: "exports" }, <Page />));

  // A refused filter is answered before the download starts (refusedQueryPage), never as a broken file.
  app.get("/parts.csv", async (c) => {
    let filters;
    try {
      filters =
        partQueryOf(c.req.query(), { now: deps.clock.now(), zone: deps.config.depotTimeZone }).filters;
    } catch (error) {
      return refusedQueryPage(c, error, "/hq/exports");
    }
    return csvResponse(c, "parts", await partsCsv(deps.db, filters, deps.config.depotTimeZone), deps);
  });

  app.get("/movements.csv", async (c) => {
    let filters;
    try {
      filters = movementQueryOf(c.req.query(), deps.clock.now(), deps.config.depotTimeZone).filters;
    } catch (error) {
      return refusedQueryPage(c, error, "/hq/exports");
    }
    return csvResponse(c, "movements", await movementsCsv(deps.db, filters, deps.config.depotTimeZone), deps);
  });

  return app;
}

function Page() {
  return (
    <>
      <PageTitle sub="CSV files (UTF-8, for Excel or any spreadsheet). Times are ISO 8601 in the depot's time zone.">
        Exports
      </PageTitle>
      <div class="grid gap-6 md:grid-cols-2">
        <ExportCard
          id="export-parts"
          title="Parts"
          action="/hq/exports/parts.csv"
          button="Download parts CSV"
          about={
            <>
              Each part with its claim, rego, repair shop, current status and since when, and when it last
              arrived, was delivered, flagged, picked up and returned.
            </>
          }
        >
          <Field label="Status">
            <select class={inputClass} name="status">
              <option value="">Any status</option>
              {PART_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          </Field>
        </ExportCard>
        <ExportCard
          id="export-movements"
          title="Movements"
          action="/hq/exports/movements.csv"
          button="Download movements CSV"
          about="Each movement with its type, status, claim, place, drivers, times and part numbers."
        >
          <Field label="Type">
            <select class={inputClass} name="type">
              <option value="">Any type</option>
              <option value="direct">Direct</option>
              <option value="reverse">Return</option>
            </select>
          </Field>
          <DateRangeFields query={{}} />
        </ExportCard>
      </div>
      <p class="mt-4 text-base text-slate-600">
        The parts and movements pages also offer an export of exactly the rows their filters show.
      </p>
    </>
  );
}

/** One CSV: what it holds, and a form with its own filters (the children) and a rego filter. */
function ExportCard(
  { id, title, about, action, button, children }: {
    id: string;
    title: string;
    about: ComponentChildren;
    action: string;
    button: string;
    children: ComponentChildren;
  },
) {
  return (
    <section class="rounded border border-slate-200 bg-white p-4" aria-labelledby={id}>
      <h2 id={id} class="mb-1 text-lg font-semibold">{title}</h2>
      <p class="mb-3 text-base text-slate-600">{about}</p>
      <form method="get" action={action} class="flex flex-wrap items-end gap-3">
        {children}
        <Field label="Rego">
          <input class={inputClass} name="rego" size={10} />
        </Field>
        <button type="submit" class={buttonClass}>{button}</button>
      </form>
    </section>
  );
}
