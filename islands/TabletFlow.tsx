/**
 * One movement on the depot tablet: find the claim by rego, confirm and photograph each part, review,
 * confirm, then go to the receipt. Everything the driver does is kept on the device (the durable queue,
 * islands/_tablet_queue*.ts) before anything is sent, so the page picks up where the driver left it after
 * a reload, a crash or a sign-out, and a driver can finish a job with no network: the queue sends the
 * photos, then the submission, when it can (the server answers a repeat of an applied submission with its
 * original success, D16). A rule failure is shown next to the part it names and nothing is lost.
 *
 * This module holds which step shows; each step lives beside it: _tablet_search.tsx,
 * _tablet_parts_step.tsx, _tablet_review.tsx with the handover under it (_tablet_handover.tsx; frame
 * pieces in _tablet_flow_ui.tsx, the store and its hooks in _tablet_store.ts and _tablet_flow_hooks.ts).
 * A label scanned (_tablet_scan.tsx) opens its claim on the rego step and ticks its part on either step.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { type FoundClaim, type JobName, JOBS } from "@/components/tablet_jobs.ts";
import { useFlowStore, useLeaveGuard, useTickWhile } from "./_tablet_flow_hooks.ts";
import { ClaimCard, FLOW_HEADING_ID } from "./_tablet_flow_ui.tsx";
import { SearchStep, useClaimSearch } from "./_tablet_search.tsx";
import { checkBeforeReview, PartsStep, type Repairer } from "./_tablet_parts_step.tsx";
import { loadHandover, refusalText, ReviewStep, useSubmission } from "./_tablet_review.tsx";
import { asksHandover } from "./_tablet_handover_rules.ts";
import { type OnPart, SCAN_FIELD_ID, ScanField, type ScanTarget, useScanner } from "./_tablet_scan.tsx";

export interface TabletFlowProps {
  job: JobName;
  /** The signed-in driver: the owner of the work this page keeps on the device. */
  userId: number;
  csrf: string;
  /** deliver: the active repair shops for the dropdown. */
  repairers?: Repairer[];
  /** A rego to search for at once (a link from another job), unless work on this job is resumed. */
  rego?: string;
  /** The flow's "Select at least one part to …" (lib/flows.ts), checked before review too. */
  noneSelected: string;
}

type Step = "search" | "parts" | "review";

/** `?rego=` of the page's address (a claim opened from the run sheet), if any. */
const linkRego = () => new URLSearchParams(location.search).get("rego")?.trim().slice(0, 64) || undefined;

