/**
 * `/hq/return-requests`: the dispatchers' queue of drivers' return requests (docs/return-requests.md): the
 * open ones oldest first, each with one-click Approve (flags the parts still at the shop, lib/
 * return_requests.ts) and Decline (a reason for the driver, required); then the latest decided ones.
 * Updates live (`return_requests`, `parts`). A decision answers with a redirect to the queue and its
 * outcome (`?done=<id>`); a refusal shows the queue again with the message (routes/hq/refusals.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { Live, liveRow } from "@/components/hq/live.tsx";
import { ClaimLink, DriverLink, RegoLink } from "@/components/hq/part_cells.tsx";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import {
  buttonClass,
  Csrf,
  dangerButtonClass,
  inputClass,
  linkClass,
  type Notice,
  NoticeBox,
  PageTitle,
  PhotoThumb,
  StatusBadge,
  Table,
  tdClass,
  Time,
  TimeCell,
} from "@/components/hq/ui.tsx";
import type { AppDeps } from "@/lib/deps.ts";
import { queueBackOf, queueDone } from "@/lib/dashboard/action_queue.ts";
import { formText } from "@/lib/dashboard/forms.ts";
import {
  approveReturnRequest,
  declineReturnRequest,
  loadReturnRequest,
  RETURN_TEXT_MAX,
  type ReturnRequest,
  returnRequestQueue,
} from "@/lib/return_requests.ts";
import { parseId } from "@/lib/validation.ts";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

const declineForm = z.object({ reason: formText });

/** What a decided request's outcome reads like on the queue (`?done=<id>`). */
function outcomeNotice(r: ReturnRequest): Notice | null {
  if (r.state === "open") return null;
  if (r.state === "declined") {
    return { kind: "ok", text: `Return request #${r.id} declined; the driver reads: ${r.declineReason}` };
  }
  const flagged = r.parts.filter((p) => p.flagged).map((p) => p.partNo);
  const left = r.parts.filter((p) => !p.flagged).map((p) => `${p.partNo} (${p.status})`);
  return {
    kind: "ok",
    text:
      `Return request #${r.id} approved: ${
        flagged.length > 0 ? flagged.join(", ") : "no part"
      } flagged for ` +
      `pick-up${left.length > 0 ? `; not flagged by this approval: ${left.join(", ")}` : ""}.`,
  };
}

export function returnRequestsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (
    c: HqContext,
    extra: { notice: Notice | null; typed?: { id: number; reason: string } },
    status: 200 | Refusal["status"] = 200,
  ) => {
    const queue = await returnRequestQueue(deps.db);
    return hqPage(
      c,
      { title: "Return requests", section: "return_requests", status },
      <Page data={{ ...queue, ...extra, csrfToken: mustViewer(c).csrfToken, since: deps.clock.now() }} />,
    );
  };

  app.get("/", async (c) => {
    const done = parseId(c.req.query("done"));
    const decided = done === null ? null : await loadReturnRequest(deps.db, done);
    return show(c, { notice: decided ? outcomeNotice(decided) : null });
  });

  app.post("/:id/approve", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "return request");
    // From the action queue (docs/action-queue.md): back there.
    const back = queueBackOf(await c.req.parseBody());
    try {
      await approveReturnRequest(deps, mustViewer(c).userId, id);
      return c.redirect(back ? queueDone(back, "approved") : `/hq/return-requests?done=${id}`, 303);
    } catch (error) {
      return answerRefusal(c, error, {
        subject: "return request",
        show: (r) => show(c, { notice: r.notice }, r.status),
      });
    }
  });

  app.post("/:id/decline", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "return request");
    const body = await c.req.parseBody();
    const form = declineForm.parse(body);
    const back = queueBackOf(body);
    try {
      await declineReturnRequest(deps, mustViewer(c).userId, id, form.reason);
      return c.redirect(back ? queueDone(back, "declined") : `/hq/return-requests?done=${id}`, 303);
    } catch (error) {
      return answerRefusal(c, error, {
        subject: "return request",
        show: (r) =>
          show(
            c,
            { notice: r.notice, typed: r.keepInput ? { id, reason: form.reason } : undefined },
            r.status,
          ),
      });
    }
  });

  return app;
}

interface Data {
  open: ReturnRequest[];
  decided: ReturnRequest[];
  csrfToken: string;
  notice: Notice | null;
  /** A refused decline keeps what was typed. */
  typed?: { id: number; reason: string };
  /** When the page was made, for the rows a live refresh brings (components/hq/live.tsx). */
  since: Date;
}

