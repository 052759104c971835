/** `/hq/movements/:id`: one movement: type, status, drivers, times, place, each part with its photos. */
import { Live } from "@/components/hq/live.tsx";
import { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { movementPage, type MovementPageData } from "@/lib/dashboard/movements.ts";
import { parseId } from "@/lib/validation.ts";
import { CHANNEL_LABEL } from "@/components/hq/announcement_words.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, notFoundPage } from "@/components/hq/page.tsx";
import { ClaimLink, DriverLink, RegoLink } from "@/components/hq/part_cells.tsx";
import { MovementTypeLabel } from "@/components/hq/movement_type.tsx";
import { MovementHandovers } from "@/components/hq/handover.tsx";
import { PartCells } from "@/components/hq/part_cells.tsx";
import {
  DetailItem,
  Empty,
  linkClass,
  PageTitle,
  PhotoThumb,
  Section,
  Table,
  tdClass,
  Time,
} from "@/components/hq/ui.tsx";

export function movementRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    const data = id ? await movementPage(deps.db, id) : null;
    if (!data) return notFoundPage(c, "movement");
    return hqPage(c, { title: `Movement #${data.movement.id}`, section: "movements" }, <Page data={data} />);
  });

  return app;
}

const PART_COLUMNS = ["Part No.", "Description", "Qty", "Status now", "Pickup photo", "Delivery photo"];

function Page({ data }: { data: MovementPageData }) {
  const { movement: m, parts, announcements } = data;
  const direct = m.movement_type === "direct";
  return (
    <>
      <p class="mb-2 text-base">
        <a class={linkClass} href="/hq/movements">← All movements</a>
      </p>
      <PageTitle
        sub={
          <>
            <RegoLink rego={m.registration} /> · claim <ClaimLink claim={m.claim_number} />
          </>
        }
      >
        Movement #{m.id} <MovementTypeLabel type={m.movement_type} />
      </PageTitle>
      <Live topics={["movements", "announcements"]}>
        <dl class="mb-6 grid grid-cols-2 gap-x-6 gap-y-3 rounded border border-slate-200 bg-white p-4 text-base md:grid-cols-3">
          <DetailItem label="Status">
            <span data-testid="movement-status">{m.movement_status}</span>
          </DetailItem>
          <DetailItem label={direct ? "Repair shop (delivered to)" : "Repair shop (picked up from)"}>
            {m.repairer_name ?? "—"}
          </DetailItem>
          <DetailItem label="HQ location">{m.hq_name ?? (direct ? "—" : "")}</DetailItem>
          <DetailItem label="Picked up by">
            <DriverLink id={m.picked_up_by} name={m.picked_up_by_name} />
          </DetailItem>
          <DetailItem label="Picked up at">
            <Time at={m.pick_up_at} />
          </DetailItem>
          <DetailItem label="Dropped off by">{m.dropped_off_by_name ?? "—"}</DetailItem>
          <DetailItem label="Dropped off at">
            <Time at={m.dropped_off_at} />
          </DetailItem>
        </dl>

        <Section id="parts" title={`Parts (${parts.length})`} class="mb-8">
          <Table
            label="Parts of this movement"
            head={PART_COLUMNS}
            rows={parts}
            empty="No parts on this movement."
          >
            {(p) => (
              <tr key={p.delivery_id}>
                <PartCells part={{ ...p, id: p.part_id }} />
                <td class={tdClass}>
                  <PhotoThumb id={p.pickup_photo_id} alt={`Pickup photo of ${p.part_no}`} />
                </td>
                <td class={tdClass}>
                  {p.delivery
                    ? <PhotoThumb id={p.delivery_photo_id} alt={`Delivery photo of ${p.part_no}`} />
                    : <span class="text-sm text-amber-800">not yet delivered</span>}
                </td>
              </tr>
            )}
          </Table>
        </Section>

        <Section id="handover" title="Handover" class="mb-8">
          <MovementHandovers legs={data.handovers} />
        </Section>

        <Section id="announcements" title="Announcements">
          {announcements.length === 0
            ? <Empty>No announcements for this movement.</Empty>
            : (
              <ul class="flex flex-col gap-1 text-base">
                {announcements.map((a) => (
                  <li key={a.id}>
                    {a.title} · {CHANNEL_LABEL[a.channel]} · <strong>{a.state}</strong>
                    {a.last_error && a.state === "failed" ? ` (${a.last_error})` : ""}
                  </li>
                ))}
              </ul>
            )}
          <p class="mt-2 text-base">
            <a class={linkClass} href="/hq/announcements">All announcements</a>
          </p>
        </Section>
      </Live>
    </>
  );
}
