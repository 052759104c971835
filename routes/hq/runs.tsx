/**
 * `/hq/runs`: HQ plans a day (docs/runs.md "Planning"). Every stop of a date (default: today on the depot's
 * clock), derived from the parts (lib/run_sheet.ts), grouped by the driver it is assigned to, then the
 * unassigned ones; a dispatcher gives a stop to a driver, moves it up or down a run, or has a run ordered by
 * distance from the depot ("Suggest an order"). Plain forms (keyboard and no-JavaScript friendly); each
 * says what the dispatcher saw, so a plan changed meanwhile is refused with a 409 and shown as it is now
 * (lib/run_plan.ts). Updates live on `runs`, `movements` and `parts` (a movement changes a stop's progress).
 *
 *   GET  /hq/runs?date=YYYY-MM-DD
 *   POST /hq/runs/assign   {date, repairer_id, driver_id ("": unassign), seen_driver_id ("": unassigned)}
 *   POST /hq/runs/move     {date, repairer_id, direction: up|down, seen_driver_id, seen_position}
 *   POST /hq/runs/suggest  {date, driver_id}
 */
import { Hono } from "hono";
import { z } from "zod";
import { Live } from "@/components/hq/live.tsx";
import { ClaimLink, RegoLink } from "@/components/hq/part_cells.tsx";
import { parts, StopItem } from "@/components/hq/run_stop.tsx";
import { errorPage, type HqContext, hqPage, mustViewer } from "@/components/hq/page.tsx";
import {
  Csrf,
  Empty,
  inputClass,
  type Notice,
  NoticeBox,
  PageTitle,
  secondaryButtonClass,
  Time,
} from "@/components/hq/ui.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { assignStop, moveStop, type RunPlanPage, runPlanPage, suggestOrder } from "@/lib/run_plan.ts";
import { depotToday } from "@/lib/run_sheet.ts";
import { idField, parseInput } from "@/lib/validation.ts";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

/** Whether "YYYY-MM-DD" names a day that exists (not 2026-02-30); false for any other text. */
function isCalendarDate(text: string): boolean {
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

/** A calendar date "YYYY-MM-DD" (years 2000–2999: a plan is for days the depot works). */
const dateField = z.string().trim().regex(/^2\d{3}-\d{2}-\d{2}$/, { message: "must be a date YYYY-MM-DD" })
  .refine(isCalendarDate, { message: "must be a real date" });
/** An id, or "" for none. */
const optionalId = z.union([z.literal(""), idField]).transform((v) => v === "" ? null : v);

const assignForm = z.object({
  date: dateField,
  repairer_id: idField,
  driver_id: optionalId,
  seen_driver_id: optionalId,
});
const moveForm = z.object({
  date: dateField,
  repairer_id: idField,
  direction: z.enum(["up", "down"]),
  seen_driver_id: idField,
  seen_position: idField,
});
const suggestForm = z.object({ date: dateField, driver_id: idField });

const DONE: Record<string, string> = {
  assign: "Plan saved.",
  move: "Run reordered.",
  suggest: "Run ordered by distance from the depot (straight lines); stops without coordinates stay last.",
};

const runsUrl = (date: string, done?: string, anchor?: string) =>
  `/hq/runs?date=${date}${done ? `&done=${done}` : ""}${anchor ? `#${anchor}` : ""}`;

export function runsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (
    c: HqContext,
    date: string,
    notice: Notice | null,
    status: 200 | Refusal["status"] = 200,
  ) =>
    hqPage(
      c,
      { title: `Runs ${date}`, section: "runs", status },
      <Page
        data={{
          ...(await runPlanPage(deps, date)),
          today: depotToday(deps),
          notice,
          csrfToken: mustViewer(c).csrfToken,
        }}
      />,
    );

  app.get("/", (c) => {
    const asked = c.req.query("date");
    const parsed = dateField.safeParse(asked ?? depotToday(deps));
    if (!parsed.success) {
      return errorPage(c, {
        status: 400,
        title: "Invalid date",
        children: (
          <>
            Give the date as YYYY-MM-DD. <a class="text-sky-800 underline" href="/hq/runs">Today's runs</a>
          </>
        ),
      });
    }
    const done = DONE[c.req.query("done") ?? ""];
    return show(c, parsed.data, done ? { kind: "ok", text: done } : null);
  });

  /** Parses the form, runs the write, answers the redirect or the page with the refusal. */
  const post = <S extends z.ZodType<{ date: string }>>(
    schema: S,
    kind: keyof typeof DONE,
    run: (form: z.output<S>, actorId: number) => Promise<unknown>,
    anchor: (form: z.output<S>) => string,
  ) =>
  async (c: HqContext) => {
    const body = await c.req.parseBody();
    let form: z.output<S>;
    try {
      form = parseInput(schema, body);
    } catch (error) {
      const date = dateField.safeParse(body.date);
      return answerRefusal(c, error, {
        show: (r) => show(c, date.success ? date.data : depotToday(deps), r.notice, r.status),
      });
    }
    try {
      await run(form, mustViewer(c).userId);
      return c.redirect(runsUrl(form.date, kind, anchor(form)), 303);
    } catch (error) {
      return answerRefusal(c, error, { show: (r) => show(c, form.date, r.notice, r.status) });
    }
  };

  app.post(
    "/assign",
    post(assignForm, "assign", (f, actor) =>
      assignStop(deps, actor, {
        date: f.date,
        repairerId: f.repairer_id,
        driverId: f.driver_id,
        seenDriverId: f.seen_driver_id,
      }), (f) => `stop-${f.repairer_id}`),
  );
  app.post(
    "/move",
    post(moveForm, "move", (f, actor) =>
      moveStop(deps, actor, {
        date: f.date,
        repairerId: f.repairer_id,
        direction: f.direction,
        seenDriverId: f.seen_driver_id,
        seenPosition: f.seen_position,
      }), (f) => `stop-${f.repairer_id}`),
  );
  app.post(
    "/suggest",
    post(
      suggestForm,
      "suggest",
      (f, actor) => suggestOrder(deps, actor, { date: f.date, driverId: f.driver_id }),
      (f) => `run-${f.driver_id}`,
    ),
  );
  return app;
}

