/**
 * One movement on the depot tablet: find the claim by rego, confirm and photograph each part, review,
 * confirm, then go to the receipt. Photos are shrunk in the browser and uploaded in a queue that retries
 * with backoff and resumes when the network returns; the submission is retried the same way (the server
 * answers a repeat of an applied submission with its original success, D16). A rule failure is shown
 * next to the part it names and nothing the driver entered is lost.
 */
import { useEffect, useReducer, useRef, useState } from "preact/hooks";
import {
  type ApiRefusal,
  type FoundClaim,
  isJobName,
  type JobName,
  JOBS,
  type SubmittedMovement,
} from "./_tablet_jobs.ts";
import { backoffMs, EVENTS, isRetryable, postJson, waitOrOnline } from "./_tablet_net.ts";
import { createFlowStore, type FlowStore } from "./_tablet_store.ts";
import { PartCard, PendingBar } from "./_tablet_parts.tsx";

export interface TabletFlowProps {
  job: JobName;
  csrf: string;
  /** deliver: the active repair shops for the dropdown. */
  repairers?: { id: number; name: string }[];
  /** A rego to search for at once (a link from another job). */
  rego?: string;
  /** The flow's "Select at least one part to …" (lib/flows.ts), checked before review too. */
  noneSelected: string;
}

type Step = "search" | "parts" | "review";

/** The status and the main button stay in reach of the thumb at the bottom of the screen. */
const ACTION_BAR = "sticky bottom-0 z-10 -mx-4 space-y-2 border-t-2 border-slate-300 bg-slate-100 px-4 py-3";
interface Sending {
  state: "idle" | "sending" | "waiting";
  attempts: number;
  retryAt?: number;
}

