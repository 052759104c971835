/**
 * `/hq/movements`: every recorded movement, newest first: filters (type, status, rego, driver, the depot's
 * days it was picked up), paging, export link.
 */
import { Live, liveRow } from "@/components/hq/live.tsx";
import { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { movementPageOf, movementQueryOf } from "@/lib/dashboard/lists.ts";
import { type MovementRow, movementsPage, type MovementsPageData } from "@/lib/dashboard/movements.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { DateRangeFields, FilterForm } from "@/components/hq/filter_form.tsx";
import { MovementTypeLabel } from "@/components/hq/movement_type.tsx";
import { ClaimLink, DriverLink, RegoLink } from "@/components/hq/part_cells.tsx";
import type { Heading } from "@/components/hq/sort_heading.tsx";
import type { MovementSortColumn } from "@/db/queries/movement_reads.ts";
import { listPage, type ListPageExtras } from "@/routes/hq/list_page.tsx";
import {
  Field,
  inputClass,
  linkClass,
  PageTitle,
  Pagination,
  PhotoThumb,
  Table,
  tdClass,
  TimeCell,
} from "@/components/hq/ui.tsx";

export function movementsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get(
    "/",
    listPage({
      path: "/hq/movements",
      title: "Movements",
      section: "movements",
      queryOf: (raw) => movementQueryOf(raw, deps.clock.now(), deps.config.depotTimeZone),
      pageOf: movementPageOf,
      load: (filters, paging, sort) => movementsPage(deps.db, filters, paging, sort),
      render: (data) => <Page data={data} since={deps.clock.now()} />,
    }),
  );

  return app;
}

type Data = MovementsPageData & ListPageExtras<MovementSortColumn>;

/** "To Southside Collision Centre" for a direct movement, "From Southside … to HQ Main Depot" for a return. */
function placeOf(m: Pick<MovementRow, "movement_type" | "repairer_name" | "hq_name">): string {
  return m.movement_type === "direct"
    ? `To ${m.repairer_name ?? "—"}`
    : `From ${m.repairer_name ?? "—"} to ${m.hq_name ?? "HQ"}`;
}

/** How a screen reader hears a movement that arrives live: "movement #12: Direct, ABC123". */
export function movementSay(m: Pick<MovementRow, "id" | "movement_type" | "registration">): string {
  return `movement #${m.id}: ${m.movement_type === "direct" ? "Direct" : "Return"}, ${m.registration}`;
}

const COLUMNS: Heading[] = [
  { label: "#", sort: "id" },
  { label: "Photo" },
  { label: "Type", sort: "type" },
  { label: "Status", sort: "status" },
  { label: "Rego · Claim", sort: "rego" },
  { label: "Repair shop or HQ", sort: "place" },
  { label: "Driver", sort: "driver" },
  { label: "Picked up", sort: "picked_up" },
  { label: "Dropped off", sort: "dropped_off" },
  { label: "Parts", sort: "parts" },
];

function Page({ data, since }: { data: Data; since: Date }) {
  const q = data.query;
  return (
    <>
      <PageTitle sub="Every recorded movement, newest first unless sorted. Open one to see each part with its photos.">
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
        <DateRangeFields query={q} />
      </FilterForm>
      <Live topics={["movements"]} since={since}>
        <Table
          label="Movements"
          head={COLUMNS}
          rows={data.rows}
          empty="No movements match these filters."
          sorting={{ path: "/hq/movements", query: q, ...data.sort }}
        >
          {(m) => (
            <tr
              key={m.id}
              class="hover:bg-slate-50"
              data-movement={m.id}
              {...liveRow(`movement:${m.id}`, m.pick_up_at, movementSay(m))}
            >
              <td class={tdClass}>
                <a class={linkClass} href={`/hq/movements/${m.id}`}>#{m.id}</a>
              </td>
              <td class={tdClass}>
                <PhotoThumb id={m.photo_id} alt={`Photo of movement ${m.id}`} size="small" />
              </td>
              <td class={tdClass}>
                <MovementTypeLabel type={m.movement_type} />
              </td>
              <td class={tdClass}>{m.movement_status}</td>
              <td class={`${tdClass} whitespace-nowrap`}>
                <RegoLink rego={m.registration} /> · <ClaimLink claim={m.claim_number} />
              </td>
              <td class={tdClass}>{placeOf(m)}</td>
              <td class={tdClass}>
                <DriverLink id={m.picked_up_by} name={m.picked_up_by_name} />
              </td>
              <TimeCell at={m.pick_up_at} />
              <TimeCell at={m.dropped_off_at} />
              <td class={tdClass}>{m.part_count}</td>
            </tr>
          )}
        </Table>
        <Pagination {...data.links} />
      </Live>
    </>
  );
}
