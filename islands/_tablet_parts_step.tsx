/**
 * The second step of the TabletFlow island: pick the repair shop (deliver), select and photograph each
 * part (the claim's parts not ready for this job listed below, greyed, with their status), and the checks
 * made before the review. A part that needs attention is scrolled into view and focused.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { FoundClaim, Job, JobName } from "@/components/tablet_jobs.ts";
import { type FlowStore, type PartState, STORAGE_LOW } from "./_tablet_store.ts";
import { ActionBar, type HeadingRef, type Sending, StepHeading } from "./_tablet_flow_ui.tsx";
import { onItsWay, PartCard } from "./_tablet_parts.tsx";

export interface Repairer {
  id: number;
  name: string;
}

/** What the check before the review found: go on, parts to fix, or photos still on their way. */
export type ReviewCheck = "review" | "problems" | "waiting";

/**
 * Checks what the server would refuse anyway, so the driver hears it before the review: marks the parts
 * that need attention and says so, or moves on to the review. Photos still uploading are not a fault:
 * the answer is "waiting" and the parts carry no error (their cards already say they are on their way).
 */
export function checkBeforeReview(
  store: FlowStore,
  rules: { shopMissing: boolean; noneSelected: string },
  ui: { setFormError: (message: string | null) => void; rerender: () => void; toReview: () => void },
): ReviewCheck {
  ui.setFormError(null);
  for (const p of store.parts) if (!p.confirmed || onItsWay(p.photo)) p.error = undefined;
  if (rules.shopMissing) {
    ui.setFormError("Choose a repair shop.");
    return "problems";
  }
  const confirmed = store.confirmed;
  if (confirmed.length === 0) {
    ui.setFormError(rules.noneSelected);
    return "problems";
  }
  let problem = false;
  let waiting = false;
  for (const p of confirmed) {
    // A photo kept on the tablet is enough: the queue sends it before the submission (offline too).
    const status = p.photo?.status;
    if (status && status !== "failed" && status !== "preparing") continue;
    // Still being saved on the tablet (a moment): not a fault, the card says so.
    if (status === "preparing") {
      waiting = true;
      continue;
    }
    problem = true;
    p.error = p.photo ? "The photo did not upload. Retry or retake it." : "Take a photo of this part.";
  }
  ui.rerender();
  if (problem) {
    ui.setFormError("Some parts need attention: see the messages next to them.");
    return "problems";
  }
  if (waiting) return "waiting";
  ui.toReview();
  return "review";
}

/**
 * Scrolls the first part with a message to the middle of the screen (clear of the sticky header and bar)
 * and focuses its toggle, which the message describes. One frame later: TabletFlow focuses the step
 * heading in its own effect, which runs after this step's, and that focus must not win.
 */
function showFirstProblem(parts: PartState[]): void {
  const part = parts.find((p) => p.error);
  if (!part) return;
  requestAnimationFrame(() => {
    const card = document.querySelector<HTMLElement>(`[data-part-id="${part.id}"]`);
    if (!card) return;
    card.scrollIntoView({ block: "center" });
    card.querySelector<HTMLInputElement>('input[type="checkbox"]')?.focus({ preventScroll: true });
  });
}

