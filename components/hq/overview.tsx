/**
 * The overview at `/hq` (docs/overview.md): the "Today" counts, then `queue` (the action queue, when the
 * page has one) in its own section, then the ageing. Every count is a link to the parts list showing exactly
 * its parts (lib/dashboard/overview.ts makes the addresses). The counts and the ageing are live regions
 * (docs/dashboard.md "Live updates"): a movement or a status change anywhere refreshes them in place.
 */
import type { ComponentChildren } from "preact";
import { Live, LiveRegion } from "@/components/hq/live.tsx";
import { linkClass, PageTitle, Section, tdClass, thClass } from "@/components/hq/ui.tsx";
import type { ChangeTopic } from "@/db/queries/changes.ts";
import type { Figure, OverviewFigures } from "@/lib/dashboard/overview.ts";

/** What moves a figure: a movement (a driver's submission) or a status change (a dispatcher, a shop). */
export const OVERVIEW_TOPICS: ChangeTopic[] = ["movements", "parts"];

export interface OverviewProps {
  figures: OverviewFigures;
  /** The action queue, rendered in its own section right after the counts; nothing when absent. */
  queue?: ComponentChildren;
}

/** A count as a link; `what` completes its name for a screen reader ("12 parts ready for Southside"). */
function Count({ figure, what, id }: { figure: Figure; what: string; id: string }) {
  return (
    <a href={figure.href} class={`${linkClass} font-semibold tabular-nums`} data-figure={id}>
      {figure.count}
      <span class="sr-only">{what}</span>
    </a>
  );
}

function Tile(
  { title, figure, id, what, children }: {
    title: string;
    figure: Figure;
    id: string;
    what: string;
    children?: ComponentChildren;
  },
) {
  return (
    <div class="rounded border border-slate-200 bg-white p-4" data-tile={id}>
      <h3 class="font-medium text-slate-700">{title}</h3>
      <p class="text-3xl">
        <Count figure={figure} id={id} what={what} />
      </p>
      {children}
    </div>
  );
}

function TodayCounts({ f }: { f: OverviewFigures }) {
  return (
    <Section id="today-counts" title={<span class="sr-only">Counts</span>}>
      <div class="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-5">
        <Tile
          title="Ready to deliver at HQ"
          figure={f.ready.total}
          id="ready"
          what=" parts at HQ ready to deliver"
        >
          <ul class="mt-2 text-base">
            {f.ready.shops.map((s) => (
              <li key={s.repairerId} class="flex items-center justify-between gap-2">
                <span>{s.name}</span>
                <Count figure={s} id={`ready:${s.repairerId}`} what={` parts ready for ${s.name}`} />
              </li>
            ))}
            {f.ready.noShop.count > 0 && (
              <li class="flex items-center justify-between gap-2">
                <span>No repair shop</span>
                <Count figure={f.ready.noShop} id="ready:none" what=" parts ready without a repair shop" />
              </li>
            )}
          </ul>
        </Tile>
        <Tile title="On trucks" figure={f.onTrucks} id="on-trucks" what=" parts on trucks back to HQ" />
        <Tile
          title="At repair shops"
          figure={f.atShops}
          id="at-shops"
          what=" parts delivered to repair shops"
        />
        <Tile
          title="Flagged for return, waiting"
          figure={f.flagged}
          id="flagged"
          what=" parts flagged for return and waiting for collection"
        />
        <Tile
          title="Returned to HQ today"
          figure={f.returnedToday}
          id="returned-today"
          what=" parts returned today"
        />
      </div>
    </Section>
  );
}

function Ageing({ f }: { f: OverviewFigures }) {
  const t = f.thresholds;
  const days = [t.held_band_1_days, t.held_band_2_days, t.held_band_3_days];
  const bandLabels = [
    `Under ${days[0]} days`,
    `${days[0]}–${days[1]} days`,
    `${days[1]}–${days[2]} days`,
    `${days[2]} days or more`,
  ];
  return (
    <Section id="ageing" title="Ageing" class="mt-8">
      <p class="mb-3 text-slate-600">
        Age: how long a part has been in its status now (since it was delivered, flagged, picked up).
      </p>
      <ul class="mb-3 flex flex-wrap gap-x-8">
        <li>
          On a truck for {t.truck_hours} hours or more:{" "}
          <Count
            figure={f.truckLate}
            id="truck-late"
            what={` parts on a truck for ${t.truck_hours} hours or more`}
          />
        </li>
        <li>
          Flagged for return and waiting {t.return_waiting_days} days or more:{" "}
          <Count
            figure={f.waitingLate}
            id="waiting-late"
            what={` parts waiting for collection ${t.return_waiting_days} days or more`}
          />
        </li>
      </ul>
      {f.held.length === 0
        ? <p class="text-slate-600">No parts held at repair shops.</p>
        : (
          <div class="relative overflow-x-auto rounded border border-slate-200 bg-white">
            <table
              class="min-w-full divide-y divide-slate-200 text-base"
              aria-label="Parts held at repair shops by age"
            >
              <thead class="bg-slate-50">
                <tr>
                  <th class={thClass} scope="col">Repair shop</th>
                  {bandLabels.map((label) => (
                    <th key={label} class={thClass} scope="col">Held {label.toLowerCase()}</th>
                  ))}
                  <th class={thClass} scope="col">
                    Waiting for collection {t.return_waiting_days} days or more
                  </th>
                </tr>
              </thead>
              <tbody class="divide-y divide-slate-100">
                {f.held.map((row) => {
                  const key = row.repairerId ?? "none";
                  return (
                    <tr key={key} data-shop={key}>
                      <th class={`${tdClass} text-left font-medium`} scope="row">{row.name}</th>
                      {row.bands.map((figure, i) => (
                        <td key={i} class={tdClass}>
                          <Count
                            figure={figure}
                            id={`held:${key}:${i}`}
                            what={` parts held at ${row.name} ${bandLabels[i].toLowerCase()}`}
                          />
                        </td>
                      ))}
                      <td class={tdClass}>
                        <Count
                          figure={row.waitingLate}
                          id={`waiting-late:${key}`}
                          what={` parts waiting at ${row.name}`}
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
    </Section>
  );
}

export function Overview({ figures, queue }: OverviewProps) {
  return (
    <>
      <PageTitle sub={`The depot's day ${figures.date}: where the parts are, and what is late.`}>
        Today
      </PageTitle>
      <Live topics={OVERVIEW_TOPICS}>
        <TodayCounts f={figures} />
      </Live>
      {queue && <div class="mt-8">{queue}</div>}
      <LiveRegion topics={OVERVIEW_TOPICS}>
        <Ageing f={figures} />
      </LiveRegion>
    </>
  );
}
