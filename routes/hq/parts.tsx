/**
 * `/hq/parts`: the parts search: filters (part number or description, rego, claim number, status, repair
 * shop), results, paging, export, and labels for the parts ticked.
 */
import { Live } from "@/components/hq/live.tsx";
import { Hono } from "hono";
import { PART_STATUSES } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { partPageOf, partQueryOf } from "@/lib/dashboard/lists.ts";
import { partsPage, type PartsPageData } from "@/lib/dashboard/parts.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { FilterForm } from "@/components/hq/filter_form.tsx";
import { LABEL_SIZE_NAMES, LABEL_SIZES } from "@/components/hq/labels.tsx";
import { ClaimLink, PartCells, RegoLink } from "@/components/hq/part_cells.tsx";
import type { Heading } from "@/components/hq/sort_heading.tsx";
import type { PartSortColumn } from "@/db/queries/parts.ts";
import { listPage, type ListPageExtras } from "@/routes/hq/list_page.tsx";
import { MAX_SELECTED_LABELS } from "@/routes/hq/labels.tsx";
import {
  Field,
  inputClass,
  PageTitle,
  Pagination,
  PhotoThumb,
  secondaryButtonClass,
  Table,
  tdClass,
  TimeCell,
} from "@/components/hq/ui.tsx";

export function partsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get(
    "/",
    listPage({
      path: "/hq/parts",
      title: "Parts",
      section: "parts",
      queryOf: (raw) => partQueryOf(raw, { now: deps.clock.now(), zone: deps.config.depotTimeZone }),
      pageOf: partPageOf,
      load: (filters, paging, sort) => partsPage(deps.db, filters, paging, sort),
      render: (data) => <Page data={data} />,
    }),
  );

  return app;
}

type Data = PartsPageData & ListPageExtras<PartSortColumn>;

const COLUMNS: Heading[] = [
  { label: "Label" },
  { label: "Photo" },
  { label: "Part No.", sort: "part_no" },
  { label: "Description", sort: "description" },
  { label: "Qty", sort: "qty" },
  { label: "Status", sort: "status" },
  { label: "Since", sort: "since" },
  { label: "Claim", sort: "claim" },
  { label: "Rego", sort: "rego" },
  { label: "Repair shop", sort: "repairer" },
];

const LABELS_FORM = "labels-form";

/**
 * The overview's filters (docs/overview.md), which the form has no field for: said in words and kept by a
 * new search (Clear drops them).
 */
function OverviewFilters({ query }: { query: Record<string, string> }) {
  const said = [
    query.returned && `returned to HQ on ${query.returned}`,
    query.min_age_h && `in this status for at least ${query.min_age_h} hours`,
    query.max_age_h && `in this status for less than ${query.max_age_h} hours`,
  ].filter(Boolean);
  if (said.length === 0) return null;
  return (
    <p class="basis-full text-slate-700" data-testid="overview-filters">
      {["returned", "min_age_h", "max_age_h"].map((name) =>
        query[name] && <input key={name} type="hidden" name={name} value={query[name]} />
      )}
      Only parts {said.join(", ")}.
    </p>
  );
}

/** Prints labels of the parts ticked in the list (routes/hq/labels.tsx, docs/labels.md). */
function LabelsForm() {
  return (
    <form id={LABELS_FORM} method="get" action="/hq/labels" class="mt-4 flex flex-wrap items-end gap-3">
      <Field label="Label size">
        <select class={inputClass} name="size">
          {LABEL_SIZES.map((size) => <option key={size} value={size}>{LABEL_SIZE_NAMES[size]}</option>)}
        </select>
      </Field>
      <button type="submit" class={secondaryButtonClass}>Print labels</button>
      <span class="text-slate-600">Tick the parts in the list first (up to {MAX_SELECTED_LABELS}).</span>
    </form>
  );
}

function Page({ data }: { data: Data }) {
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
        <Field label="Part No. or description">
          <input class={inputClass} name="part" value={q.part ?? ""} size={16} />
        </Field>
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
            <option value="none" selected={q.repairer === "none"}>No repair shop</option>
            {data.repairers.map((r) => (
              <option key={r.id} value={String(r.id)} selected={q.repairer === String(r.id)}>
                {r.name}
                {r.active ? "" : " (inactive)"}
              </option>
            ))}
          </select>
        </Field>
        <OverviewFilters query={q} />
      </FilterForm>
      <Live topics={["movements", "parts"]}>
        <Table
          label="Parts"
          head={COLUMNS}
          rows={data.rows}
          empty="No parts match these filters."
          sorting={{ path: "/hq/parts", query: q, ...data.sort }}
        >
          {(p) => (
            <tr key={p.id} class="hover:bg-slate-50" data-part={p.id}>
              <td class={tdClass}>
                {/* Belongs to the labels form below the list (a live refresh keeps its tick: HqLive). */}
                <input
                  type="checkbox"
                  name="part"
                  value={String(p.id)}
                  form={LABELS_FORM}
                  aria-label={`Label for part ${p.part_no}`}
                />
              </td>
              <td class={tdClass}>
                <PhotoThumb id={p.photo_id} alt={`Latest photo of part ${p.part_no}`} size="small" />
              </td>
              <PartCells part={p} />
              <TimeCell at={p.updated_at} />
              <td class={tdClass}>
                <ClaimLink claim={p.claim_number} />
              </td>
              <td class={tdClass}>
                <RegoLink rego={p.registration} />
              </td>
              <td class={tdClass}>{p.repairer_name ?? <span class="text-slate-400">—</span>}</td>
            </tr>
          )}
        </Table>
        <Pagination {...data.links} />
      </Live>
      {data.rows.length > 0 && <LabelsForm />}
    </>
  );
}
