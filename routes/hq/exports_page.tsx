/** The exports page: what each CSV holds, and its filters as plain GET forms (no JavaScript). */
import { PART_STATUSES } from "@/db/schema.ts";
import { buttonClass, Field, inputClass, PageTitle } from "@/components/hq/ui.tsx";

export function ExportsPage() {
  return (
    <>
      <PageTitle sub="CSV files (UTF-8, for Excel or any spreadsheet). Times are in UTC, ISO 8601.">
        Exports
      </PageTitle>
      <div class="grid gap-6 md:grid-cols-2">
        <section class="rounded border border-slate-200 bg-white p-4" aria-labelledby="export-parts">
          <h2 id="export-parts" class="mb-1 text-lg font-semibold">Parts</h2>
          <p class="mb-3 text-sm text-slate-600">
            Each part with its claim, rego, repair shop, current status and since when, and when it last
            arrived, was delivered, flagged, picked up and returned.
          </p>
          <form method="get" action="/hq/exports/parts.csv" class="flex flex-wrap items-end gap-3">
            <Field label="Status">
              <select class={inputClass} name="status">
                <option value="">Any status</option>
                {PART_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
              </select>
            </Field>
            <Field label="Rego">
              <input class={inputClass} name="rego" size={10} />
            </Field>
            <button type="submit" class={buttonClass}>Download parts CSV</button>
          </form>
        </section>
        <section class="rounded border border-slate-200 bg-white p-4" aria-labelledby="export-movements">
          <h2 id="export-movements" class="mb-1 text-lg font-semibold">Movements</h2>
          <p class="mb-3 text-sm text-slate-600">
            Each movement with its type, status, claim, place, drivers, times and part numbers.
          </p>
          <form method="get" action="/hq/exports/movements.csv" class="flex flex-wrap items-end gap-3">
            <Field label="Type">
              <select class={inputClass} name="type">
                <option value="">Any type</option>
                <option value="direct">Direct</option>
                <option value="reverse">Return</option>
              </select>
            </Field>
            <Field label="Rego">
              <input class={inputClass} name="rego" size={10} />
            </Field>
            <button type="submit" class={buttonClass}>Download movements CSV</button>
          </form>
        </section>
      </div>
      <p class="mt-4 text-sm text-slate-600">
        The parts and movements pages also offer an export of exactly the rows their filters show.
      </p>
    </>
  );
}
