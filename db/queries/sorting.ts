/**
 * The column orders of the dashboard's lists. A list names the columns it may sort by (an allow-list the
 * query string is checked against, lib/dashboard/lists.ts) and the SQL each sorts on; every order then
 * ends on the row's id in the same direction, so rows with equal values keep one order and keyset paging
 * (paging.ts) neither repeats nor skips a row between pages. A column may hold nulls (a part with no repair
 * shop): PostgreSQL puts them last ascending and first descending, the same on both databases, and the
 * keyset follows that order.
 */
import { type RawBuilder, sql } from "kysely";

export type SortDir = "asc" | "desc";
export const SORT_DIRS = ["asc", "desc"] as const;

export interface ListSort<C extends string> {
  column: C;
  dir: SortDir;
}

/**
 * What a sort value is in SQL, for the keyset cursor: it carries the value as text (paging.ts) and casts
 * it back to this type, so a timestamp keeps its microseconds.
 */
export type SortKind = "text" | "int" | "time";

/**
 * A sort on a value of a small table the listed row points at (a movement's driver's name): no index on
 * the list's table holds it, so a page is found by walking that table (`entities`: its rows as `key`, the
 * id the list's row holds, and `value`, what the column shows) and, for each entity, its first rows past
 * the cursor through an index on (`ref`, id) (paging.ts `walkedCandidates`). Never null.
 */
export interface SortWalk {
  entities: RawBuilder<unknown>;
  ref: RawBuilder<unknown>;
}

/** One sortable column: the expression it orders by, its kind, and whether it can be null. */
export interface SortColumn {
  expr: RawBuilder<unknown>;
  kind: SortKind;
  nullable?: boolean;
  walk?: SortWalk;
}

/** A list's sortable columns: each name and what it orders by. */
export type SortColumns<C extends string> = Record<C, SortColumn>;

/** A column reference for a SortColumns table ("p.part_no"). */
export const col = (ref: string, kind: SortKind, nullable = false): SortColumn => ({
  expr: sql.ref(ref),
  kind,
  nullable,
});

/** A computed sort expression (a coalesce, a count). */
export const expr = (sqlExpr: RawBuilder<unknown>, kind: SortKind, nullable = false): SortColumn => ({
  expr: sqlExpr,
  kind,
  nullable,
});

/**
 * The name of a small table's row, sorted by walking that table (`SortWalk`): `ref` is the list row's
 * reference to it, `value` the same name as the list's query joins it.
 */
export const walked = (value: string, table: string, ref: string): SortColumn => ({
  expr: sql.ref(value),
  kind: "text",
  walk: {
    entities: sql`select id as key, name as value from ${sql.table(table)}`,
    ref: sql.ref(ref),
  },
});
