/**
 * The last step of the TabletFlow island: check what is about to be confirmed, then confirm. Confirming
 * writes the submission to the device's queue (islands/_tablet_queue.ts) with or without a network; the
 * sender sends the photos first, then the submission, and retries until the server answers. The server
 * answers a repeat of an applied submission with its original success (D16), so a resend never moves a
 * part twice. The receipt opens when the server has it; a refusal sends the driver back to the parts.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { FoundClaim, HandoverStep, Job, JobName } from "@/components/tablet_jobs.ts";
import type { Queue } from "./_tablet_queue.ts";
import type { FlowStore } from "./_tablet_store.ts";
import { ActionBar, type HeadingRef, type Sending, StepHeading } from "./_tablet_flow_ui.tsx";
import { asksHandover, handoverMissing, imageKindOf } from "./_tablet_handover_rules.ts";
import type { PadHandle } from "./_tablet_signature.tsx";

type HandoverModule = typeof import("./_tablet_handover.tsx");

let handoverModule: Promise<HandoverModule> | undefined;

/**
 * Loads the handover step's module, with the signature pad: its own chunk, outside the job page's first
 * load (docs/performance.md's JavaScript budget). The flow starts it as soon as a claim asking for a
 * handover is found, so it is on the tablet before the review even if the network goes meanwhile (the
 * service worker keeps every chunk of the build for a page opened in a dead spot).
 */
export function loadHandover(): Promise<HandoverModule> {
  handoverModule ??= import("./_tablet_handover.tsx").catch((error) => {
    handoverModule = undefined;
    throw error;
  });
  return handoverModule;
}

/** The handover module for the review, "failed" when it could not load, and the way to try again. */
function useHandoverModule(wanted: boolean): [HandoverModule | "failed" | null, () => void] {
  const [module, setModule] = useState<HandoverModule | "failed" | null>(null);
  const [tries, setTries] = useState(0);
  useEffect(() => {
    if (wanted) loadHandover().then(setModule, () => setModule("failed"));
  }, [wanted, tries]);
  return [module, () => setTries((n) => n + 1)];
}

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
): { sending: Sending; submit: (signature?: Blob) => Promise<void> } {
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

  async function submit(signature?: Blob) {
    if (store.state === "draft") await store.confirm(signature);
  }
  return { sending, submit };
}

/** What the driver is told when a queued submission came back refused. */
export function refusalText(store: FlowStore): string {
  const part = store.parts.find((p) => p.error);
  if (part) {
    return `Not sent: see the message next to ${part.part_no}. Untick that part to send the others (or retake its photo), then confirm again.`;
  }
  return store.refusal
    ? `Not sent: the server said "${store.refusal}" Check and confirm again.`
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
  onSubmit: (signature?: Blob) => void;
  onRetry: () => void;
}) {
  const { job, found, store: s, sending } = props;
  const pad = useRef<PadHandle | null>(null);
  const [padProblem, setPadProblem] = useState<string | null>(null);
  // Once saved, the heading says so; the other lines say only what happens next (said once, not four
  // times: docs/tablet.md "Offline: the queue on the tablet").
  const saved = s.state === "queued";
  const [handover, loadAgain] = useHandoverModule(!saved && asksHandover(found.handover));
  const place = placeOf(props.jobName, found, props.repairerName);
  const qty = new Map(found.parts.map((p) => [p.id, p.qty]));
  const leftKept = s.left.photo !== undefined && !["failed", "preparing"].includes(s.left.photo.status);
  const missing = saved ? null : handoverMissing(found.handover, s.handover, leftKept);
  const confirm = async () => {
    // The signature is taken from the pad as it is now: what the receiver saw when they signed.
    const signature = imageKindOf(found.handover, s.handover) === "signature"
      ? (await pad.current?.toPng()) ?? null
      : undefined;
    if (signature === null) {
      return setPadProblem("The signature could not be read: ask the receiver to sign again.");
    }
    setPadProblem(null);
    props.onSubmit(signature);
  };
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
        {saved && asksHandover(found.handover) && <HandoverSummary offer={found.handover} store={s} />}
      </div>
      {!saved && asksHandover(found.handover) && (
        handover === null
          ? <p role="status">Opening the handover…</p>
          : handover === "failed"
          ? (
            <div class="msg-error flex flex-wrap items-center gap-3" role="alert">
              <p class="grow">The handover did not open: no network. Your work is kept on this tablet.</p>
              <button type="button" class="btn btn-secondary" onClick={loadAgain}>Try again</button>
            </div>
          )
          : <handover.HandoverSection jobName={props.jobName} offer={found.handover} store={s} pad={pad} />
      )}
      {(missing ?? padProblem) && (
        // Under the handover, not in the action bar: the bar keeps to its height (docs/tablet.md "Layout").
        <p id="confirm-needs" class="msg-info" data-testid="confirm-needs">{missing ?? padProblem}</p>
      )}
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
              disabled={missing !== null}
              aria-describedby={missing ? "confirm-needs" : undefined}
              onClick={confirm}
            >
              {job.confirm}
            </button>
          )}
        </div>
      </ActionBar>
    </div>
  );
}

/** The handover of a movement saved on the tablet, in the review's summary. */
function HandoverSummary({ offer, store }: { offer: HandoverStep; store: FlowStore }) {
  const h = store.handover;
  return (
    <p class="text-xl" data-testid="review-handover">
      {offer.policy === "optional" && h.nobody
        ? (
          <>
            Nobody to sign:{" "}
            <strong>{offer.reasons.find((r) => r.key === h.reason)?.label ?? h.reason}</strong>
          </>
        )
        : (
          <>
            Signed by <strong>{h.receiverName.trim()}</strong>
          </>
        )}
    </p>
  );
}
