/** `/hq/trips`: the open return trips (picked up at a repair shop, not yet dropped off at HQ), oldest first. */
import { Live } from "@/components/hq/live.tsx";
import { Hono } from "hono";
import type { AppDeps } from "@/lib/deps.ts";
import { type OpenTrip, openTripsPage } from "@/lib/dashboard/movements.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage } from "@/components/hq/page.tsx";
import { formatAge, linkClass, PageTitle, Table, tdClass, TimeCell } from "@/components/hq/ui.tsx";

export function tripsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    const trips = await openTripsPage(deps.db);
    return hqPage(
      c,
      { title: "Open return trips", section: "trips" },
      <Page data={{ now: deps.clock.now().toISOString(), trips }} />,
    );
  });

  return app;
}

interface Data {
  /** The clock's time, which the trips' ages count to. */
  now: string;
  trips: OpenTrip[];
}

const TRIP_COLUMNS = ["Age", "#", "Rego · Claim", "Driver", "Picked up", "From", "To", "Parts on the truck"];

function Page({ data }: { data: Data }) {
  const now = new Date(data.now).getTime();
  return (
    <>
      <PageTitle sub="Parts picked up from a repair shop and not yet dropped off at HQ, oldest first.">
        Open return trips
      </PageTitle>
      <Live topics={["movements"]}>
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
      </Live>
    </>
  );
}
