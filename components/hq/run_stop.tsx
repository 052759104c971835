/**
 * One stop on HQ's plan of a day (routes/hq/runs.tsx, docs/runs.md "Planning"): the shop, its progress, the
 * claims to deliver and collect, and (on a day still editable) the forms that assign it and move it in its
 * run, each saying what the dispatcher saw.
 */
import { RegoLink } from "@/components/hq/part_cells.tsx";
import { buttonClass, Csrf, inputClass, secondaryButtonClass } from "@/components/hq/ui.tsx";
import type { RunPlanPage } from "@/lib/run_plan.ts";
import type { SheetLine, Stop } from "@/lib/run_sheet.ts";

/** What a stop's forms need of the page. */
export type StopPlan = Pick<RunPlanPage, "day" | "drivers" | "editable"> & { csrfToken: string };

/** "1 part", "3 parts". */
export const parts = (n: number) => `${n} ${n === 1 ? "part" : "parts"}`;

function Lines({ label, lines }: { label: string; lines: SheetLine[] }) {
  if (lines.length === 0) return null;
  return (
    <p class="text-base">
      <span class="font-medium">{label}:</span> {lines.map((l, i) => (
        <span key={l.claimId}>
          {i > 0 && ", "}
          <span class={l.done ? "text-slate-500 line-through" : ""}>
            <RegoLink rego={l.rego} /> ({parts(l.parts)}
            {l.done ? ", done" : ""})
          </span>
        </span>
      ))}
    </p>
  );
}

export function StopItem(
  { stop, data, first, last }: { stop: Stop; data: StopPlan; first: boolean; last: boolean },
) {
  const { shop } = stop;
  const hidden = (
    <>
      <Csrf token={data.csrfToken} />
      <input type="hidden" name="date" value={data.day.date} />
      <input type="hidden" name="repairer_id" value={shop.id} />
      <input type="hidden" name="seen_driver_id" value={stop.assignedTo?.id ?? ""} />
    </>
  );
  return (
    <li id={`stop-${shop.id}`} class="rounded border border-slate-200 bg-white p-3" data-stop={shop.id}>
      <div class="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        {stop.position !== null && <span class="font-semibold text-slate-500">{stop.position}.</span>}
        <strong>{shop.name}</strong>
        <span class="text-slate-600">{shop.address ?? "no address on record"}</span>
        {shop.coordinates === null && <span class="text-sm text-amber-800">no coordinates</span>}
        <span class="ml-auto text-sm text-slate-700" data-testid="progress">
          {stop.total === 0 ? "no work on this date" : `${stop.done} of ${stop.total} done`}
        </span>
      </div>
      <Lines label="Deliver" lines={stop.deliver} />
      <Lines label="Collect" lines={stop.collect} />
      {data.editable && (
        <div class="mt-2 flex flex-wrap items-end gap-2">
          <form method="post" action="/hq/runs/assign" class="flex flex-wrap items-end gap-2">
            {hidden}
            <label class="flex flex-col gap-1 text-sm">
              <span class="text-slate-700">Driver</span>
              <select name="driver_id" class={inputClass} aria-label={`Driver for ${shop.name}`}>
                <option value="" selected={stop.assignedTo === null}>Unassigned</option>
                {data.drivers.map((d) => (
                  <option key={d.id} value={d.id} selected={stop.assignedTo?.id === d.id}>{d.name}</option>
                ))}
              </select>
            </label>
            <button type="submit" class={secondaryButtonClass}>
              Assign<span class="sr-only">{shop.name}</span>
            </button>
          </form>
          {stop.position !== null && (["up", "down"] as const).map((direction) =>
            (direction === "up" ? !first : !last) && (
              <form key={direction} method="post" action="/hq/runs/move">
                {hidden}
                <input type="hidden" name="seen_position" value={stop.position!} />
                <input type="hidden" name="direction" value={direction} />
                <button type="submit" class={buttonClass} aria-label={`Move ${shop.name} ${direction}`}>
                  {direction === "up" ? "↑ Up" : "↓ Down"}
                </button>
              </form>
            )
          )}
        </div>
      )}
    </li>
  );
}
