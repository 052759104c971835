/**
 * The run sheet, the tablet's home (docs/tablet.md "The run sheet"): today's stops in HQ's order (the
 * driver's own first, then the unassigned ones), each a repair shop with its address, phone and hours, its
 * claims to deliver and to collect (each one tap: the job page opens with the rego searched) and how many
 * are done; what is on the truck for HQ; and the claims HQ must place first ("Needs HQ"). The copy kept on
 * the tablet shows at once and through dead Wi-Fi, with its time; movements saved on the tablet and not yet
 * sent count as done (islands/_run_sheet.ts).
 */
import type { JobName } from "@/components/tablet_jobs.ts";
import {
  asOfText,
  claimHref,
  type RunSheet,
  setCurrentStop,
  type SheetClaim,
  type SheetStop,
} from "./_run_sheet.ts";
import { type RunSheetState, useRunSheet } from "./_run_sheet_hooks.ts";
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

type LoadModule = typeof import("./_run_sheet_load.tsx");

/**
 * **Load check** (docs/runs.md): its scanning is a chunk fetched on the first press, not on every visit to
 * the home.
 */
function LoadCheckButton({ userId, csrf, sheet }: { userId: number; csrf: string; sheet: RunSheet }) {
  const [module, setModule] = useState<LoadModule | null>(null);
  const [failed, setFailed] = useState(false);
  if (module) return <module.LoadCheck userId={userId} csrf={csrf} sheet={sheet} />;
  return (
    <div class="flex flex-wrap items-center gap-3">
      <button
        type="button"
        class="btn btn-secondary"
        onClick={() => import("./_run_sheet_load.tsx").then(setModule, () => setFailed(true))}
      >
        Load check
      </button>
      {failed && <p class="msg-error" role="alert">Load check needs the network.</p>}
    </div>
  );
}

