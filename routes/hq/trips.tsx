/** `/hq/trips`: the open return trips (picked up at a repair shop, not yet dropped off at HQ), oldest first. */
import { Live, liveRow } from "@/components/hq/live.tsx";
import { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { type OpenTrip, openTripsPage } from "@/lib/dashboard/movements.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, refusedQueryPage } from "@/components/hq/page.tsx";
import { tripQueryOf } from "@/lib/dashboard/lists.ts";
import type { Heading } from "@/components/hq/sort_heading.tsx";
import type { TripSortColumn } from "@/db/queries/movement_reads.ts";
import type { ListSort } from "@/db/queries/sorting.ts";
import { ClaimLink, DriverLink, RegoLink } from "@/components/hq/part_cells.tsx";
import { formatAge, linkClass, PageTitle, Table, tdClass, TimeCell } from "@/components/hq/ui.tsx";

export function tripsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    let list;
    try {
      list = tripQueryOf(c.req.query());
    } catch (error) {
      return refusedQueryPage(c, error, "/hq/trips");
    }
    const trips = await openTripsPage(deps.db, list.sort);
    return hqPage(
      c,
      { title: "Open return trips", section: "trips" },
      <Page data={{ now: deps.clock.now().toISOString(), trips, ...list }} />,
    );
  });

  return app;
}

interface Data {
  /** The clock's time, which the trips' ages count to. */
  now: string;
  trips: OpenTrip[];
  /** The order as typed, for the sort links. */
  query: Record<string, string>;
  sort: ListSort<TripSortColumn>;
}

/** "Picked up" orders by age too (one sortable heading per column, for aria-sort). */
const TRIP_COLUMNS: Heading[] = [
  { label: "Age" },
  { label: "#", sort: "id" },
  { label: "Rego · Claim", sort: "rego" },
  { label: "Driver", sort: "driver" },
  { label: "Picked up", sort: "picked_up" },
  { label: "From", sort: "place" },
  { label: "To", sort: "hq" },
  { label: "Parts on the truck", sort: "parts" },
];

function Page({ data }: { data: Data }) {
  const now = new Date(data.now).getTime();
  return (
    <>
      <PageTitle sub="Parts picked up from a repair shop and not yet dropped off at HQ, oldest first unless sorted.">
        Open return trips
      </PageTitle>
      <Live topics={["movements"]} since={new Date(data.now)}>
        <Table
          label="Open return trips"
          head={TRIP_COLUMNS}
          rows={data.trips}
          empty="No open return trips: every picked-up part is back at HQ."
          sorting={{ path: "/hq/trips", query: data.query, ...data.sort }}
        >
          {(t) => {
            const ageMs = now - new Date(t.pick_up_at).getTime();
            const old = ageMs >= 24 * 3_600_000;
            return (
              <tr
                key={t.id}
                class={old ? "bg-amber-50" : ""}
                data-trip={t.id}
                {...liveRow(`movement:${t.id}`, t.pick_up_at, `return trip #${t.id}: ${t.registration}`)}
              >
                <td class={`${tdClass} whitespace-nowrap font-medium ${old ? "text-amber-900" : ""}`}>
                  {formatAge(ageMs)}
                </td>
                <td class={tdClass}>
                  <a class={linkClass} href={`/hq/movements/${t.id}`}>#{t.id}</a>
                </td>
                <td class={`${tdClass} whitespace-nowrap`}>
                  <RegoLink rego={t.registration} /> · <ClaimLink claim={t.claim_number} />
                </td>
                <td class={tdClass}>
                  <DriverLink id={t.picked_up_by} name={t.picked_up_by_name} />
                </td>
                <TimeCell at={t.pick_up_at} />
                <td class={tdClass}>{t.repairer_name ?? "—"}</td>
                <td class={tdClass}>{t.hq_name ?? "—"}</td>
                <td class={tdClass}>{t.parts_on_truck} of {t.part_count}</td>
              </tr>
            );
          }}
        </Table>
      </Live>
    </>
  );
}
