/** The parts search page: filters (rego, claim number, status, repair shop), results, paging, export link. */
import { PART_STATUSES } from "@/db/schema.ts";
import type { PartRow } from "@/db/queries/dashboard.ts";
import {
  buttonClass,
  Empty,
  Field,
  inputClass,
  linkClass,
  PageTitle,
  Pagination,
  secondaryButtonClass,
  StatusBadge,
  Table,
  tdClass,
  thClass,
  Time,
} from "@/components/hq/ui.tsx";

export interface PartsPageData {
  query: Record<string, string>;
  page: number;
  rows: PartRow[];
  more: boolean;
  repairers: { id: number; name: string; active: boolean }[];
}

export function PartsPage({ data }: { data: PartsPageData }) {
  const q = data.query;
  const exportHref = `/hq/exports/parts.csv${Object.keys(q).length ? `?${new URLSearchParams(q)}` : ""}`;
  return (
    <>
      <PageTitle sub="Search claims and parts; open a part to see its history and change its status.">
        Parts
      </PageTitle>
      <form method="get" action="/hq/parts" class="mb-4 flex flex-wrap items-end gap-3" role="search">
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
        <button type="submit" class={buttonClass}>Search</button>
        <a href="/hq/parts" class={secondaryButtonClass}>Clear</a>
        <a href={exportHref} class={`${linkClass} ml-auto text-sm`}>Export these parts (CSV)</a>
      </form>
      {data.rows.length === 0 ? <Empty>No parts match these filters.</Empty> : (
        <Table label="Parts">
          <thead class="bg-slate-50">
            <tr>
              <th class={thClass}>Part No.</th>
              <th class={thClass}>Description</th>
              <th class={thClass}>Qty</th>
              <th class={thClass}>Status</th>
              <th class={thClass}>Since</th>
              <th class={thClass}>Claim</th>
              <th class={thClass}>Rego</th>
              <th class={thClass}>Repair shop</th>
            </tr>
          </thead>
          <tbody class="divide-y divide-slate-100">
            {data.rows.map((p) => (
              <tr key={p.id} class="hover:bg-slate-50">
                <td class={tdClass}>
                  <a class={`${linkClass} font-mono`} href={`/hq/parts/${p.id}`}>{p.part_no}</a>
                </td>
                <td class={tdClass}>{p.description}</td>
                <td class={tdClass}>{p.qty_ordered}</td>
                <td class={tdClass}>
                  <StatusBadge status={p.status} />
                </td>
                <td class={`${tdClass} whitespace-nowrap`}>
                  <Time at={p.updated_at} />
                </td>
                <td class={tdClass}>{p.claim_number}</td>
                <td class={`${tdClass} whitespace-nowrap`}>{p.registration}</td>
                <td class={tdClass}>{p.repairer_name ?? <span class="text-slate-400">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pagination path="/hq/parts" query={q} page={data.page} more={data.more} />
    </>
  );
}
