/**
 * The way on at a stop of the run sheet (docs/tablet.md "The run sheet"), on a job page and on a receipt:
 * **Next claim** opens the stop's next claim not done (its rego searched at once) and **Back to today's
 * run** the sheet. The stop is the one the driver opened the claim from (`?stop=` on the job page, kept on
 * the tablet for the receipt); a job chosen off the sheet shows nothing here. Works from the sheet kept on
 * the tablet, so it goes on through dead Wi-Fi, movements saved on the tablet counting as done.
 */
import { useEffect, useState } from "preact/hooks";
import { JOBS } from "@/components/tablet_jobs.ts";
import { claimHref, currentStop, nextClaim, setCurrentStop } from "./_run_sheet.ts";
import { useRunSheet } from "./_run_sheet_hooks.ts";

export interface TabletStopNavProps {
  userId: number;
  csrf: string;
  /** The claim on screen (a receipt's); a job page reads its own from its address. */
  job?: string;
  rego?: string;
}

/** The stop and claim of this page: `?stop=` and `?rego=` on a job page, else the stop kept on the tablet. */
function pageContext(props: TabletStopNavProps): { stop: number | null; job?: string; rego?: string } {
  const query = new URLSearchParams(location.search);
  const onJobPage = /^\/tablet\/(deliver|collect|return)$/.exec(location.pathname);
  if (onJobPage) {
    // A job page opened off the sheet (the job cards, a typed rego) leaves the stop behind.
    const stop = Number(query.get("stop")) || null;
    setCurrentStop(props.userId, stop);
    return { stop, job: onJobPage[1], rego: query.get("rego") ?? undefined };
  }
  return { stop: currentStop(props.userId), job: props.job, rego: props.rego };
}

export default function TabletStopNav(props: TabletStopNavProps) {
  const [context, setContext] = useState<ReturnType<typeof pageContext> | null>(null);
  useEffect(() => setContext(pageContext(props)), []);
  if (!context?.stop) return null;
  return <StopNav {...props} {...context} stop={context.stop} />;
}

function StopNav(
  { userId, csrf, stop, job, rego }: {
    userId: number;
    csrf: string;
    stop: number;
    job?: string;
    rego?: string;
  },
) {
  const { sheet } = useRunSheet(userId, csrf);
  const here = sheet?.stops.find((s) => s.repairerId === stop);
  const next = here && nextClaim(here, job && rego ? { job, rego } : undefined);
  return (
    <nav aria-label="This stop" class="card space-y-3" data-testid="stop-nav">
      {here && (
        <p>
          <strong>{here.name}</strong>: {here.done} of {here.total} done
          {next ? "" : " · nothing else to do here"}
        </p>
      )}
      <div class="flex flex-wrap gap-3">
        {next && (
          <a class="btn btn-primary grow" href={claimHref(next.job, next.rego, stop)}>
            Next claim: <span class="font-mono">{next.rego}</span> ({JOBS[next.job].title.split(" ")[0]})
          </a>
        )}
        <a class="btn btn-secondary grow" href="/tablet">Back to today's run</a>
      </div>
    </nav>
  );
}
