/**
 * `/hq/trends` (docs/trends.md): over a range of depot days (the last 8 weeks unless chosen), movements per
 * day by type, turnaround per repair shop and work per driver; each a chart drawn here as SVG, the table of
 * its numbers after it and a CSV of that table (`movements.csv`, `turnaround.csv`, `drivers.csv`, same
 * range parameters). A refused range is answered before any row is read (400, refusedQueryPage).
 */
import { Hono } from "hono";
import type { ComponentChildren } from "preact";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, refusedQueryPage } from "@/components/hq/page.tsx";
import { csvResponse } from "@/routes/hq/exports.tsx";
import {
  DEFAULT_TREND_DAYS,
  driverFigure,
  driverTable,
  movementFigure,
  movementTable,
  STAGE_LABELS,
  STAGES,
  tableCsv,
  trendFigures,
  type TrendRange,
  trendRangeOf,
  type TrendTable,
  turnaroundFigure,
  turnaroundTable,
} from "@/lib/dashboard/trends.ts";
import { BarChart, LineChart } from "@/components/hq/charts.tsx";
import {
  buttonClass,
  Field,
  inputClass,
  linkClass,
  PageTitle,
  tdClass,
  thClass,
} from "@/components/hq/ui.tsx";
import type { TurnaroundRow } from "@/db/queries/trends.ts";
import type { DriverFigure, MovementDay } from "@/lib/dashboard/trends.ts";

export function trendsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const zone = deps.config.depotTimeZone;
  const rangeOf = (q: Record<string, string>) => trendRangeOf(q, deps.clock.now(), zone);

  app.get("/", async (c) => {
    let range;
    try {
      range = rangeOf(c.req.query());
    } catch (error) {
      return refusedQueryPage(c, error, "/hq/trends");
    }
    const figures = await trendFigures(deps.db, range);
    return hqPage(
      c,
      { title: "Trends", section: "trends" },
      <Page zone={zone} {...figures} />,
    );
  });

  const csv = (name: string, table: (range: TrendRange) => Promise<TrendTable>) =>
    app.get(`/${name}.csv`, async (c) => {
      let range;
      try {
        range = rangeOf(c.req.query());
      } catch (error) {
        return refusedQueryPage(c, error, "/hq/trends");
      }
      const body = tableCsv(await table(range), zone);
      return csvResponse(c, `trends-${name}`, body, deps);
    });
  csv("movements", async (range) => movementTable(await movementFigure(deps.db, range)));
  csv("turnaround", async (range) => turnaroundTable(await turnaroundFigure(deps.db, range)));
  csv("drivers", async (range) => driverTable(await driverFigure(deps.db, range)));

  return app;
}