interface Data extends RunPlanPage {
  today: string;
  notice: Notice | null;
  csrfToken: string;
}

const dayAfter = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

function Page({ data }: { data: Data }) {
  const { day, drivers } = data;
  const runs = drivers.map((d) => ({ driver: d, stops: day.stops.filter((s) => s.assignedTo?.id === d.id) }))
    .filter((r) => r.stops.length > 0);
  // A stop assigned to a driver no longer active still shows, under that name.
  const others = day.stops.filter((s) => s.assignedTo && !drivers.some((d) => d.id === s.assignedTo!.id));
  const unassigned = day.stops.filter((s) => s.assignedTo === null);
  return (
    <>
      <PageTitle sub="The stops come from the parts: deliveries (parts Arrived at HQ) and collections (parts flagged for pick-up) by the claim's repair shop. Give each stop to a driver and put each run in order; a driver sees their own stops first, in this order, then the unassigned ones.">
        Runs
      </PageTitle>
      <form method="get" action="/hq/runs" class="mb-4 flex flex-wrap items-end gap-3">
        <label class="flex flex-col gap-1">
          <span class="font-medium text-slate-700">Date</span>
          <input type="date" name="date" value={day.date} class={inputClass} required />
        </label>
        <button type="submit" class={secondaryButtonClass}>Show</button>
        <a class={secondaryButtonClass} href={runsUrl(dayAfter(day.date, -1))}>← Previous day</a>
        {day.date !== data.today && <a class={secondaryButtonClass} href="/hq/runs">Today</a>}
        <a class={secondaryButtonClass} href={runsUrl(dayAfter(day.date, 1))}>Next day →</a>
      </form>
      <NoticeBox notice={data.notice} />
      {!data.editable && (
        <NoticeBox
          notice={{ kind: "info", text: `${day.date} is over: this is what was done; its plan stays.` }}
        />
      )}
      <Live topics={["runs", "movements", "parts"]}>
        <p class="mb-4 text-sm text-slate-600">
          {day.stops.length} {day.stops.length === 1 ? "stop" : "stops"} · as of <Time at={day.asOf} />
        </p>
        {day.stops.length === 0 && <Empty>No stops on {day.date}: nothing to deliver or collect.</Empty>}
        {[...runs, ...(others.length ? [{ driver: null, stops: others }] : [])].map((run) => (
          <section
            key={run.driver?.id ?? 0}
            id={run.driver ? `run-${run.driver.id}` : "run-inactive"}
            class="mb-6"
            aria-label={run.driver ? `${run.driver.name}'s run` : "Runs of inactive drivers"}
          >
            <div class="mb-2 flex flex-wrap items-center gap-3">
              <h2 class="text-xl font-semibold">
                {run.driver ? `${run.driver.name}'s run` : "Inactive drivers"} ({run.stops.length})
              </h2>
              {run.driver && data.editable && (
                <form method="post" action="/hq/runs/suggest">
                  <Csrf token={data.csrfToken} />
                  <input type="hidden" name="date" value={day.date} />
                  <input type="hidden" name="driver_id" value={run.driver.id} />
                  <button type="submit" class={secondaryButtonClass}>
                    Suggest an order<span class="sr-only">for {run.driver.name}'s run</span>
                  </button>
                </form>
              )}
            </div>
            <ol
              class="flex flex-col gap-2"
              aria-label={run.driver ? `${run.driver.name}'s stops` : undefined}
            >
              {run.stops.map((stop, i) => (
                <StopItem
                  key={stop.shop.id}
                  stop={stop}
                  data={data}
                  first={i === 0}
                  last={i === run.stops.length - 1}
                />
              ))}
            </ol>
          </section>
        ))}
        {unassigned.length > 0 && (
          <section class="mb-6" aria-label="Unassigned stops">
            <h2 class="mb-2 text-xl font-semibold">Unassigned ({unassigned.length})</h2>
            <ul class="flex flex-col gap-2">
              {unassigned.map((stop) => <StopItem key={stop.shop.id} stop={stop} data={data} first last />)}
            </ul>
          </section>
        )}
        {day.needsHq.length > 0 && (
          <section class="mb-6" aria-label="Needs HQ">
            <h2 class="mb-1 text-xl font-semibold">Needs HQ ({day.needsHq.length})</h2>
            <p class="mb-2 text-slate-600">
              Parts ready on claims with no repair shop on record: set the claim's repairer, or tell the
              driver where they go.
            </p>
            <ul class="flex flex-col gap-1">
              {day.needsHq.map((l) => (
                <li key={`${l.claimId}-${l.job}`}>
                  <RegoLink rego={l.rego} /> · <ClaimLink claim={l.claimNumber} /> ·{" "}
                  {l.job === "deliver" ? "to deliver" : "to collect"}: {parts(l.parts)}
                </li>
              ))}
            </ul>
          </section>
        )}
      </Live>
    </>
  );
}
