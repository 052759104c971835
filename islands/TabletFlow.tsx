/**
 * One movement on the depot tablet: find the claim by rego, confirm and photograph each part, review,
 * confirm, then go to the receipt. Photos are shrunk in the browser and uploaded in a queue that retries
 * with backoff and resumes when the network returns; the submission is retried the same way (the server
 * answers a repeat of an applied submission with its original success, D16). A rule failure is shown
 * next to the part it names and nothing the driver entered is lost.
 *
 * This module holds the flow's state and which step shows; each step lives beside it: _tablet_search.tsx,
 * _tablet_parts_step.tsx, _tablet_review.tsx (frame pieces in _tablet_flow_ui.tsx, the store and its
 * hooks in _tablet_store.ts and _tablet_flow_hooks.ts).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { type FoundClaim, type JobName, JOBS } from "./_tablet_jobs.ts";
import { useFlowStore, useLeaveGuard, useTickWhile } from "./_tablet_flow_hooks.ts";
import { ClaimCard, FLOW_HEADING_ID } from "./_tablet_flow_ui.tsx";
import { SearchStep, useClaimSearch } from "./_tablet_search.tsx";
import { checkBeforeReview, PartsStep, type Repairer } from "./_tablet_parts_step.tsx";
import { ReviewStep, useSubmission } from "./_tablet_review.tsx";

export interface TabletFlowProps {
  job: JobName;
  csrf: string;
  /** deliver: the active repair shops for the dropdown. */
  repairers?: Repairer[];
  /** A rego to search for at once (a link from another job). */
  rego?: string;
  /** The flow's "Select at least one part to …" (lib/flows.ts), checked before review too. */
  noneSelected: string;
}

type Step = "search" | "parts" | "review";

export default function TabletFlow(props: TabletFlowProps) {
  const job = JOBS[props.job];
  const [s, rerender] = useFlowStore(props.csrf, props.job);
  const [step, setStep] = useState<Step>("search");
  const [found, setFound] = useState<FoundClaim | null>(null);
  const [repairerId, setRepairerId] = useState("");
  const [formError, setFormError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const leaving = useLeaveGuard(s, rerender);

  const search = useClaimSearch(props.job, props.csrf, props.rego ?? "", (claim) => {
    s.load(claim);
    setFound(claim);
    const preselected = claim.repairer_id;
    setRepairerId(props.repairers?.some((r) => r.id === preselected) ? String(preselected) : "");
    setFormError(null);
    setStep("parts");
  });
  const { sending, submit } = useSubmission(props.job, props.csrf, s, leaving, (message) => {
    setFormError(message);
    setStep("parts");
  });

  useEffect(() => {
    setReady(true);
    if (props.rego) search.search(props.rego);
  }, []);
  useTickWhile(sending.state === "waiting" || s.pending.waiting > 0, rerender);
  useEffect(() => {
    if (ready) heading.current?.focus();
  }, [step]);

  const anotherRego = () => {
    if (!found) return;
    if (!s.hasWork || confirm("Start again? The photos taken for this vehicle will be dropped.")) {
      s.load({ ...found, parts: [] });
      setFound(null);
      setStep("search");
    }
  };
  const review = () =>
    checkBeforeReview(
      s,
      { shopMissing: props.job === "deliver" && !repairerId, noneSelected: props.noneSelected },
      { setFormError, rerender, toReview: () => setStep("review") },
    );

  return (
    <section
      aria-labelledby={FLOW_HEADING_ID}
      class="space-y-4"
      data-testid="flow"
      data-ready={ready ? "" : undefined}
    >
      {step === "search" && <SearchStep title={job.title} search={search} headingRef={heading} />}
      {step !== "search" && found && (
        <ClaimCard found={found} job={props.job} onAnotherRego={step === "parts" ? anotherRego : undefined} />
      )}
      {step === "parts" && found && (
        <PartsStep
          job={job}
          jobName={props.job}
          found={found}
          store={s}
          rerender={rerender}
          repairers={props.repairers}
          repairerId={repairerId}
          onRepairer={setRepairerId}
          formError={formError}
          sending={sending}
          headingRef={heading}
          onReview={review}
        />
      )}
      {step === "review" && found && (
        <ReviewStep
          job={job}
          jobName={props.job}
          found={found}
          store={s}
          repairerName={props.repairers?.find((r) => String(r.id) === repairerId)?.name}
          sending={sending}
          headingRef={heading}
          onBack={() => setStep("parts")}
          onSubmit={() => submit(found, repairerId)}
        />
      )}
    </section>
  );
}
