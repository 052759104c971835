/** Admin: repair shops (add, rename, deactivate) and HQ locations (add, rename). */
import { ActiveToggle, AddForm, RenameForm } from "@/components/hq/admin_forms.tsx";
import {
  buttonClass,
  Field,
  inputClass,
  type Notice,
  NoticeBox,
  PageTitle,
  Section,
  Table,
  tdClass,
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
      <Section id="repairers" title="Repair shops" class="mb-8">
        <AddForm
          action="/hq/admin/places/repairers"
          label="Add a repair shop"
          csrfToken={data.csrfToken}
          margin="mb-3"
        >
          <Field label="Name">
            <input class={inputClass} name="name" required maxLength={200} />
          </Field>
          <Field label="Address">
            <input class={inputClass} name="address" maxLength={500} size={30} />
          </Field>
          <button type="submit" class={buttonClass}>Add repair shop</button>
        </AddForm>
        <Table label="Repair shops" head={["Name and address", "State", ""]} rows={data.repairers}>
          {(r) => (
            <tr key={r.id} data-repairer={r.name} class={r.active ? "" : "bg-slate-50"}>
              <td class={tdClass}>
                <RenameForm
                  action={`/hq/admin/places/repairers/${r.id}`}
                  name={r.name}
                  csrfToken={data.csrfToken}
                >
                  <input
                    class={inputClass}
                    name="address"
                    value={r.address ?? ""}
                    maxLength={500}
                    size={30}
                    aria-label={`Address of ${r.name}`}
                  />
                </RenameForm>
              </td>
              <td class={tdClass}>{r.active ? "Active" : "Deactivated"}</td>
              <td class={tdClass}>
                <ActiveToggle
                  action={`/hq/admin/places/repairers/${r.id}/active`}
                  active={r.active}
                  csrfToken={data.csrfToken}
                />
              </td>
            </tr>
          )}
        </Table>
      </Section>
      <Section id="hq" title="HQ locations">
        <AddForm
          action="/hq/admin/places/hq"
          label="Add an HQ location"
          csrfToken={data.csrfToken}
          margin="mb-3"
        >
          <Field label="Name">
            <input class={inputClass} name="name" required maxLength={200} size={30} />
          </Field>
          <button type="submit" class={buttonClass}>Add HQ location</button>
        </AddForm>
        <Table
          label="HQ locations"
          head={["HQ location", "Rename"]}
          rows={data.hqLocations}
          empty="No HQ locations yet."
        >
          {(h) => (
            <tr key={h.id} data-hq-location={h.name}>
              <td class={tdClass}>{h.name}</td>
              <td class={tdClass}>
                <RenameForm action={`/hq/admin/places/hq/${h.id}`} name={h.name} csrfToken={data.csrfToken} />
              </td>
            </tr>
          )}
        </Table>
      </Section>
    </>
  );
}