function Page({ data }: { data: Data }) {
  return (
    <>
      <PageTitle sub="Drivers at a repair shop asking HQ to flag a claim's parts for return. Approve flags the parts still at the shop for pick-up; decline tells the driver why.">
        Return requests
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <Live topics={["return_requests", "parts"]} since={data.since}>
        <h2 class="mb-2 text-xl font-semibold">Open ({data.open.length})</h2>
        {data.open.length === 0
          ? <p class="mb-6 text-slate-600" data-testid="no-open-requests">No open requests.</p>
          : (
            <ul class="mb-6 flex flex-col gap-4" aria-label="Open return requests">
              {data.open.map((r) => (
                <OpenRequest
                  key={r.id}
                  r={r}
                  csrfToken={data.csrfToken}
                  reason={data.typed?.id === r.id ? data.typed.reason : ""}
                />
              ))}
            </ul>
          )}
        <h2 class="mb-2 text-xl font-semibold">Recently decided</h2>
        <Table
          label="Recently decided return requests"
          head={["#", "Rego · Claim", "Asked by", "Decision", "By", "When", "Reason"]}
          rows={data.decided}
          empty="No decided requests yet."
        >
          {(r) => (
            <tr key={r.id} id={`request-${r.id}`} data-request={r.id}>
              <td class={tdClass}>#{r.id}</td>
              <td class={`${tdClass} whitespace-nowrap`}>
                <RegoLink rego={r.rego} /> · <ClaimLink claim={r.claimNumber} />
              </td>
              <td class={tdClass}>
                <DriverLink id={r.requestedBy.id} name={r.requestedBy.name} />
              </td>
              <td class={tdClass} data-testid="decision">{r.state}</td>
              <td class={tdClass}>{r.decidedBy ?? "—"}</td>
              <TimeCell at={r.decidedAt} />
              <td class={tdClass}>{r.declineReason ?? ""}</td>
            </tr>
          )}
        </Table>
      </Live>
    </>
  );
}

function OpenRequest({ r, csrfToken, reason }: { r: ReturnRequest; csrfToken: string; reason: string }) {
  const atShop = r.parts.filter((p) => p.status === "Delivered to Repair Shop directly").length;
  return (
    <li
      id={`request-${r.id}`}
      class="rounded border border-slate-200 bg-white p-4"
      data-request={r.id}
      aria-label={`Return request #${r.id}, ${r.rego}`}
      {...liveRow(`return-request:${r.id}`, r.requestedAt, `return request #${r.id}: ${r.rego}`)}
    >
      <div class="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <strong>#{r.id}</strong>
        <span class="font-mono">
          <RegoLink rego={r.rego} />
        </span>
        <span>
          · claim <ClaimLink claim={r.claimNumber} /> · {r.repairerName ?? "no repair shop on record"}
        </span>
        <span class="ml-auto text-sm text-slate-600">
          asked by <DriverLink id={r.requestedBy.id} name={r.requestedBy.name} /> ·{" "}
          <Time at={r.requestedAt} />
        </span>
      </div>
      {r.note && <p class="mt-2 whitespace-pre-line rounded bg-slate-50 p-2 text-base">“{r.note}”</p>}
      {r.photoId && (
        <p class="mt-2" data-testid="return-request-photo">
          <PhotoThumb id={r.photoId} alt={`The driver's photo for request #${r.id}`} />
        </p>
      )}
      <ul class="mt-2 flex flex-col gap-1 text-base" aria-label="Parts asked for">
        {r.parts.map((p) => (
          <li key={p.id} class="flex flex-wrap items-center gap-2">
            <a class={`${linkClass} font-mono`} href={`/hq/parts/${p.id}`}>{p.partNo}</a>
            <span>{p.description} · Qty {p.qty}</span>
            <StatusBadge status={p.status} />
          </li>
        ))}
      </ul>
      <div class="mt-3 grid gap-3 md:grid-cols-2">
        <form method="post" action={`/hq/return-requests/${r.id}/approve`} class="flex items-start">
          <Csrf token={csrfToken} />
          <button type="submit" class={buttonClass}>
            Approve: flag {atShop} {atShop === 1 ? "part" : "parts"} for pick-up
          </button>
        </form>
        <form method="post" action={`/hq/return-requests/${r.id}/decline`} class="flex flex-col gap-2">
          <Csrf token={csrfToken} />
          <label class="flex flex-col gap-1 text-base">
            <span class="text-slate-700">Reason for the driver (required to decline)</span>
            <textarea
              name="reason"
              rows={2}
              maxLength={RETURN_TEXT_MAX}
              required
              class={inputClass}
              aria-label={`Reason for declining request #${r.id}`}
            >
              {reason}
            </textarea>
          </label>
          <div>
            <button type="submit" class={dangerButtonClass}>Decline</button>
          </div>
        </form>
      </div>
    </li>
  );
}
