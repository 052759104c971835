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
 * A sort on a value of a small table the listed row points at (a movement's driver's name, a part's repair
 * shop): no index on the list's table holds it, so a page is found by walking that table (`entities`: its
 * rows as `key`, the id the list's row holds, and `value`, what the column shows, unique or tied by key)
 * and, for each entity, its first rows past the cursor through an index on (`ref`, tie, id) of each of
 * `paths` (paging.ts `walkedCandidates`). A nullable column names how its rows without a value are found
 * (`nulls`: one condition, read in (tie, id) order, so an index should hold exactly those rows); the walk
 * reads them only when the page reaches them.
 */
export interface SortWalk {
  entities: RawBuilder<unknown>;
  paths: WalkPath[];
  nulls?: RawBuilder<boolean>;
}

/**
 * One way a list row refers to an entity: `ref` (the row's column holding the entity's key), for the rows
 * `where` holds. An entity's rows are the union of its paths' (disjoint: a movement's place is its own
 * shop, else, when it records none, its claim's). With a tie, `tie` is the same value as the column's tie
 * in the table of `ref` (cm.claim_id for p.claim_id): the index on (ref, tie) then starts at the cursor's
 * claim, where a row comparison across two tables would only filter from the entity's first row.
 */
export interface WalkPath {
  ref: RawBuilder<unknown>;
  tie?: RawBuilder<unknown>;
  where?: RawBuilder<boolean>;
}

/**
 * What orders rows of equal value before their id (a part's claim): `expr`, and `ofId`, the same value of
 * the row a cursor names (read by its id, so the cursor stays `[column, dir, value, id]`). It must be a
 * value the row never changes (a part's claim) and an int4 (the walk starts an entity at 0 or 2^31). A
 * cursor whose row was deleted since (a purge) has no tie: the page after it skips the rest of its value.
 */
export interface SortTie {
  expr: RawBuilder<unknown>;
  ofId: (id: number) => RawBuilder<unknown>;
}

/** One sortable column: the expression it orders by, its kind, and whether it can be null. */
export interface SortColumn {
  expr: RawBuilder<unknown>;
  kind: SortKind;
  nullable?: boolean;
  walk?: SortWalk;
  tie?: SortTie;
}

/** A list's sortable columns: each name and what it orders by. */
export type SortColumns<C extends string> = Record<C, SortColumn>;

/** A column reference for a SortColumns table ("p.part_no"). */
export const col = (ref: string, kind: SortKind, nullable = false): SortColumn => ({
  expr: sql.ref(ref),
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
  walk: { entities: namesOf(table), paths: [{ ref: sql.ref(ref) }] },
});

/** A small table's rows as a walk's entities (`SortWalk`): its ids and names, or only row `id`'s. */
export const namesOf = (table: string, id?: number) =>
  sql`select id as key, name as value from ${sql.table(table)}${
    id === undefined ? sql`` : sql` where id = ${id}`
  }`;

/**
 * The claim as a tie (`SortTie`) of a list of `table` whose rows hold it in `ref`: rows of equal value in
 * claim order, then by id, the order the walk's indexes give (a shop's claims, then each claim's rows).
 */
export const claimTie = (table: "parts_orders" | "parts_movements", ref: string): SortTie => ({
  expr: sql.ref(ref),
  ofId: (id) => sql`(select claim_id from ${sql.table(table)} where id = ${id})`,
});
