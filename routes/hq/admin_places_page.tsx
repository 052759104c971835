/** Admin: repair shops (add, rename, deactivate) and HQ locations (add). */
import {
  buttonClass,
  Csrf,
  dangerButtonClass,
  Field,
  inputClass,
  type Notice,
  NoticeBox,
  PageTitle,
  secondaryButtonClass,
  Table,
  tdClass,
  thClass,
} from "@/components/hq/ui.tsx";

export interface PlacesPageData {
  repairers: { id: number; name: string; address: string | null; active: boolean }[];
  hqLocations: { id: number; name: string }[];
  csrfToken: string;
  notice: Notice | null;
}

export function PlacesPage({ data }: { data: PlacesPageData }) {
  return (
    <>
      <PageTitle sub="A repair shop is never deleted (old claims and movements name it); deactivate it instead.">
        Repair shops and HQ locations
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <section class="mb-8" aria-labelledby="repairers">
        <h2 id="repairers" class="mb-2 text-lg font-semibold">Repair shops</h2>
        <form
          method="post"
          action="/hq/admin/places/repairers"
          class="mb-3 flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-4"
          aria-label="Add a repair shop"
        >
          <Csrf token={data.csrfToken} />
          <Field label="Name">
            <input class={inputClass} name="name" required maxLength={200} />
          </Field>
          <Field label="Address">
            <input class={inputClass} name="address" maxLength={500} size={30} />
          </Field>
          <button type="submit" class={buttonClass}>Add repair shop</button>
        </form>
        <Table label="Repair shops">
          <thead class="bg-slate-50">
            <tr>
              <th class={thClass}>Name and address</th>
              <th class={thClass}>State</th>
              <th class={thClass}></th>
            </tr>
          </thead>
          <tbody class="divide-y divide-slate-100">
            {data.repairers.map((r) => (
              <tr key={r.id} data-repairer={r.name} class={r.active ? "" : "bg-slate-50"}>
                <td class={tdClass}>
                  <form
                    method="post"
                    action={`/hq/admin/places/repairers/${r.id}`}
                    class="flex flex-wrap items-center gap-2"
                  >
                    <Csrf token={data.csrfToken} />
                    <input
                      class={inputClass}
                      name="name"
                      value={r.name}
                      required
                      maxLength={200}
                      aria-label={`Name of ${r.name}`}
                    />
                    <input
                      class={inputClass}
                      name="address"
                      value={r.address ?? ""}
                      maxLength={500}
                      size={30}
                      aria-label={`Address of ${r.name}`}
                    />
                    <button type="submit" class={secondaryButtonClass}>Save</button>
                  </form>
                </td>
                <td class={tdClass}>{r.active ? "Active" : "Deactivated"}</td>
                <td class={tdClass}>
                  <form method="post" action={`/hq/admin/places/repairers/${r.id}/active`}>
                    <Csrf token={data.csrfToken} />
                    <input type="hidden" name="active" value={r.active ? "false" : "true"} />
                    <button type="submit" class={r.active ? dangerButtonClass : secondaryButtonClass}>
                      {r.active ? "Deactivate" : "Reactivate"}
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      </section>
      <section aria-labelledby="hq">
        <h2 id="hq" class="mb-2 text-lg font-semibold">HQ locations</h2>
        <ul class="mb-3 list-inside list-disc text-sm">
          {data.hqLocations.map((h) => <li key={h.id}>{h.name}</li>)}
        </ul>
        <form
          method="post"
          action="/hq/admin/places/hq"
          class="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-4"
          aria-label="Add an HQ location"
        >
          <Csrf token={data.csrfToken} />
          <Field label="Name">
            <input class={inputClass} name="name" required maxLength={200} size={30} />
          </Field>
          <button type="submit" class={buttonClass}>Add HQ location</button>
        </form>
      </section>
    </>
  );
}