export default function TabletFlow(props: TabletFlowProps) {
  const job = JOBS[props.job];
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const store = useRef<FlowStore>(null as unknown as FlowStore);
  store.current ??= createFlowStore(props.csrf, props.job, () => rerender(0));
  const s = store.current;

  const [step, setStep] = useState<Step>("search");
  const [rego, setRego] = useState(props.rego ?? "");
  const [found, setFound] = useState<FoundClaim | null>(null);
  const [searching, setSearching] = useState(false);
  const [searchError, setSearchError] = useState<ApiRefusal | null>(null);
  const [repairerId, setRepairerId] = useState("");
  const [formError, setFormError] = useState<string | null>(null);
  const [sending, setSending] = useState<Sending>({ state: "idle", attempts: 0 });
  const [ready, setReady] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const leaving = useRef(false);

  useEffect(() => {
    setReady(true);
    if (props.rego) search(props.rego);
    const onSignedOut = () => {
      s.signedOut = true;
      rerender(0);
    };
    const onLeaving = () => (leaving.current = true);
    // Photos taken but not yet sent would be lost by leaving the page: ask first.
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!leaving.current && !s.signedOut && s.hasWork) e.preventDefault();
    };
    globalThis.addEventListener(EVENTS.signedOut, onSignedOut);
    globalThis.addEventListener(EVENTS.leaving, onLeaving);
    globalThis.addEventListener("beforeunload", onBeforeUnload);
    return () => {
      globalThis.removeEventListener(EVENTS.signedOut, onSignedOut);
      globalThis.removeEventListener(EVENTS.leaving, onLeaving);
      globalThis.removeEventListener("beforeunload", onBeforeUnload);
    };
  }, []);

  // Countdowns ("trying again in 4 s") need a tick while something waits.
  const waiting = sending.state === "waiting" || s.pending.waiting > 0;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => rerender(0), 1000);
    return () => clearInterval(timer);
  }, [waiting]);

  useEffect(() => {
    if (ready) heading.current?.focus();
  }, [step]);

  async function search(value: string) {
    setSearching(true);
    setSearchError(null);
    const answer = await postJson<FoundClaim>(
      "/tablet/api/search",
      { job: props.job, rego: value },
      props.csrf,
    );
    setSearching(false);
    if (answer.data) {
      s.load(answer.data);
      setFound(answer.data);
      const preselected = answer.data.repairer_id;
      setRepairerId(props.repairers?.some((r) => r.id === preselected) ? String(preselected) : "");
      setFormError(null);
      setStep("parts");
    } else if (answer.status !== 401) {
      setSearchError({
        message: answer.message ??
          (answer.status === 0
            ? "No answer from the server. Check the Wi-Fi and search again."
            : `Search failed (${answer.status}). Try again.`),
        switch_to: isJobName(answer.switchTo) ? answer.switchTo : undefined,
      });
    }
  }

  /** Checks what the server would refuse anyway, so the driver hears it before the review. */
  function review() {
    setFormError(null);
    for (const p of s.parts) if (!p.confirmed) p.error = undefined;
    if (props.job === "deliver" && !repairerId) return setFormError("Choose a repair shop.");
    const confirmed = s.confirmed;
    if (confirmed.length === 0) return setFormError(props.noneSelected);
    let problem = false;
    for (const p of confirmed) {
      const status = p.photo?.status;
      if (status === "done") continue;
      problem = true;
      p.error = !p.photo
        ? "Take a photo of this part."
        : status === "failed"
        ? "The photo did not upload. Retry or retake it."
        : "Wait for the photo to finish uploading.";
    }
    rerender(0);
    if (problem) {
      setFormError("Some parts need attention: see the messages next to them.");
      return;
    }
    setStep("review");
  }

  async function submit() {
    if (!found || sending.state !== "idle") return;
    // Frozen now: every retry sends exactly this, so a repeat is recognised as the same submission (D16).
    const body = {
      job: props.job,
      rego: found.rego,
      repairer_id: props.job === "deliver" ? Number(repairerId) : undefined,
      movement_id: found.movement_id,
      parts: s.parts.map((p) => ({
        parts_order_id: p.id,
        confirm: p.confirmed,
        image_id: p.confirmed ? p.photo?.imageId ?? null : null,
      })),
    };
    for (let attempts = 1;; attempts++) {
      setSending({ state: "sending", attempts });
      const answer = await postJson<SubmittedMovement>("/tablet/api/movements", body, props.csrf, 30_000);
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
      const part = answer.partId === undefined ? undefined : s.part(answer.partId);
      if (part) part.error = answer.message;
      setFormError(
        part
          ? `Nothing was saved. See the message next to ${part.part_no}.`
          : answer.message ?? `Not saved (${answer.status}).`,
      );
      setStep("parts");
      break;
    }
    setSending({ state: "idle", attempts: 0 });
  }

  const headingId = "flow-heading";
  return (
    <section
      aria-labelledby={headingId}
      class="space-y-4"
      data-testid="flow"
      data-ready={ready ? "" : undefined}
    >
      {step === "search" && (
        <form
          class="card space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            if (!searching) search(rego);
          }}
        >
          <h1 id={headingId} ref={heading} tabIndex={-1} class="text-3xl font-bold">{job.title}</h1>
          <div>
            <label for="rego" class="field-label">Vehicle rego</label>
            <div class="flex flex-wrap gap-3">
              <input
                id="rego"
                class="field grow basis-64 font-mono text-2xl uppercase"
                value={rego}
                onInput={(e) => setRego(e.currentTarget.value)}
                autoComplete="off"
                autoCapitalize="characters"
                spellcheck={false}
                enterKeyHint="search"
                maxLength={64}
                aria-describedby={searchError ? "search-error" : undefined}
                aria-invalid={searchError ? true : undefined}
                required
              />
              <button type="submit" class="btn btn-primary" disabled={searching}>
                {searching ? "Searching…" : "Find parts"}
              </button>
            </div>
          </div>
          {searchError && (
            <div id="search-error" class="msg-error space-y-3" role="alert" data-testid="search-error">
              <p>{searchError.message}</p>
              {searchError.switch_to && (
                <a
                  class="btn btn-secondary"
                  href={`/tablet/${searchError.switch_to}?rego=${encodeURIComponent(rego)}`}
                >
                  {JOBS[searchError.switch_to].title}
                </a>
              )}
            </div>
          )}
        </form>
      )}

      {step !== "search" && found && (
        <div class="card flex flex-wrap items-center gap-x-6 gap-y-2">
          <p>
            Rego{" "}
            <strong class="font-mono text-2xl" data-testid="found-rego">{found.rego.toUpperCase()}</strong>
          </p>
          <p>
            Claim <strong>{found.claim_number}</strong>
          </p>
          {found.hq_location && (
            <p>
              Return trip <strong>#{found.movement_id}</strong> to <strong>{found.hq_location.name}</strong>
            </p>
          )}
          {props.job === "collect" && <p>Bringing back to HQ</p>}
          {step === "parts" && (
            <button
              type="button"
              class="btn btn-secondary ml-auto"
              onClick={() => {
                if (
                  !s.hasWork || confirm("Start again? The photos taken for this vehicle will be dropped.")
                ) {
                  s.load({ ...found, parts: [] });
                  setFound(null);
                  setStep("search");
                }
              }}
            >
              Another rego
            </button>
          )}
        </div>
      )}

      {step === "parts" && found && (
        <div class="space-y-4">
          <h1 id={headingId} ref={heading} tabIndex={-1} class="text-3xl font-bold">
            {job.title}: select and photograph each part
          </h1>
          {formError && <p class="msg-error" role="alert" data-testid="form-error">{formError}</p>}
          {props.job === "deliver" && (
            <div class="card">
              <label for="repair-shop" class="field-label">Repair shop</label>
              <select
                id="repair-shop"
                class="field"
                value={repairerId}
                onChange={(e) => setRepairerId(e.currentTarget.value)}
              >
                <option value="">Choose a repair shop</option>
                {props.repairers?.map((r) => <option key={r.id} value={String(r.id)}>{r.name}</option>)}
              </select>
              {found.repairer_name === null && (
                <p class="mt-2 text-base">
                  This claim has no repairer on record: choose the shop you are at.
                </p>
              )}
            </div>
          )}
          <ul class="space-y-4" aria-label="Parts">
            {s.parts.map((p) => (
              <PartCard
                key={p.id}
                part={p}
                toggleLabel={job.toggle}
                onToggle={(on) => {
                  p.confirmed = on;
                  p.error = undefined;
                  rerender(0);
                }}
                onPhoto={(file) => s.takePhoto(p.id, file, found.rego)}
                onRetry={() => s.retry(p.id, found.rego)}
              />
            ))}
          </ul>
          <div class={ACTION_BAR}>
            <PendingBar store={s} sending={sending} />
            <button type="button" class="btn btn-primary w-full min-h-16 text-xl" onClick={review}>
              Review ({s.confirmed.length} {s.confirmed.length === 1 ? "part" : "parts"})
            </button>
          </div>
        </div>
      )}

      {step === "review" && found && (
        <div class="space-y-4">
          <h1 id={headingId} ref={heading} tabIndex={-1} class="text-3xl font-bold">Check and confirm</h1>
          <div class="card space-y-3">
            <p class="text-xl">
              {job.title}
              {props.job === "deliver" && (
                <>
                  : <strong>{props.repairers?.find((r) => String(r.id) === repairerId)?.name}</strong>
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
          <div class={ACTION_BAR}>
            <PendingBar store={s} sending={sending} />
            <div class="flex flex-wrap gap-3">
              <button
                type="button"
                class="btn btn-secondary"
                disabled={sending.state !== "idle"}
                onClick={() => setStep("parts")}
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
                onClick={submit}
              >
                {sending.state === "idle" ? job.confirm : "Sending…"}
              </button>
            </div>
          </div>
        </div>
      )}
    </section>
  );
}
