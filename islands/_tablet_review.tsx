/**
 * The last step of the TabletFlow island: check what is about to be confirmed, then send it. The
 * submission is retried with backoff while the network is away; the server answers a repeat of an
 * applied submission with its original success (D16), so a retry never moves a part twice.
 */
import { useState } from "preact/hooks";
import type { FoundClaim, Job, JobName, SubmittedMovement } from "./_tablet_jobs.ts";
import { backoffMs, isRetryable, postJson, waitOrOnline } from "./_tablet_net.ts";
import type { FlowStore } from "./_tablet_store.ts";
import { ActionBar, type HeadingRef, type Sending, StepHeading } from "./_tablet_flow_ui.tsx";

/**
 * The submission and its state. `leaving` is set before going to the receipt, so the leave guard lets
 * the page go; `onRefused` gets the message of a rule failure (the part it names carries it too).
 */
export function useSubmission(
  job: JobName,
  csrf: string,
  store: FlowStore,
  leaving: { current: boolean },
  onRefused: (message: string) => void,
) {
  const [sending, setSending] = useState<Sending>({ state: "idle", attempts: 0 });

  async function submit(found: FoundClaim | null, repairerId: string) {
    if (!found || sending.state !== "idle") return;
    // Frozen now: every retry sends exactly this, so a repeat is recognised as the same submission (D16).
    const body = {
      job,
      rego: found.rego,
      repairer_id: job === "deliver" ? Number(repairerId) : undefined,
      movement_id: found.movement_id,
      parts: store.parts.map((p) => ({
        parts_order_id: p.id,
        confirm: p.confirmed,
        image_id: p.confirmed ? p.photo?.imageId ?? null : null,
      })),
    };
    for (let attempts = 1;; attempts++) {
      setSending({ state: "sending", attempts });
      const answer = await postJson<SubmittedMovement>("/tablet/api/movements", body, csrf, 30_000);
      if (answer.data) {
        leaving.current = true;
        location.assign(answer.data.receipt_url);
        return;
      }
      if (answer.status === 401) break;
      if (isRetryable(answer.status)) {
        const delay = backoffMs(attempts);
        setSending({ state: "waiting", attempts, retryAt: Date.now() + delay });
        await waitOrOnline(delay);
        continue;
      }
      // A rule failure: back to the parts, the message next to the part it names.
      const part = answer.partId === undefined ? undefined : store.part(answer.partId);
      if (part) part.error = answer.message;
      onRefused(
        part
          ? `Nothing was saved. See the message next to ${part.part_no}.`
          : answer.message ?? `Not saved (${answer.status}).`,
      );
      break;
    }
    setSending({ state: "idle", attempts: 0 });
  }

  return { sending, submit };
}

export function ReviewStep(props: {
  job: Job;
  jobName: JobName;
  found: FoundClaim;
  store: FlowStore;
  /** deliver: the chosen repair shop's name. */
  repairerName?: string;
  sending: Sending;
  headingRef: HeadingRef;
  onBack: () => void;
  onSubmit: () => void;
}) {
  const { job, found, store: s, sending } = props;
  return (
    <div class="space-y-4">
      <StepHeading headingRef={props.headingRef}>Check and confirm</StepHeading>
      <div class="card space-y-3">
        <p class="text-xl">
          {job.title}
          {props.jobName === "deliver" && (
            <>
              : <strong>{props.repairerName}</strong>
            </>
          )}
          {found.hq_location && (
            <>
              : <strong>{found.hq_location.name}</strong>
            </>
          )}
        </p>
        <ul class="grid grid-cols-1 gap-3 sm:grid-cols-2" aria-label="Parts to confirm">
          {s.confirmed.map((p) => (
            <li key={p.id} class="flex items-center gap-3 rounded-xl border-2 border-slate-300 p-2">
              <img
                src={p.photo?.preview}
                alt={`Photo of ${p.part_no}`}
                class="h-20 w-20 rounded object-cover"
              />
              <span>
                <strong class="block font-mono">{p.part_no}</strong>
                {p.description}
              </span>
            </li>
          ))}
        </ul>
      </div>
      <ActionBar store={s} sending={sending}>
        <div class="flex flex-wrap gap-3">
          <button
            type="button"
            class="btn btn-secondary"
            disabled={sending.state !== "idle"}
            onClick={props.onBack}
          >
            Back to parts
          </button>
          {sending.state === "waiting" && (
            // Wakes the retry loop now (it also wakes by itself when the tablet's network returns).
            <button
              type="button"
              class="btn btn-secondary"
              onClick={() => dispatchEvent(new Event("online"))}
            >
              Retry now
            </button>
          )}
          <button
            type="button"
            class="btn btn-success grow min-h-16 text-xl"
            disabled={sending.state !== "idle"}
            onClick={props.onSubmit}
          >
            {sending.state === "idle" ? job.confirm : "Sending…"}
          </button>
        </div>
      </ActionBar>
    </div>
  );
}
