/**
 * The first step of the TabletFlow island: find the claim by rego (or hear why not, and where to go).
 * The rego field has focus on arrival; the regos this tablet found last, and the vehicles a short rego
 * matched, are one tap each.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { type ApiRefusal, type FoundClaim, isJobName, type JobName, JOBS } from "@/components/tablet_jobs.ts";
import { EVENTS, postJson } from "./_tablet_net.ts";
import { recentRegos, rememberRego } from "./_tablet_recent.ts";
import { keptFound } from "./_run_sheet.ts";
import { type HeadingRef, StepHeading } from "./_tablet_flow_ui.tsx";

type PanelModule = typeof import("./_tablet_return_request.tsx");
type PanelProps = Parameters<PanelModule["ReturnRequestPanel"]>[0];
let panelModule: Promise<PanelModule> | undefined;

/**
 * The return-request panel is a chunk of its own, fetched when a collect search offers it: few searches do,
 * and the job page's JavaScript has a budget (docs/tablet.md "Size"). The service worker keeps the chunk.
 */
function ReturnRequest(props: PanelProps) {
  const [module, setModule] = useState<PanelModule | null>(null);
  useEffect(() => {
    panelModule ??= import("./_tablet_return_request.tsx");
    panelModule.then(setModule, () => (panelModule = undefined));
  }, []);
  return module ? <module.ReturnRequestPanel {...props} /> : null;
}

/** The rego field, the search in flight and its refusal; `onFound` gets the claim the server found. */
export function useClaimSearch(
  job: JobName,
  csrf: string,
  initialRego: string,
  onFound: (claim: FoundClaim) => void,
  /** The signed-in driver, whose run sheet's searches this tablet keeps for a dead spot. */
  userId?: number,
) {
  const [rego, setRego] = useState(initialRego);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<ApiRefusal | null>(null);
  // "No answer from the server" is about the network, not the rego: it goes when the network comes back
  // (the browser's `online` event) or when any call reaches the server (EVENTS.activity, e.g. the queue
  // sending a movement), so it never sits beside "Movement #1 sent". The listeners are added as the
  // search fails, not in an effect after the render: the network may come back before an effect runs.
  const stopWatching = useRef<(() => void) | null>(null);
  const watchNetwork = () => {
    const clear = () => {
      stop();
      setError(null);
    };
    const stop = () => {
      globalThis.removeEventListener("online", clear);
      globalThis.removeEventListener(EVENTS.activity, clear);
      stopWatching.current = null;
    };
    globalThis.addEventListener("online", clear);
    globalThis.addEventListener(EVENTS.activity, clear);
    stopWatching.current = stop;
  };
  useEffect(() => () => stopWatching.current?.(), []);

  /** Searches the rego; true when a claim was found (and handed to `onFound`). */
  async function search(value: string): Promise<boolean> {
    setRego(value);
    setSearching(true);
    setError(null);
    stopWatching.current?.();
    const answer = await postJson<FoundClaim>("/tablet/api/search", { job, rego: value }, csrf);
    setSearching(false);
    // No network: a claim of the run sheet opens from the search kept with it (islands/_run_sheet.ts).
    const kept = answer.status === 0 && userId ? keptFound<FoundClaim>(userId, job, value) : null;
    if (kept) {
      onFound({ ...kept, rego: value });
      return true;
    }
    if (answer.status === 0) watchNetwork();
    if (answer.data) {
      rememberRego(value);
      onFound(answer.data);
      return true;
    } else if (answer.status !== 401) {
      setError({
        message: answer.message ??
          (answer.status === 0
            ? "No answer from the server. Check the Wi-Fi and search again."
            : `Search failed (${answer.status}). Try again.`),
        switch_to: isJobName(answer.switchTo) ? answer.switchTo : undefined,
        regos: answer.regos,
        next_step: answer.nextStep,
        return_offer: (answer.body as ApiRefusal | null)?.return_offer,
      });
    }
    return false;
  }

  return { rego, setRego, searching, error, search, csrf };
}

export type ClaimSearch = ReturnType<typeof useClaimSearch>;

/** One-tap regos: a labelled row of buttons, each searching for its rego at once. */
function RegoButtons(
  { label, regos, search, testId }: { label: string; regos: string[]; search: ClaimSearch; testId: string },
) {
  return (
    <div class="space-y-2" data-testid={testId}>
      <p id={`${testId}-label`} class="font-semibold">{label}</p>
      <ul class="flex flex-wrap gap-3" aria-labelledby={`${testId}-label`}>
        {regos.map((r) => (
          <li key={r}>
            <button
              type="button"
              class="btn btn-secondary font-mono text-xl"
              disabled={search.searching}
              onClick={() => search.search(r)}
            >
              {r}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function SearchStep(
  { title, search, headingRef, userId }: {
    title: string;
    search: ClaimSearch;
    headingRef: HeadingRef;
    /** The signed-in driver: whose return request this tablet keeps until it is sent. */
    userId: number;
  },
) {
  const { rego, searching, error } = search;
  const field = useRef<HTMLInputElement>(null);
  const [recent, setRecent] = useState<string[]>([]);
  useEffect(() => {
    // Read after hydration (the server has no localStorage), and the keyboard is up for the rego at once.
    setRecent(recentRegos());
    field.current?.focus();
  }, []);
  return (
    <form
      class="card space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        if (!searching) search.search(rego);
      }}
    >
      <StepHeading headingRef={headingRef}>{title}</StepHeading>
      <div>
        <label for="rego" class="field-label">Vehicle rego</label>
        <div class="flex flex-wrap gap-3">
          <input
            id="rego"
            ref={field}
            class="field grow basis-64 font-mono text-2xl uppercase"
            value={rego}
            onInput={(e) => search.setRego(e.currentTarget.value)}
            autoComplete="off"
            autoCapitalize="characters"
            spellcheck={false}
            enterKeyHint="search"
            maxLength={64}
            aria-describedby={error ? "search-error" : undefined}
            aria-invalid={error ? true : undefined}
            required
          />
          <button type="submit" class="btn btn-primary" disabled={searching}>
            {searching ? "Searching…" : "Find parts"}
          </button>
        </div>
      </div>
      {error && (
        <div id="search-error" class="msg-error space-y-3" role="alert" data-testid="search-error">
          <p>{error.message}</p>
          {error.next_step && <p class="font-normal" data-testid="search-next-step">{error.next_step}</p>}
          {error.switch_to && (
            <a class="btn btn-secondary" href={`/tablet/${error.switch_to}?rego=${encodeURIComponent(rego)}`}>
              {JOBS[error.switch_to].title}
            </a>
          )}
        </div>
      )}
      {error?.return_offer && (
        // Collect with nothing flagged: no dead end at the shop (docs/return-requests.md).
        <ReturnRequest
          key={error.return_offer.claim_number}
          offer={error.return_offer}
          csrf={search.csrf}
          userId={userId}
          onApproved={() => search.search(error.return_offer!.rego)}
        />
      )}
      {error?.regos && error.regos.length > 1 && (
        <RegoButtons label="Vehicles matching:" regos={error.regos} search={search} testId="matching-regos" />
      )}
      {recent.length > 0 && (
        <RegoButtons label="Recent on this tablet:" regos={recent} search={search} testId="recent-regos" />
      )}
    </form>
  );
}