export interface TabletRunSheetProps {
  userId: number;
  csrf: string;
  /** The depot's zone (DEPOT_TIME_ZONE): the sheet's time reads as every tablet time does. */
  timeZone: string;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

function ClaimLink(
  { job, line, stop, userId }: { job: JobName; line: SheetClaim; stop?: number; userId: number },
) {
  const state = line.saved && line.done
    ? "saved on this tablet"
    : line.done
    ? "done"
    : line.saved
    ? `${line.saved} saved on this tablet`
    : "";
  return (
    <li>
      <a
        href={claimHref(job, line.rego, stop)}
        class={`btn ${line.done ? "btn-secondary" : "btn-primary"} w-full justify-between`}
        onClick={() => setCurrentStop(userId, stop ?? null)}
        data-testid={`claim-${job}-${line.rego.replace(/\s+/g, "")}`}
        data-done={line.done ? "" : undefined}
      >
        <span class="font-mono text-xl">{line.rego}</span>
        <span class="font-normal">
          {plural(line.parts, "part")}
          {state && <strong class="ml-2">· {line.done ? "✓ " : ""}{state}</strong>}
        </span>
      </a>
    </li>
  );
}

function ClaimGroup(
  { title, job, lines, stop, userId }: {
    title: string;
    job: JobName;
    lines: SheetClaim[];
    stop?: number;
    userId: number;
  },
) {
  if (lines.length === 0) return null;
  const id = `${job}-${stop ?? "x"}`;
  return (
    <div class="space-y-2">
      <h3 id={id} class="font-semibold">{title}</h3>
      <ul class="grid grid-cols-1 gap-2 sm:grid-cols-2" aria-labelledby={id}>
        {lines.map((line) => (
          <ClaimLink key={line.claimNumber} job={job} line={line} stop={stop} userId={userId} />
        ))}
      </ul>
    </div>
  );
}

function Stop({ stop, n, userId }: { stop: SheetStop; n: number; userId: number }) {
  const left = stop.total - stop.done;
  return (
    <li class="card space-y-3" data-testid={`stop-${stop.repairerId}`}>
      <div class="flex flex-wrap items-baseline justify-between gap-x-4">
        <h2 class="text-2xl font-bold">
          {n}. {stop.name}
        </h2>
        <p class="font-semibold" data-testid="stop-progress">
          {stop.done} of {stop.total} done{left > 0 ? ` · ${left} to go` : ""}
        </p>
      </div>
      <p class="text-base text-slate-700">
        {stop.mine ? "Yours" : stop.assignedTo ? `${stop.assignedTo.name}'s` : "Not assigned to a driver yet"}
      </p>
      {stop.address && <p data-testid="stop-address">{stop.address}</p>}
      {(stop.hours || stop.openNow !== null) && (
        <p>
          {stop.hours}
          {stop.openNow !== null && (
            <strong class={stop.openNow ? "text-green-800" : "text-red-800"}>
              {stop.hours ? " · " : ""}
              {stop.openNow ? "Open now" : "Closed now"}
            </strong>
          )}
        </p>
      )}
      {stop.phone && (
        <a class="btn btn-secondary" href={stop.phoneHref ?? `tel:${stop.phone}`}>
          Call {stop.phone}
        </a>
      )}
      <ClaimGroup title="Deliver" job="deliver" lines={stop.deliver} stop={stop.repairerId} userId={userId} />
      <ClaimGroup title="Collect" job="collect" lines={stop.collect} stop={stop.repairerId} userId={userId} />
    </li>
  );
}

export default function TabletRunSheet({ userId, csrf, timeZone }: TabletRunSheetProps) {
  const state = useRunSheet(userId, csrf, true);
  return (
    <RunSheetView {...state} userId={userId} timeZone={timeZone}>
      {state.sheet && <LoadCheckButton userId={userId} csrf={csrf} sheet={state.sheet} />}
    </RunSheetView>
  );
}

/** The sheet as it stands (kept copy or server's), drawn; exported for the server-side render test. */
export function RunSheetView(
  { sheet, offline, error, settled, userId, timeZone, now, children }: RunSheetState & {
    userId: number;
    timeZone: string;
    now?: Date;
    /** Under the heading: the load check (islands/_run_sheet_load.tsx). */
    children?: ComponentChildren;
  },
) {
  const asOf = sheet ? asOfText(sheet.asOf, timeZone, now) : "";
  return (
    <section
      aria-labelledby="run-sheet-heading"
      class="space-y-4"
      data-testid="run-sheet"
      data-ready={settled ? "" : undefined}
    >
      <div class="flex flex-wrap items-baseline justify-between gap-x-4">
        <h1 id="run-sheet-heading" class="text-3xl font-bold">Today's run</h1>
        {asOf && (
          <p class="text-base" data-testid="run-sheet-as-of">
            {asOf}
            {offline && " · saved on this tablet, no network"}
          </p>
        )}
      </div>
      {error && <p class="msg-error" role="alert">{error}</p>}
      {children}
      {!sheet && settled && !error && (
        <p class="msg-info" role="status">
          {offline ? "No network, and no run sheet saved on this tablet yet." : "Loading today's run…"}
        </p>
      )}
      {!sheet && !settled && <p class="msg-info">Loading today's run…</p>}
      {sheet && sheet.stops.length === 0 && (
        <p class="msg-info">No stops today: nothing to deliver to or collect from a repair shop.</p>
      )}
      {sheet && sheet.stops.length > 0 && (
        <ol class="space-y-4" aria-label="Stops">
          {sheet.stops.map((stop, i) => <Stop key={stop.repairerId} stop={stop} n={i + 1} userId={userId} />)}
        </ol>
      )}
      {sheet && sheet.onTruck.length > 0 && (
        <div class="card space-y-2" data-testid="on-truck">
          <h2 id="on-truck-heading" class="text-2xl font-bold">On the truck for HQ</h2>
          <ul class="grid grid-cols-1 gap-2 sm:grid-cols-2" aria-labelledby="on-truck-heading">
            {sheet.onTruck.map((t) => (
              <ClaimLink
                key={t.movementId}
                job="return"
                line={{ ...t, done: (t.saved ?? 0) >= t.parts }}
                userId={userId}
              />
            ))}
          </ul>
          {sheet.onTruck.some((t) => t.from) && (
            <p class="text-base">
              Picked up from: {[...new Set(sheet.onTruck.flatMap((t) => t.from ? [t.from] : []))].join(", ")}
            </p>
          )}
        </div>
      )}
      {sheet && sheet.needsHq.length > 0 && (
        <div class="card space-y-2" data-testid="needs-hq">
          <h2 class="text-2xl font-bold">Needs HQ</h2>
          <p>These claims have parts ready but no repair shop: call HQ before moving them.</p>
          <ul class="space-y-1">
            {sheet.needsHq.map((c) => (
              <li key={`${c.job}-${c.claimNumber}`}>
                <span class="font-mono">{c.rego}</span> · {c.claimNumber} ·{" "}
                {c.job === "deliver" ? "to deliver" : "to collect"}, {plural(c.parts, "part")}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
