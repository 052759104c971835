/**
 * `/hq/problem-reports`: the repair shops' problem reports (docs/shop-page.md "Report a problem"), open ones
 * oldest first, each with its part, claim, reason, note and photo, and "Mark handled"; then the latest
 * handled. A second dispatcher marking the same report reads who already did (routes/hq/refusals.ts).
 */
import { Hono } from "hono";
import { ClaimLink, RegoLink } from "@/components/hq/part_cells.tsx";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import {
  buttonClass,
  Csrf,
  linkClass,
  type Notice,
  NoticeBox,
  PageTitle,
  PhotoThumb,
  Section,
  StatusBadge,
  Time,
} from "@/components/hq/ui.tsx";
import type { ProblemReportRow } from "@/db/queries/shop_problems.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { queueBackOf, queueDone } from "@/lib/dashboard/action_queue.ts";
import { PROBLEM_REASONS, problemReportQueue, resolveProblemReport } from "@/lib/shops/problems.ts";
import { parseId } from "@/lib/validation.ts";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

export function problemReportRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const show = async (c: HqContext, notice: Notice | null, status: 200 | Refusal["status"] = 200) => {
    const queue = await problemReportQueue(deps);
    return hqPage(
      c,
      { title: "Problem reports", section: "problem_reports", status },
      <Page {...queue} notice={notice} csrfToken={mustViewer(c).csrfToken} />,
    );
  };
  app.get("/", (c) => {
    const done = parseId(c.req.query("done") ?? "");
    return show(c, done ? { kind: "ok", text: `Report #${done} marked handled.` } : null);
  });
  app.post("/:id/resolve", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "problem report");
    // From the action queue (docs/action-queue.md): back there.
    const back = queueBackOf(await c.req.parseBody());
    try {
      await resolveProblemReport(deps, mustViewer(c).userId, id);
      return c.redirect(back ? queueDone(back, "handled") : `/hq/problem-reports?done=${id}`, 303);
    } catch (error) {
      return answerRefusal(c, error, { subject: "problem report", show: (r) => show(c, r.notice, r.status) });
    }
  });
  return app;
}

function Report({ r, csrfToken }: { r: ProblemReportRow; csrfToken?: string }) {
  return (
    <li
      class="rounded border border-slate-200 bg-white p-4"
      aria-label={`Problem report #${r.id}, ${r.part_no}`}
    >
      <div class="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <strong>#{r.id}</strong>
        <span class="font-semibold">{PROBLEM_REASONS[r.reason]}</span>
        <a class={`${linkClass} font-mono`} href={`/hq/parts/${r.part_id}`}>{r.part_no}</a>
        <span>{r.description}</span>
        <StatusBadge status={r.status} />
        <span>
          · claim <ClaimLink claim={r.claim_number} /> ·{" "}
          <span class="font-mono">
            <RegoLink rego={r.registration} />
          </span>
        </span>
        <span class="ml-auto text-sm text-slate-600">
          {r.repairer_name} · <Time at={r.reported_at} />
        </span>
      </div>
      {r.note && <p class="mt-2 whitespace-pre-line rounded bg-slate-50 p-2 text-base">“{r.note}”</p>}
      {r.photo_id && (
        <p class="mt-2">
          <PhotoThumb id={r.photo_id} alt={`Photo of report #${r.id}`} />
        </p>
      )}
      {csrfToken
        ? (
          <form method="post" action={`/hq/problem-reports/${r.id}/resolve`} class="mt-3">
            <Csrf token={csrfToken} />
            <button type="submit" class={buttonClass}>Mark handled</button>
          </form>
        )
        : (
          <p class="mt-2 text-sm text-slate-600">
            Handled by {r.resolved_by_name ?? "—"} · <Time at={r.resolved_at} />
          </p>
        )}
    </li>
  );
}

function Page(
  { open, resolved, notice, csrfToken }: {
    open: ProblemReportRow[];
    resolved: ProblemReportRow[];
    notice: Notice | null;
    csrfToken: string;
  },
) {
  return (
    <>
      <PageTitle sub="Sent by the repair shops from their private page: a wrong part, a damaged one, one not received.">
        Problem reports
      </PageTitle>
      <NoticeBox notice={notice} />
      <Section id="open-reports" title={`Open (${open.length})`} class="mb-8">
        {open.length === 0
          ? <p>No open reports.</p>
          : (
            <ul class="flex flex-col gap-3" aria-label="Open problem reports">
              {open.map((r) => <Report key={r.id} r={r} csrfToken={csrfToken} />)}
            </ul>
          )}
      </Section>
      <Section id="handled-reports" title="Latest handled">
        {resolved.length === 0
          ? <p>None yet.</p>
          : (
            <ul class="flex flex-col gap-3" aria-label="Handled problem reports">
              {resolved.map((r) => <Report key={r.id} r={r} />)}
            </ul>
          )}
      </Section>
    </>
  );
}
