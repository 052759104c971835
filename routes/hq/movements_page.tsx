/** The movements list (filters, paging, export link) and the open return trips page. */
import type { MovementRow } from "@/db/queries/movement_reads.ts";
import { FilterForm } from "@/components/hq/filter_form.tsx";
import {
  Field,
  formatAge,
  inputClass,
  linkClass,
  PageTitle,
  Pagination,
  Table,
  tdClass,
  TimeCell,
} from "@/components/hq/ui.tsx";

export interface MovementsPageData {
  query: Record<string, string>;
  page: number;
  rows: MovementRow[];
  more: boolean;
  drivers: { id: number; name: string }[];
}

/** "To Southside Collision Centre" for a direct movement, "From Southside … to HQ Main Depot" for a return. */
function placeOf(m: Pick<MovementRow, "movement_type" | "repairer_name" | "hq_name">): string {
  return m.movement_type === "direct"
    ? `To ${m.repairer_name ?? "—"}`
    : `From ${m.repairer_name ?? "—"} to ${m.hq_name ?? "HQ"}`;
}

export function MovementTypeLabel({ type }: { type: string }) {
  return type === "direct"
    ? <span class="rounded bg-indigo-100 px-2 py-0.5 text-xs font-medium text-indigo-900">Direct</span>
    : <span class="rounded bg-orange-100 px-2 py-0.5 text-xs font-medium text-orange-900">Return</span>;
}

const COLUMNS = [
  "#",
  "Type",
  "Status",
  "Rego · Claim",
  "Repair shop or HQ",
  "Driver",
  "Picked up",
  "Dropped off",
  "Parts",
];

export function MovementsPage({ data }: { data: MovementsPageData }) {
  const q = data.query;
  return (
    <>
      <PageTitle sub="Every recorded movement, newest first. Open one to see each part with its photos.">
        Movements
      </PageTitle>
      <FilterForm
        action="/hq/movements"
        query={q}
        submit="Filter"
        exportPath="/hq/exports/movements.csv"
        exportLabel="Export these movements (CSV)"
      >
        <Field label="Type">
          <select class={inputClass} name="type">
            <option value="">Any type</option>
            <option value="direct" selected={q.type === "direct"}>Direct (HQ → repair shop)</option>
            <option value="reverse" selected={q.type === "reverse"}>Return (repair shop → HQ)</option>
          </select>
        </Field>
        <Field label="Status">
          <select class={inputClass} name="status">
            <option value="">Any status</option>
            <option value="Parts Picked Up" selected={q.status === "Parts Picked Up"}>Parts Picked Up</option>
            <option value="Parts Dropped off" selected={q.status === "Parts Dropped off"}>
              Parts Dropped off
            </option>
          </select>
        </Field>
        <Field label="Rego">
          <input class={inputClass} name="rego" value={q.rego ?? ""} size={10} />
        </Field>
        <Field label="Driver">
          <select class={inputClass} name="driver">
            <option value="">Anyone</option>
            {data.drivers.map((d) => (
              <option key={d.id} value={String(d.id)} selected={q.driver === String(d.id)}>{d.name}</option>
            ))}
          </select>
        </Field>
      </FilterForm>
      <Table label="Movements" head={COLUMNS} rows={data.rows} empty="No movements match these filters.">
        {(m) => (
          <tr key={m.id} class="hover:bg-slate-50">
            <td class={tdClass}>
              <a class={linkClass} href={`/hq/movements/${m.id}`}>#{m.id}</a>
            </td>
            <td class={tdClass}>
              <MovementTypeLabel type={m.movement_type} />
            </td>
            <td class={tdClass}>{m.movement_status}</td>
            <td class={`${tdClass} whitespace-nowrap`}>{m.registration} · {m.claim_number}</td>
            <td class={tdClass}>{placeOf(m)}</td>
            <td class={tdClass}>{m.picked_up_by_name}</td>
            <TimeCell at={m.pick_up_at} />
            <TimeCell at={m.dropped_off_at} />
            <td class={tdClass}>{m.part_count}</td>
          </tr>
        )}
      </Table>
      <Pagination path="/hq/movements" query={q} page={data.page} more={data.more} />
    </>
  );
}

export interface OpenTripsData {
  now: string;
  trips: (MovementRow & { parts_on_truck: number })[];
}

const TRIP_COLUMNS = ["Age", "#", "Rego · Claim", "Driver", "Picked up", "From", "To", "Parts on the truck"];

export function OpenTripsPage({ data }: { data: OpenTripsData }) {
  const now = new Date(data.now).getTime();
  return (
    <>
      <PageTitle sub="Parts picked up from a repair shop and not yet dropped off at HQ, oldest first.">
        Open return trips
      </PageTitle>
      <Table
        label="Open return trips"
        head={TRIP_COLUMNS}
        rows={data.trips}
        empty="No open return trips: every picked-up part is back at HQ."
      >
        {(t) => {
          const ageMs = now - new Date(t.pick_up_at).getTime();
          const old = ageMs >= 24 * 3_600_000;
          return (
            <tr key={t.id} class={old ? "bg-amber-50" : ""} data-trip={t.id}>
              <td class={`${tdClass} whitespace-nowrap font-medium ${old ? "text-amber-900" : ""}`}>
                {formatAge(ageMs)}
              </td>
              <td class={tdClass}>
                <a class={linkClass} href={`/hq/movements/${t.id}`}>#{t.id}</a>
              </td>
              <td class={`${tdClass} whitespace-nowrap`}>{t.registration} · {t.claim_number}</td>
              <td class={tdClass}>{t.picked_up_by_name}</td>
              <TimeCell at={t.pick_up_at} />
              <td class={tdClass}>{t.repairer_name ?? "—"}</td>
              <td class={tdClass}>{t.hq_name ?? "—"}</td>
              <td class={tdClass}>{t.parts_on_truck} of {t.part_count}</td>
            </tr>
          );
        }}
      </Table>
    </>
  );
}