export default function TabletFlow(props: TabletFlowProps) {
  const job = JOBS[props.job];
  const [s, queue, rerender] = useFlowStore(props.userId, props.csrf, props.job);
  const [step, setStep] = useState<Step>("search");
  const [formError, setFormError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const leaving = useLeaveGuard(s);
  const scanner = useScanner(props.job, props.csrf);
  // A label scanned on the rego step: the part to tick once its claim is found, and the scan field (not
  // the heading) takes focus on the parts step, so the scanner can read the next label at once.
  const scanned = useRef<{ tick?: number; focus: boolean }>({ focus: false });

  const search = useClaimSearch(props.job, props.csrf, props.rego ?? "", async (claim: FoundClaim) => {
    const preselected = claim.repairer_id;
    if (asksHandover(claim.handover)) void loadHandover().catch(() => {});
    await s.load(claim, props.repairers?.some((r) => r.id === preselected) ? String(preselected) : "");
    const tick = scanned.current.tick;
    scanned.current.tick = undefined;
    if (tick !== undefined) await s.toggle(tick, true);
    setFormError(null);
    setStep("parts");
  }, props.userId);
  const { sending, submit } = useSubmission(s, queue, leaving, (message) => {
    setFormError(message);
    setStep("parts");
  });

  useEffect(() => {
    // The driver's unfinished work on this job comes first; a search link applies when there is none.
    // The link is read from the address too: a page the service worker kept was rendered for another.
    const rego = linkRego() ?? props.rego;
    s.resume(rego).then((m) => {
      if (m && asksHandover(m.found.handover)) void loadHandover().catch(() => {});
      if (m) setStep(m.state === "queued" ? "review" : "parts");
      else if (rego) search.search(rego);
      if (m?.state === "refused") setFormError(refusalText(s));
      setReady(true);
    });
  }, []);
  useTickWhile(sending.state === "waiting" || s.pending.waiting > 0, rerender);
  useEffect(() => {
    // The review has no scanning: the camera goes off rather than coming back on with the parts step.
    if (step === "review") scanner.closeCamera();
    if (!ready) return;
    if (scanned.current.focus) document.getElementById(SCAN_FIELD_ID)?.focus();
    else heading.current?.focus();
    scanned.current.focus = false;
  }, [step]);

  const found = s.found;
  const anotherRego = async () => {
    if (!found) return;
    if (
      s.state === "queued" || !s.hasWork ||
      confirm("Start again? The photos taken for this vehicle will be dropped.")
    ) {
      await s.drop();
      setFormError(null);
      setStep("search");
    }
  };
  // The rego step opens the scanned part's claim with the part ticked; the parts step ticks it.
  const openScanned: OnPart = async (answer) => {
    scanned.current = { tick: answer.part_id, focus: true };
    if (await search.search(answer.rego)) return true;
    scanned.current = { focus: false };
    return false;
  };
  const tickScanned: OnPart = async (answer) => {
    if (!s.part(answer.part_id)) {
      return `${answer.part_no} is not in the list on screen: search the rego again.`;
    }
    await s.toggle(answer.part_id, true);
    document.querySelector(`[data-part-id="${answer.part_id}"]`)?.scrollIntoView({ block: "center" });
    return true;
  };
  // Decided when the read's turn comes: a label read just before may have opened the claim meanwhile (the
  // store holds it from the moment the search found it).
  const scanTarget: ScanTarget = () =>
    s.found ? { rego: s.found.rego, onPart: tickScanned } : { onPart: openScanned };
  const scanField = <ScanField scanner={scanner} onCode={(code) => scanner.read(code, scanTarget)} />;
  const review = () =>
    checkBeforeReview(
      s,
      { shopMissing: props.job === "deliver" && !s.repairerId, noneSelected: props.noneSelected },
      { setFormError, rerender, toReview: () => setStep("review") },
    );

  return (
    <section
      aria-labelledby={FLOW_HEADING_ID}
      class="space-y-4"
      data-testid="flow"
      data-ready={ready ? "" : undefined}
    >
      {step === "search" && (
        <SearchStep title={job.title} search={search} headingRef={heading} userId={props.userId} />
      )}
      {step === "search" && scanField}
      {step !== "search" && found && (
        <ClaimCard
          found={found}
          job={props.job}
          onAnotherRego={step === "parts" || s.state === "queued" ? anotherRego : undefined}
        />
      )}
      {step === "parts" && found && (
        <PartsStep
          job={job}
          jobName={props.job}
          found={found}
          store={s}
          rerender={rerender}
          repairers={props.repairers}
          repairerId={s.repairerId}
          onRepairer={(id) => {
            void s.setRepairer(id);
            rerender();
          }}
          formError={formError}
          sending={sending}
          headingRef={heading}
          onReview={review}
          scan={scanField}
        />
      )}
      {step === "review" && found && (
        <ReviewStep
          job={job}
          jobName={props.job}
          found={found}
          store={s}
          repairerName={props.repairers?.find((r) => String(r.id) === s.repairerId)?.name}
          sending={sending}
          headingRef={heading}
          onBack={() => setStep("parts")}
          onSubmit={async (signature) => {
            await submit(signature);
            rerender();
          }}
          onRetry={() => queue.kick()}
        />
      )}
    </section>
  );
}