export function PartsStep(props: {
  job: Job;
  jobName: JobName;
  found: FoundClaim;
  store: FlowStore;
  rerender: () => void;
  repairers?: Repairer[];
  repairerId: string;
  onRepairer: (id: string) => void;
  formError: string | null;
  sending: Sending;
  headingRef: HeadingRef;
  onReview: () => ReviewCheck | void;
  /** The scan field (islands/_tablet_scan.tsx): a label read ticks its part. */
  scan?: ComponentChildren;
}) {
  const { job, found, store: s } = props;
  const [askedToWait, setAskedToWait] = useState(false);
  const qty = new Map(found.parts.map((p) => [p.id, p.qty]));
  const pending = s.pending;
  // Shown only while a photo is still being saved on the tablet, so it never outlives the wait.
  const waitNotice = askedToWait && pending.preparing > 0;

  // Back from the review with a rule failure the server reported: straight to the part it names.
  useEffect(() => showFirstProblem(s.parts), []);

  const review = () => {
    const outcome = props.onReview();
    setAskedToWait(outcome === "waiting");
    if (outcome === "problems") showFirstProblem(s.parts);
  };
  // The notice promises the review once the photos are saved on the tablet: keep the promise (the check
  // runs again, and opens the review or shows what needs attention).
  useEffect(() => {
    if (askedToWait && pending.preparing === 0) review();
  }, [askedToWait, pending.preparing]);

  return (
    <div class="space-y-4">
      <StepHeading headingRef={props.headingRef}>{job.title}: select and photograph each part</StepHeading>
      {props.formError && <p class="msg-error" role="alert" data-testid="form-error">{props.formError}</p>}
      {s.storageLow && <p class="msg-info" role="status" data-testid="storage-low">{STORAGE_LOW}</p>}
      {props.jobName === "deliver" && (
        <RepairShopPicker
          repairers={props.repairers}
          repairerId={props.repairerId}
          onRepairer={props.onRepairer}
          noneOnRecord={found.repairer_name === null}
        />
      )}
      {props.scan}
      <ul class="space-y-4" aria-label="Parts">
        {s.parts.map((p) => (
          <PartCard
            key={p.id}
            part={p}
            qty={qty.get(p.id)}
            toggleLabel={job.toggle}
            onToggle={(on) => s.toggle(p.id, on)}
            onPhoto={(file) => s.takePhoto(p.id, file)}
            onRetry={() => s.retry(p.id)}
          />
        ))}
      </ul>
      <NotReady parts={found.not_ready} />
      <ActionBar store={s} sending={props.sending}>
        {waitNotice && (
          <p
            class="rounded-xl border-2 border-amber-700 bg-amber-50 px-4 py-2 font-semibold text-amber-950"
            role="status"
            data-testid="wait-notice"
          >
            Photos are still being saved on this tablet: Review opens when they are done.
          </p>
        )}
        <button type="button" class="btn btn-primary w-full min-h-14 text-xl sm:w-auto" onClick={review}>
          Review ({s.confirmed.length} {s.confirmed.length === 1 ? "part" : "parts"})
        </button>
      </ActionBar>
    </div>
  );
}

/** The claim's parts this job cannot move now, greyed, each with its status in a driver's words. */
function NotReady({ parts }: { parts: FoundClaim["not_ready"] }) {
  if (parts.length === 0) return null;
  return (
    <section
      aria-labelledby="not-ready-heading"
      class="rounded-2xl border-2 border-dashed border-slate-400 bg-slate-50 p-4 text-slate-700 sm:p-6"
      data-testid="not-ready"
    >
      <h2 id="not-ready-heading" class="text-xl font-semibold">
        Also on this claim, not ready for this job ({parts.length})
      </h2>
      <ul class="mt-2 divide-y divide-slate-300">
        {parts.map((p) => (
          <li key={p.id} class="flex flex-wrap gap-x-4 py-2" data-testid={`not-ready-${p.part_no}`}>
            <strong class="font-mono">{p.part_no}</strong>
            <span class="grow">{p.description} · Qty {p.qty}</span>
            <span class="font-semibold" data-testid="not-ready-status">{p.status}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function RepairShopPicker(
  { repairers, repairerId, onRepairer, noneOnRecord }: {
    repairers?: Repairer[];
    repairerId: string;
    onRepairer: (id: string) => void;
    noneOnRecord: boolean;
  },
) {
  return (
    <div class="card">
      <label for="repair-shop" class="field-label">Repair shop</label>
      <select
        id="repair-shop"
        class="field"
        value={repairerId}
        onChange={(e) => onRepairer(e.currentTarget.value)}
      >
        <option value="">Choose a repair shop</option>
        {repairers?.map((r) => <option key={r.id} value={String(r.id)}>{r.name}</option>)}
      </select>
      {noneOnRecord && (
        <p class="mt-2 text-base">
          This claim has no repairer on record: choose the shop you are at.
        </p>
      )}
    </div>
  );
}
