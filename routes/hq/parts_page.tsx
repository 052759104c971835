/** The parts search page: filters (rego, claim number, status, repair shop), results, paging, export link. */
import { PART_STATUSES } from "@/db/schema.ts";
import type { PartRow } from "@/db/queries/parts.ts";
import { FilterForm } from "@/components/hq/filter_form.tsx";
import { PartCells } from "@/components/hq/part_cells.tsx";
import { Field, inputClass, PageTitle, Pagination, Table, tdClass, TimeCell } from "@/components/hq/ui.tsx";

export interface PartsPageData {
  query: Record<string, string>;
  page: number;
  rows: PartRow[];
  more: boolean;
  repairers: { id: number; name: string; active: boolean }[];
}

const COLUMNS = ["Part No.", "Description", "Qty", "Status", "Since", "Claim", "Rego", "Repair shop"];

export function PartsPage({ data }: { data: PartsPageData }) {
  const q = data.query;
  return (
    <>
      <PageTitle sub="Search claims and parts; open a part to see its history and change its status.">
        Parts
      </PageTitle>
      <FilterForm
        action="/hq/parts"
        query={q}
        submit="Search"
        exportPath="/hq/exports/parts.csv"
        exportLabel="Export these parts (CSV)"
      >
        <Field label="Rego">
          <input class={inputClass} name="rego" value={q.rego ?? ""} size={10} />
        </Field>
        <Field label="Claim number">
          <input class={inputClass} name="claim" value={q.claim ?? ""} size={12} />
        </Field>
        <Field label="Status">
          <select class={inputClass} name="status">
            <option value="">Any status</option>
            {PART_STATUSES.map((s) => <option key={s} value={s} selected={q.status === s}>{s}</option>)}
          </select>
        </Field>
        <Field label="Repair shop">
          <select class={inputClass} name="repairer">
            <option value="">Any repair shop</option>
            {data.repairers.map((r) => (
              <option key={r.id} value={String(r.id)} selected={q.repairer === String(r.id)}>
                {r.name}
                {r.active ? "" : " (inactive)"}
              </option>
            ))}
          </select>
        </Field>
      </FilterForm>
      <Table label="Parts" head={COLUMNS} rows={data.rows} empty="No parts match these filters.">
        {(p) => (
          <tr key={p.id} class="hover:bg-slate-50">
            <PartCells part={p} />
            <TimeCell at={p.updated_at} />
            <td class={tdClass}>{p.claim_number}</td>
            <td class={`${tdClass} whitespace-nowrap`}>{p.registration}</td>
            <td class={tdClass}>{p.repairer_name ?? <span class="text-slate-400">—</span>}</td>
          </tr>
        )}
      </Table>
      <Pagination path="/hq/parts" query={q} page={data.page} more={data.more} />
    </>
  );
}
