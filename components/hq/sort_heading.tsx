/**
 * A list's sortable column heading: a link that orders the list by that column (ascending first, then
 * flipping), keeping the filters and starting again at the first page; `aria-sort` tells a screen reader which
 * column orders the list now.
 */
import type { SortDir } from "@/db/queries/sorting.ts";

/** A column heading; `sort` names the column it orders by (the list's allow-list, lib/dashboard/lists.ts). */
export interface Heading {
  label: string;
  sort?: string;
}

/** The order a list is in, and what its sort links keep. */
export interface TableSorting {
  path: string;
  /** The list's query as typed (filters, sort; never a page cursor: a new order starts at the first page). */
  query: Record<string, string>;
  column: string;
  dir: SortDir;
}

export function sortHref(s: TableSorting, column: string): string {
  const dir = s.column === column && s.dir === "asc" ? "desc" : "asc";
  return `${s.path}?${new URLSearchParams({ ...s.query, sort: column, dir })}`;
}

export function SortHeading(
  { heading, sorting, class: className }: { heading: Heading; sorting: TableSorting; class: string },
) {
  const column = heading.sort!;
  const current = sorting.column === column;
  const ariaSort = current ? (sorting.dir === "asc" ? "ascending" : "descending") : undefined;
  return (
    <th class={className} aria-sort={ariaSort} data-sort={column}>
      <a
        class="inline-flex min-h-10 items-center gap-1 text-sky-900 underline"
        href={sortHref(sorting, column)}
      >
        {heading.label}
        <span aria-hidden="true">{current ? (sorting.dir === "asc" ? "▲" : "▼") : "↕"}</span>
      </a>
    </th>
  );
}
