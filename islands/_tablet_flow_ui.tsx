/**
 * Frame pieces the steps of the TabletFlow island share: the step heading (focused when the step
 * changes), the card of the claim found, and the action bar with the pending line, kept in reach of
 * the thumb.
 */
import type { ComponentChildren, RefObject } from "preact";
import type { FoundClaim, JobName } from "@/components/tablet_jobs.ts";
import type { FlowStore } from "./_tablet_store.ts";

/** The heading of the shown step; focused when the step changes. */
export type HeadingRef = RefObject<HTMLHeadingElement | null>;

/** The flow's section is labelled by whichever step heading is shown. */
export const FLOW_HEADING_ID = "flow-heading";

/**
 * The status and the main button stay in reach of the thumb at the bottom of the screen. Side by side
 * from the sm breakpoint, so on a landscape tablet the bar and the header together keep to a fifth of
 * the screen (the browser test measures it at 1280×800).
 */
const ACTION_BAR =
  "sticky bottom-0 z-10 -mx-4 flex flex-col gap-2 border-t-2 border-slate-300 bg-slate-100 px-4 py-2 " +
  "sm:flex-row sm:items-center";

/** Where the movement's submission stands (shown in the pending line, drives the review buttons). */
export interface Sending {
  state: "idle" | "sending" | "waiting";
  attempts: number;
  retryAt?: number;
}

export function StepHeading(
  { headingRef, children }: { headingRef: HeadingRef; children: ComponentChildren },
) {
  return <h1 id={FLOW_HEADING_ID} ref={headingRef} tabIndex={-1} class="text-3xl font-bold">{children}</h1>;
}

/** The claim being worked on; `onAnotherRego` (parts step only) offers to start over. */
export function ClaimCard(
  { found, job, onAnotherRego }: { found: FoundClaim; job: JobName; onAnotherRego?: () => void },
) {
  return (
    <div class="card flex flex-wrap items-center gap-x-6 gap-y-2">
      <p>
        Rego <strong class="font-mono text-2xl" data-testid="found-rego">{found.rego.toUpperCase()}</strong>
      </p>
      <p>
        Claim <strong>{found.claim_number}</strong>
      </p>
      {found.hq_location && (
        <p>
          Return trip <strong>#{found.movement_id}</strong> to <strong>{found.hq_location.name}</strong>
        </p>
      )}
      {job === "collect" && (
        <p data-testid="collect-from">
          {found.repairer_name
            ? (
              <>
                From <strong>{found.repairer_name}</strong> to HQ
              </>
            )
            : "Bringing back to HQ"}
        </p>
      )}
      {onAnotherRego && (
        <button type="button" class="btn btn-secondary ml-auto" onClick={onAnotherRego}>
          Another rego
        </button>
      )}
    </div>
  );
}

export function ActionBar(
  { store, sending, children }: { store: FlowStore; sending: Sending; children: ComponentChildren },
) {
  return (
    <div class={ACTION_BAR} data-testid="action-bar">
      <PendingBar store={store} sending={sending} />
      {children}
    </div>
  );
}

/** What is still on its way, always in view of the driver (a screen reader hears changes politely). */
function PendingBar({ store, sending }: { store: FlowStore; sending: Sending }) {
  const confirmed = store.confirmed;
  const done = confirmed.filter((p) => p.photo?.status === "done").length;
  const { uploading, waiting, failed, preparing } = store.pending;
  const lines: string[] = [];
  if (confirmed.length === 0) lines.push("Select the parts you are moving.");
  else {
    const bits = [`Photos uploaded: ${done} of ${confirmed.length}`];
    if (preparing + uploading) bits.push(`${preparing + uploading} uploading`);
    if (waiting) bits.push(`${waiting} waiting for the network`);
    if (failed) bits.push(`${failed} failed`);
    const missing = confirmed.filter((p) => !p.photo).length;
    if (missing) bits.push(`${missing} still to photograph`);
    lines.push(bits.join(", ") + ".");
  }
  if (sending.state === "sending") {
    lines.push(sending.attempts > 1 ? `Sending again (try ${sending.attempts})…` : "Sending…");
  }
  if (sending.state === "waiting") {
    // No countdown here: this line is read out by screen readers on every change. The step heading
    // already says the movement is saved on this tablet; this line says only what it waits for.
    lines.push("Movement waiting for the network.");
  }
  const busy = uploading + waiting + preparing > 0 || sending.state !== "idle";
  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="pending"
      class={`grow rounded-xl border-2 px-4 py-1.5 leading-snug font-semibold ${
        busy ? "border-amber-700 bg-amber-50 text-amber-950" : "border-slate-400 bg-white text-slate-950"
      }`}
    >
      {lines.map((l) => <p key={l}>{l}</p>)}
    </div>
  );
}
