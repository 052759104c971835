/**
 * `/hq/parts/:id`: one part: its claim, the status changes a dispatcher may make now (lib/part_status.ts),
 * its whole history (from, to, when, who, via, reason) and the movements that carried it, with their
 * photos; and the dispatcher's status change (POST).
 */
import { Live, LiveRegion } from "@/components/hq/live.tsx";
import { Hono } from "hono";
import { z } from "zod";
import { PART_STATUSES } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { formText } from "@/lib/dashboard/forms.ts";
import { partPage, type PartPageData } from "@/lib/dashboard/parts.ts";
import { changeStatusByDispatcher } from "@/lib/part_status.ts";
import { parseId } from "@/lib/validation.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { type HqContext, hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import { answerRefusal, type Refusal } from "@/routes/hq/refusals.ts";
import { ClaimLink, RegoLink } from "@/components/hq/part_cells.tsx";
import {
  buttonClass,
  Csrf,
  dangerButtonClass,
  DetailItem,
  inputClass,
  linkClass,
  type Notice,
  NoticeBox,
  PageTitle,
  PhotoThumb,
  Section,
  StatusBadge,
  Table,
  tdClass,
  Time,
  TimeCell,
} from "@/components/hq/ui.tsx";

/** The status change form: the status the page showed, the one asked for, and the reason. */
const statusForm = z.object({ from: formText, to: formText, reason: formText });

/** `?done=<status>` after a change. */
const doneQuery = z.enum(PART_STATUSES).optional().catch(undefined);

export function partRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const show = async (
    c: HqContext,
    id: number,
    extra: Pick<Data, "notice" | "reason">,
    status: 200 | Refusal["status"] = 200,
  ) => {
    const data = await partPage(deps.db, id);
    if (!data) return notFoundPage(c, "part");
    return hqPage(
      c,
      { title: `Part ${data.detail.part.part_no}`, section: "parts", status },
      <Page data={{ ...data, ...extra, csrfToken: mustViewer(c).csrfToken }} />,
    );
  };

  app.get("/:id", (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "part");
    const done = doneQuery.parse(c.req.query("done"));
    return show(c, id, {
      notice: done ? { kind: "ok", text: `Status changed to ${done}.` } : null,
      reason: "",
    });
  });

  app.post("/:id/status", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "part");
    const form = statusForm.parse(await c.req.parseBody());
    try {
      const result = await changeStatusByDispatcher(deps.db, deps.clock, {
        partId: id,
        ...form,
        userId: mustViewer(c).userId,
      });
      return c.redirect(`/hq/parts/${id}?done=${encodeURIComponent(result.to)}`, 303);
    } catch (error) {
      return answerRefusal(c, error, {
        subject: "part",
        show: (r) => show(c, id, { notice: r.notice, reason: r.keepInput ? form.reason : "" }, r.status),
      });
    }
  });

  return app;
}

interface Data extends PartPageData {
  csrfToken: string;
  notice: Notice | null;
  /** What the dispatcher typed, kept when a change is refused. */
  reason: string;
}

const VIA_LABEL = {
  import: "Import",
  dashboard: "Dashboard",
  movement: "Movement",
  shop: "Shop page",
} as const;

const HISTORY_COLUMNS = ["When", "From", "To", "Who", "Via", "Reason"];
const MOVEMENT_COLUMNS = ["Movement", "Status", "Picked up", "Dropped off", "Pickup photo", "Delivery photo"];