function Page(
  { range, zone, movements, turnaround, drivers }: {
    range: TrendRange;
    zone: string;
    movements: MovementDay[];
    turnaround: TurnaroundRow[];
    drivers: DriverFigure[];
  },
) {
  const query = new URLSearchParams({ from: range.from, to: range.to }).toString();
  const span = `${range.from} to ${range.to}`;
  const totals = STAGES.map((s) => movements.reduce((sum, d) => sum + d.counts[s], 0));
  return (
    <>
      <PageTitle
        sub={`${span}: ${range.dates.length} days at the depot (${zone}), both ends included. Every number is in the table after its chart, and in its CSV.`}
      >
        Trends
      </PageTitle>
      <form method="get" action="/hq/trends" class="mb-6 flex flex-wrap items-end gap-3">
        <Field label="From">
          <input class={inputClass} type="date" name="from" value={range.from} required />
        </Field>
        <Field label="To">
          <input class={inputClass} type="date" name="to" value={range.to} required />
        </Field>
        <button class={buttonClass} type="submit">Show</button>
        <a class={linkClass} href="/hq/trends">Last {DEFAULT_TREND_DAYS / 7} weeks</a>
      </form>

      <Figure
        id="movements"
        heading="Movements per day"
        about="Each step of a movement on the depot day it happened: a delivery dropped off at a repair shop, a collection picked up from one, a return dropped off at HQ."
        csv={`/hq/trends/movements.csv?${query}`}
        table={movementTable(movements)}
        empty="No movements in this range."
      >
        <LineChart
          id="chart-movements"
          title={`Movements per day by type, ${span}`}
          desc={`Totals: ${
            STAGES.map((s, i) => `${STAGE_LABELS[s]} ${totals[i]}`).join(", ")
          }, over ${range.dates.length} days. The table after the chart gives each day's numbers.`}
          labels={movements.map((d) => d.date.slice(5))}
          series={STAGES.map((s) => ({ label: STAGE_LABELS[s], values: movements.map((d) => d.counts[s]) }))}
        />
      </Figure>

      <Figure
        id="turnaround"
        heading="Turnaround per repair shop"
        about="Parts back at HQ in the range, by the repair shop they came back from: days from delivered to flagged for return, from flagged to back at HQ, and in total; the median and the 90th percentile."
        csv={`/hq/trends/turnaround.csv?${query}`}
        table={turnaroundTable(turnaround)}
        empty="No part came back to HQ in this range."
      >
        <BarChart
          id="chart-turnaround"
          title={`Turnaround per repair shop in days, ${span}`}
          desc={`Median days at the shop, median days to come back, and the 90th percentile of the total, for ${turnaround.length} repair shops. The table after the chart gives every figure.`}
          labels={turnaround.map((r) => r.name)}
          series={[
            { label: "At shop, median", values: turnaround.map((r) => r.at_shop_median) },
            { label: "Back to HQ, median", values: turnaround.map((r) => r.back_median) },
            { label: "Total, 90th percentile", values: turnaround.map((r) => r.total_p90) },
          ]}
        />
      </Figure>

      <Figure
        id="drivers"
        heading="Work per driver"
        about="A driver's movement steps, the parts they moved, and their stops (each day, the distinct repair shops they delivered to or collected from); totals over the range and averages per day they worked."
        csv={`/hq/trends/drivers.csv?${query}`}
        table={driverTable(drivers)}
        empty="No driver moved parts in this range."
      >
        <BarChart
          id="chart-drivers"
          title={`Work per driver per active day, ${span}`}
          desc={`Movements, parts and stops per active day for ${drivers.length} drivers. The table after the chart gives totals and averages.`}
          labels={drivers.map((r) => r.name)}
          series={[
            { label: "Movements a day", values: drivers.map((r) => r.movements_per_day) },
            { label: "Parts a day", values: drivers.map((r) => r.parts_per_day) },
            { label: "Stops a day", values: drivers.map((r) => r.stops_per_day) },
          ]}
        />
      </Figure>
    </>
  );
}

/** One figure: heading, what it counts, the chart, its table, its CSV. */
function Figure(
  { id, heading, about, csv, table, empty, children }: {
    id: string;
    heading: string;
    about: string;
    csv: string;
    table: TrendTable;
    empty: string;
    children: ComponentChildren;
  },
) {
  return (
    <section class="mb-10" aria-labelledby={`${id}-heading`} data-figure={id}>
      <h2 id={`${id}-heading`} class="mb-1 text-xl font-semibold">{heading}</h2>
      <p class="mb-3 max-w-4xl text-base text-slate-600">{about}</p>
      {children}
      {table.rows.length === 0
        ? <p class="my-3 text-slate-700">{empty}</p>
        : <NumbersTable table={table} id={id} />}
      <a class={linkClass} href={csv} download>Download {heading.toLowerCase()} (CSV)</a>
    </section>
  );
}

/** A figure's numbers: caption, column headings, each row headed by its first cell. */
function NumbersTable({ table, id }: { table: TrendTable; id: string }) {
  return (
    <div
      class="my-3 max-h-[32rem] overflow-auto rounded border border-slate-200 bg-white"
      tabIndex={0}
      role="region"
      aria-label={table.caption}
    >
      <table class="min-w-full divide-y divide-slate-200 text-base" data-table={id}>
        <caption class="px-3 py-2 text-left font-medium text-slate-800">{table.caption}</caption>
        <thead class="bg-slate-50">
          <tr>
            {table.headers.map((h) => <th key={h} scope="col" class={thClass}>{h}</th>)}
          </tr>
        </thead>
        <tbody class="divide-y divide-slate-100">
          {table.rows.map((row, i) => (
            <tr key={i}>
              <th scope="row" class={`${tdClass} text-left font-medium whitespace-nowrap`}>{row[0]}</th>
              {row.slice(1).map((cell, j) => (
                <td key={j} class={`${tdClass} text-right tabular-nums`}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
