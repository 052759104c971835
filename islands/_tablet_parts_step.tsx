/**
 * The second step of the TabletFlow island: pick the repair shop (deliver), select and photograph each
 * part, and the checks made before the review.
 */
import type { FoundClaim, Job, JobName } from "./_tablet_jobs.ts";
import { type FlowStore, STORAGE_LOW } from "./_tablet_store.ts";
import { ActionBar, type HeadingRef, type Sending, StepHeading } from "./_tablet_flow_ui.tsx";
import { PartCard } from "./_tablet_parts.tsx";

export interface Repairer {
  id: number;
  name: string;
}

/**
 * Checks what the server would refuse anyway, so the driver hears it before the review: marks the parts
 * that need attention and says so, or moves on to the review.
 */
export function checkBeforeReview(
  store: FlowStore,
  rules: { shopMissing: boolean; noneSelected: string },
  ui: { setFormError: (message: string | null) => void; rerender: () => void; toReview: () => void },
): void {
  ui.setFormError(null);
  for (const p of store.parts) if (!p.confirmed) p.error = undefined;
  if (rules.shopMissing) return ui.setFormError("Choose a repair shop.");
  const confirmed = store.confirmed;
  if (confirmed.length === 0) return ui.setFormError(rules.noneSelected);
  let problem = false;
  for (const p of confirmed) {
    // A photo kept on the tablet is enough: the queue sends it before the submission (offline too).
    const status = p.photo?.status;
    if (status && status !== "failed" && status !== "preparing") continue;
    problem = true;
    p.error = !p.photo
      ? "Take a photo of this part."
      : status === "failed"
      ? "The photo did not upload. Retry or retake it."
      : "Wait a moment: the photo is being saved.";
  }
  ui.rerender();
  if (problem) {
    ui.setFormError("Some parts need attention: see the messages next to them.");
    return;
  }
  ui.toReview();
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
  onReview: () => void;
}) {
  const { job, found, store: s } = props;
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
      <ul class="space-y-4" aria-label="Parts">
        {s.parts.map((p) => (
          <PartCard
            key={p.id}
            part={p}
            toggleLabel={job.toggle}
            onToggle={(on) => s.toggle(p.id, on)}
            onPhoto={(file) => s.takePhoto(p.id, file)}
            onRetry={() => s.retry(p.id)}
          />
        ))}
      </ul>
      <ActionBar store={s} sending={props.sending}>
        <button type="button" class="btn btn-primary w-full min-h-16 text-xl" onClick={props.onReview}>
          Review ({s.confirmed.length} {s.confirmed.length === 1 ? "part" : "parts"})
        </button>
      </ActionBar>
    </div>
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