function Page({ data }: { data: Data }) {
  const { part, history, movements } = data.detail;
  return (
    <>
      <p class="mb-2 text-base">
        <a class={linkClass} href={`/hq/parts?claim=${encodeURIComponent(part.claim_number)}`}>
          ← All parts of claim {part.claim_number}
        </a>
      </p>
      <PageTitle sub={part.description}>
        <span class="font-mono">{part.part_no}</span>
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <Live topics={["movements", "parts"]}>
        <dl class="mb-6 grid grid-cols-2 gap-x-6 gap-y-2 rounded border border-slate-200 bg-white p-4 text-base md:grid-cols-4">
          <DetailItem label="Status" testId="part-status">
            <StatusBadge status={part.status} />
          </DetailItem>
          <DetailItem label="Since">
            <Time at={part.updated_at} />
          </DetailItem>
          <DetailItem label="Claim · Rego">
            <ClaimLink claim={part.claim_number} /> · <RegoLink rego={part.registration} />
          </DetailItem>
          <DetailItem label="Repair shop · Qty">{part.repairer_name ?? "—"} · {part.qty_ordered}</DetailItem>
        </dl>
      </Live>

      <Section id="change-status" title="Change status" class="mb-8">
        <StatusChanges data={data} />
      </Section>

      <LiveRegion topics={["movements", "parts"]}>
        <Section id="history" title="History" class="mb-8">
          <Table
            label="Status history"
            head={HISTORY_COLUMNS}
            rows={history}
            empty="No status changes recorded."
          >
            {(h) => (
              <tr key={h.id}>
                <TimeCell at={h.changed_at} />
                <td class={tdClass}>{h.from_status ? <StatusBadge status={h.from_status} /> : "—"}</td>
                <td class={tdClass}>
                  <StatusBadge status={h.to_status} />
                </td>
                <td class={tdClass}>{h.changed_by_name ?? "—"}</td>
                <td class={tdClass}>
                  {h.movement_id
                    ? (
                      <a class={linkClass} href={`/hq/movements/${h.movement_id}`}>
                        Movement #{h.movement_id}
                      </a>
                    )
                    : VIA_LABEL[h.via]}
                </td>
                <td class={tdClass}>{h.reason ?? ""}</td>
              </tr>
            )}
          </Table>
        </Section>
      </LiveRegion>

      <Section id="movements" title="Movements">
        <Table
          label="Movements of this part"
          head={MOVEMENT_COLUMNS}
          rows={movements}
          empty="This part has not been moved yet."
        >
          {(m) => (
            <tr key={m.id}>
              <td class={tdClass}>
                <a class={linkClass} href={`/hq/movements/${m.id}`}>#{m.id} {m.movement_type}</a>
              </td>
              <td class={tdClass}>{m.movement_status}</td>
              <TimeCell at={m.pick_up_at} />
              <TimeCell at={m.dropped_off_at} />
              <td class={tdClass}>
                <PhotoThumb id={m.pickup_photo_id} alt={`Pickup photo of ${part.part_no}`} />
              </td>
              <td class={tdClass}>
                <PhotoThumb id={m.delivery_photo_id} alt={`Delivery photo of ${part.part_no}`} />
              </td>
            </tr>
          )}
        </Table>
      </Section>
    </>
  );
}

function StatusChanges({ data }: { data: Data }) {
  const { part } = data.detail;
  if (data.openTrip !== null) {
    return (
      <p class="rounded border border-amber-300 bg-amber-50 p-3 text-base text-amber-900">
        This part is on the open return trip{" "}
        <a class={linkClass} href={`/hq/movements/${data.openTrip}`}>#{data.openTrip}</a>. Its status changes
        when the driver drops it off at HQ; the dashboard does not move it while it is on the truck.
      </p>
    );
  }
  if (data.transitions.length === 0) {
    return <p class="text-base text-slate-600">No change can be made from {part.status} on the dashboard.</p>;
  }
  return (
    <div class="grid gap-3 md:grid-cols-2">
      {data.transitions.map((t) => (
        <form
          key={t.to}
          method="post"
          action={`/hq/parts/${part.id}/status`}
          class="flex flex-col gap-2 rounded border border-slate-200 bg-white p-3"
        >
          <Csrf token={data.csrfToken} />
          <input type="hidden" name="from" value={part.status} />
          <input type="hidden" name="to" value={t.to} />
          <p class="text-base">
            <StatusBadge status={t.from} /> → <StatusBadge status={t.to} />
          </p>
          <label class="flex flex-col gap-1 text-base">
            <span class="text-slate-700">
              Reason {t.correction ? <strong>(required for a correction)</strong> : "(optional)"}
            </span>
            <textarea
              name="reason"
              rows={2}
              maxLength={500}
              required={t.correction}
              class={inputClass}
              aria-label={`Reason: ${t.label}`}
            >
              {data.reason}
            </textarea>
          </label>
          <div>
            <button type="submit" class={t.correction ? dangerButtonClass : buttonClass}>{t.label}</button>
          </div>
        </form>
      ))}
    </div>
  );
}
