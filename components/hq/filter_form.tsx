/** The search form above a dashboard list: its fields, then submit, clear, and an export of what it shows. */
import type { ComponentChildren } from "preact";
import { buttonClass, Field, inputClass, linkClass, secondaryButtonClass } from "@/components/hq/ui.tsx";

export function FilterForm(
  { action, query, submit, exportPath, exportLabel, children }: {
    /** The list's path; "Clear" links to it without filters. */
    action: string;
    /** The filters in force, carried over to the export link. */
    query: Record<string, string>;
    submit: string;
    exportPath: string;
    exportLabel: string;
    children: ComponentChildren;
  },
) {
  const exportHref = `${exportPath}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ""}`;
  return (
    <form method="get" action={action} class="mb-4 flex flex-wrap items-end gap-3" role="search">
      {/* A new search keeps the list's order (the sort links keep the filters the same way). */}
      {query.sort && <input type="hidden" name="sort" value={query.sort} />}
      {query.sort && query.dir && <input type="hidden" name="dir" value={query.dir} />}
      {children}
      <button type="submit" class={buttonClass}>{submit}</button>
      <a href={action} class={secondaryButtonClass}>Clear</a>
      <a href={exportHref} class={`${linkClass} ml-auto`}>{exportLabel}</a>
    </form>
  );
}

/**
 * When movements were picked up (lib/dashboard/date_range.ts): any time, today, yesterday, or the dates
 * given (the depot's days, both included); dates typed with "Any time" selected are a range too.
 */
export function DateRangeFields({ query }: { query: Record<string, string | undefined> }) {
  return (
    <>
      <Field label="Picked up">
        <select class={inputClass} name="range">
          <option value="">Any time</option>
          <option value="today" selected={query.range === "today"}>Today</option>
          <option value="yesterday" selected={query.range === "yesterday"}>Yesterday</option>
          <option value="custom" selected={query.range === "custom"}>From – to</option>
        </select>
      </Field>
      <Field label="From">
        <input class={inputClass} type="date" name="from" value={query.from ?? ""} />
      </Field>
      <Field label="To">
        <input class={inputClass} type="date" name="to" value={query.to ?? ""} />
      </Field>
    </>
  );
}
