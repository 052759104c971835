/** One movement: type, status, drivers, times, place, each part with its pickup and delivery photos. */
import type { ComponentChildren } from "preact";
import type { MovementDetail } from "@/db/queries/dashboard_movements.ts";
import {
  Empty,
  linkClass,
  PageTitle,
  PhotoThumb,
  StatusBadge,
  Table,
  tdClass,
  thClass,
  Time,
} from "@/components/hq/ui.tsx";
import { MovementTypeLabel } from "@/routes/hq/movements_page.tsx";

export function MovementPage({ data }: { data: MovementDetail }) {
  const { movement: m, parts, announcements } = data;
  const direct = m.movement_type === "direct";
  return (
    <>
      <p class="mb-2 text-sm">
        <a class={linkClass} href="/hq/movements">← All movements</a>
      </p>
      <PageTitle sub={`${m.registration} · claim ${m.claim_number}`}>
        Movement #{m.id} <MovementTypeLabel type={m.movement_type} />
      </PageTitle>
      <dl class="mb-6 grid grid-cols-2 gap-x-6 gap-y-3 rounded border border-slate-200 bg-white p-4 text-sm md:grid-cols-3">
        <Item label="Status">
          <span data-testid="movement-status">{m.movement_status}</span>
        </Item>
        <Item label={direct ? "Repair shop (delivered to)" : "Repair shop (picked up from)"}>
          {m.repairer_name ?? "—"}
        </Item>
        <Item label="HQ location">{m.hq_name ?? (direct ? "—" : "")}</Item>
        <Item label="Picked up by">{m.picked_up_by_name}</Item>
        <Item label="Picked up at">
          <Time at={m.pick_up_at} />
        </Item>
        <Item label="Dropped off by">{m.dropped_off_by_name ?? "—"}</Item>
        <Item label="Dropped off at">
          <Time at={m.dropped_off_at} />
        </Item>
      </dl>

      <section class="mb-8" aria-labelledby="parts">
        <h2 id="parts" class="mb-2 text-lg font-semibold">Parts ({parts.length})</h2>
        {parts.length === 0
          ? <Empty>No parts on this movement.</Empty>
          : (
            <Table label="Parts of this movement">
              <thead class="bg-slate-50">
                <tr>
                  <th class={thClass}>Part No.</th>
                  <th class={thClass}>Description</th>
                  <th class={thClass}>Qty</th>
                  <th class={thClass}>Status now</th>
                  <th class={thClass}>Pickup photo</th>
                  <th class={thClass}>Delivery photo</th>
                </tr>
              </thead>
              <tbody class="divide-y divide-slate-100">
                {parts.map((p) => (
                  <tr key={p.delivery_id}>
                    <td class={tdClass}>
                      <a class={`${linkClass} font-mono`} href={`/hq/parts/${p.part_id}`}>{p.part_no}</a>
                    </td>
                    <td class={tdClass}>{p.description}</td>
                    <td class={tdClass}>{p.qty_ordered}</td>
                    <td class={tdClass}>
                      <StatusBadge status={p.status} />
                    </td>
                    <td class={tdClass}>
                      <PhotoThumb id={p.pickup_photo_id} alt={`Pickup photo of ${p.part_no}`} />
                    </td>
                    <td class={tdClass}>
                      {p.delivery
                        ? <PhotoThumb id={p.delivery_photo_id} alt={`Delivery photo of ${p.part_no}`} />
                        : <span class="text-xs text-amber-800">not yet delivered</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
      </section>

      <section aria-labelledby="announcements">
        <h2 id="announcements" class="mb-2 text-lg font-semibold">Announcements</h2>
        {announcements.length === 0
          ? <Empty>No announcements for this movement.</Empty>
          : (
            <ul class="flex flex-col gap-1 text-sm">
              {announcements.map((a) => (
                <li key={a.id}>
                  {a.title} · {a.channel === "parts_movement" ? "Parts Movement" : "New Repair Jobs"} ·{" "}
                  <strong>{a.state}</strong>
                  {a.last_error && a.state === "failed" ? ` (${a.last_error})` : ""}
                </li>
              ))}
            </ul>
          )}
        <p class="mt-2 text-sm">
          <a class={linkClass} href="/hq/announcements">All announcements</a>
        </p>
      </section>
    </>
  );
}

function Item({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt class="text-slate-500">{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
