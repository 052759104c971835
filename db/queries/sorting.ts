/**
 * The column orders of the dashboard's lists. A list names the columns it may sort by (an allow-list the
 * query string is checked against, lib/dashboard/lists.ts) and the SQL each sorts on; every order then
 * ends on the row's id in the same direction, so rows with equal values keep one order and offset paging
 * (paging.ts) neither repeats nor skips a row between pages. A column may hold nulls (a part with no repair
 * shop): PostgreSQL puts them last ascending and first descending, the same on both databases.
 */
import { type RawBuilder, sql } from "kysely";

export type SortDir = "asc" | "desc";
export const SORT_DIRS = ["asc", "desc"] as const;

export interface ListSort<C extends string> {
  column: C;
  dir: SortDir;
}

/** A list's sortable columns: each name and the expression it orders by. */
export type SortColumns<C extends string> = Record<C, RawBuilder<unknown>>;

/** A column reference for a SortColumns table ("p.part_no"). */
export const col = (ref: string): RawBuilder<unknown> => sql.ref(ref);
