/**
 * Keyset paging of the dashboard's lists (parts, movements): a page starts after (or ends before) the last
 * row a reader saw, named by its sort value and id, instead of skipping N rows. With an index on (sort
 * column, id) every page is an index range scan of one page, however deep; OFFSET read and threw away
 * every row before the page (2.6 s at page 500 of 3 million parts).
 */
import { type Expression, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { SortColumn, SortDir, SortWalk } from "@/db/queries/sorting.ts";

/** Where a page starts: the sort value of a row as text (null for a null value) and its id. */
export interface Cursor {
  value: string | null;
  id: number;
}

/** A page request: `limit` rows after `after`, or before `before`, or the first page. */
export interface KeysetWindow {
  limit: number;
  after?: Cursor;
  before?: Cursor;
}

/** A page and the cursors of its neighbours (absent when there is none). */
export interface KeysetPage<R> {
  rows: R[];
  next?: Cursor;
  prev?: Cursor;
}

/** The sort value as the cursor carries it: text that casts back to the same value (microseconds kept). */
function asText(c: SortColumn): RawBuilder<string | null> {
  if (c.kind === "time") {
    return sql`to_char(${c.expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  }
  return c.kind === "int" ? sql`(${c.expr})::text` : sql`${c.expr}`;
}

function fromText(c: SortColumn, value: string): RawBuilder<unknown> {
  if (c.kind === "time") return sql`${value}::timestamptz`;
  return c.kind === "int" ? sql`${value}::bigint` : sql`${value}::text`;
}

/**
 * Rows after the cursor in ascending order (`greater`), or before it. Ascending, nulls sort last (and
 * descending first, PostgreSQL's default), so for a nullable column a null is the greatest value.
 * A non-null column compares as a row value, which a (column, id) index serves.
 */
function beyond(c: SortColumn, id: Expression<unknown>, at: Cursor, greater: boolean): RawBuilder<boolean> {
  const e = c.expr;
  if (at.value === null) {
    return greater ? sql`(${e} is null and ${id} > ${at.id})` : sql`(${e} is not null or ${id} < ${at.id})`;
  }
  const v = fromText(c, at.value);
  // The bare bound beside the row comparison lets an index on the column alone (or on a joined table's
  // column) start at the cursor instead of filtering from the start of the list.
  if (!c.nullable) {
    return greater
      ? sql`(${e} >= ${v} and (${e}, ${id}) > (${v}, ${at.id}))`
      : sql`(${e} <= ${v} and (${e}, ${id}) < (${v}, ${at.id}))`;
  }
  return greater
    ? sql`(${e} is null or (${e}, ${id}) > (${v}, ${at.id}))`
    : sql`(${e} is not null and (${e}, ${id}) < (${v}, ${at.id}))`;
}

const flip = (d: SortDir): SortDir => d === "asc" ? "desc" : "asc";

/**
 * The ids a page of a walked column (sorting.ts `SortWalk`) can hold: for each entity at or past the
 * cursor's value, its first `limit` rows past the cursor in id order (the list's own filters included),
 * each read through the index on (reference, id). The page is the first `limit` of these in (value, id)
 * order: a row among the page's is among its entity's first `limit`, since every row before it in id
 * order of the same entity (the same value) comes before it in the page's order too. So a page costs one
 * short index range per entity (tens to hundreds of users), not a sort of every row of the list.
 */
function walkedCandidates<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  walk: SortWalk,
  id: Expression<unknown>,
  at: Cursor | undefined,
  dir: SortDir,
  limit: number,
): RawBuilder<unknown> {
  const asc = dir === "asc";
  const cmp = sql.raw(asc ? ">" : "<");
  const ref = walk.ref;
  // The entity's rows as a range of the (reference, id) index, never `reference = key`: with `=` the planner
  // drops the reference from the order (a constant) and may read the id index filtered by entity, the whole
  // table for an entity with few rows. Past the cursor: the cursor's entity (its value) from the cursor's
  // id, an entity past its value from its first row (id 0 going up, 2^31 going down: ids are int4).
  let rows = query.clearSelect().select(sql`${id}`.as("id"));
  if (!at) rows = rows.where(sql<boolean>`${ref} >= k.key and ${ref} <= k.key`);
  else {
    const start = sql`case when k.value = ${at.value} then ${at.id}::bigint else ${
      asc ? 0 : 2 ** 31
    }::bigint end`;
    rows = rows.where(
      sql<boolean>`${ref} ${sql.raw(asc ? "<=" : ">=")} k.key and (${ref}, ${id}) ${cmp} (k.key, ${start})`,
    );
  }
  const from = at ? sql`where k.value ${cmp}= ${at.value}` : sql``;
  return sql`select w.id from (${walk.entities}) k
    cross join lateral ${rows.orderBy(walk.ref, dir).orderBy(id, dir).limit(limit)} w ${from}`;
}

/**
 * One page of `query` in the order (column `dir`, then id `dir`). A page before a cursor is read in the
 * opposite order and turned round; when it reaches the start of the list the first page is read instead,
 * so "Previous" always lands on full pages. One row past the page says whether another page follows.
 */
export async function fetchKeysetPage<DB, TB extends keyof DB, O extends { id: number }>(
  query: SelectQueryBuilder<DB, TB, O>,
  order: { column: SortColumn; dir: SortDir; id: Expression<unknown> },
  window: KeysetWindow,
): Promise<KeysetPage<O>> {
  const { column, id } = order;
  const backwards = window.before !== undefined;
  const dir = backwards ? flip(order.dir) : order.dir;
  const at = window.before ?? window.after;
  let q = query.select(asText(column).as("sort_key"));
  if (at) q = q.where(beyond(column, id, at, dir === "asc"));
  if (column.walk) {
    // An array, not `in (…)`: the page is then read by id from these few candidates, where a semi-join
    // may be planned as a hash of the whole filtered list.
    const candidates = walkedCandidates(query, column.walk, id, at, dir, window.limit + 1);
    q = q.where(sql<boolean>`${id} = any(array(${candidates}))`);
  }
  // Kysely's generic row type (a Selection over unknown tables) is the caller's row plus sort_key.
  const found = await q.orderBy(column.expr, dir).orderBy(id, dir).limit(window.limit + 1)
    .execute() as unknown as (O & { sort_key: string | null })[];
  const more = found.length > window.limit;
  const rows = found.slice(0, window.limit);
  if (backwards) {
    if (!more) return await fetchKeysetPage(query, order, { limit: window.limit });
    rows.reverse();
  }
  const cursorOf = (r: O & { sort_key: string | null }): Cursor => ({ value: r.sort_key, id: r.id });
  const first = rows.at(0), last = rows.at(-1);
  if (backwards) return { rows, prev: cursorOf(first!), next: last ? cursorOf(last) : window.before };
  return {
    rows,
    next: more && last ? cursorOf(last) : undefined,
    prev: window.after ? (first ? cursorOf(first) : window.after) : undefined,
  };
}
