/**
 * The last step of the TabletFlow island: check what is about to be confirmed, then confirm. Confirming
 * writes the submission to the device's queue (islands/_tablet_queue.ts) with or without a network; the
 * sender sends the photos first, then the submission, and retries until the server answers. The server
 * answers a repeat of an applied submission with its original success (D16), so a resend never moves a
 * part twice. The receipt opens when the server has it; a refusal sends the driver back to the parts.
 */
import { useEffect } from "preact/hooks";
import type { FoundClaim, Job, JobName } from "@/components/tablet_jobs.ts";
import type { Queue } from "./_tablet_queue.ts";
import type { FlowStore } from "./_tablet_store.ts";
import { ActionBar, type HeadingRef, type Sending, StepHeading } from "./_tablet_flow_ui.tsx";

/**
 * Where the confirmed movement stands, from the queue's sender. `leaving` is set before going to the
 * receipt, so the leave guard lets the page go; `onRefused` gets what to tell the driver of a refusal
 * (the part it names carries the server's message).
 */
export function useSubmission(
  store: FlowStore,
  queue: Queue,
  leaving: { current: boolean },
  onRefused: (message: string) => void,
): { sending: Sending; submit: () => Promise<void> } {
  useEffect(() =>
    queue.subscribe(async (e) => {
      if (!("key" in e) || e.key !== store.key) return;
      if (e.type === "sent") {
        leaving.current = true;
        location.assign(e.receiptUrl);
      } else if (e.type === "refused") {
        await store.resume();
        onRefused(refusalText(store));
      }
    }), []);

  const transfer = store.state === "queued" ? queue.transfers.get(store.key) : undefined;
  const sending: Sending = store.state !== "queued"
    ? { state: "idle", attempts: 0 }
    : transfer?.state === "sending" || (!transfer && navigator.onLine)
    ? { state: "sending", attempts: transfer?.attempts ?? 1 }
    : { state: "waiting", attempts: transfer?.attempts ?? 0, retryAt: transfer?.retryAt };

  async function submit() {
    if (store.state === "draft") await store.confirm();
  }
  return { sending, submit };
}

/** What the driver is told when a queued submission came back refused. */
export function refusalText(store: FlowStore): string {
  const part = store.parts.find((p) => p.error);
  return part
    ? `Not sent: see the message next to ${part.part_no}. Untick that part to send the others (or retake its photo), then confirm again.`
    : "Not sent: the server refused it. Check the parts and confirm again.";
}

/**
 * Where the movement goes or comes from, named in the review's summary: the chosen shop (deliver), the
 * claim's shop the parts are collected from (collect), the HQ the trip returns to (return).
 */
function placeOf(jobName: JobName, found: FoundClaim, repairerName?: string): string | undefined {
  if (jobName === "deliver") return repairerName;
  if (jobName === "collect") return found.repairer_name ?? undefined;
  return found.hq_location?.name;
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
  onRetry: () => void;
}) {
  const { job, found, store: s, sending } = props;
  // Once saved, the heading says so; the other lines say only what happens next (said once, not four
  // times: docs/tablet.md "Offline: the queue on the tablet").
  const saved = s.state === "queued";
  const place = placeOf(props.jobName, found, props.repairerName);
  const qty = new Map(found.parts.map((p) => [p.id, p.qty]));
  return (
    <div class="space-y-4">
      <StepHeading headingRef={props.headingRef}>
        {saved ? "Saved on this tablet" : "Check and confirm"}
      </StepHeading>
      {saved && (
        <p class="msg-info" data-testid="saved-on-tablet">
          {sending.state === "waiting"
            ? "It goes as soon as the tablet is online, and the receipt opens when the server has it. You can start another job meanwhile."
            : "Sending to the server: the receipt opens when it has it."}
        </p>
      )}
      <div class="card space-y-3">
        <p class="text-xl" data-testid="review-place">
          {job.title}
          {place && (
            <>
              : <strong>{place}</strong>
            </>
          )}
        </p>
        <ul class="grid grid-cols-1 gap-3 sm:grid-cols-2" aria-label="Parts to confirm">
          {s.confirmed.map((p) => (
            <li
              key={p.id}
              class="flex items-center gap-3 rounded-xl border-2 border-slate-300 p-2"
              data-testid={`review-${p.part_no}`}
            >
              <img
                src={p.photo?.preview}
                alt={`Photo of ${p.part_no}`}
                class="h-20 w-20 rounded object-cover"
              />
              <span>
                <strong class="block font-mono">{p.part_no}</strong>
                {p.description}
                {qty.has(p.id) && (
                  <span class="ml-2 font-semibold whitespace-nowrap" data-testid="review-qty">
                    · Qty {qty.get(p.id)}
                  </span>
                )}
              </span>
            </li>
          ))}
        </ul>
      </div>
      <ActionBar store={s} sending={sending}>
        <div class="flex flex-wrap gap-3">
          {saved
            ? (
              <a class="btn btn-secondary" href="/tablet">
                Another job
              </a>
            )
            : (
              <button type="button" class="btn btn-secondary" onClick={props.onBack}>
                Back to parts
              </button>
            )}
          {sending.state === "waiting" && (
            // Wakes the sender now (it also wakes by itself when the tablet's network returns).
            <button type="button" class="btn btn-secondary" onClick={props.onRetry}>
              Retry now
            </button>
          )}
          {!saved && (
            <button
              type="button"
              class="btn btn-success grow min-h-16 text-xl"
              onClick={props.onSubmit}
            >
              {job.confirm}
            </button>
          )}
        </div>
      </ActionBar>
    </div>
  );
}
