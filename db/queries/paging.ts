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
 * A non-null column compares as a row value, which a (column, id) index serves. A column with a tie
 * (sorting.ts `SortTie`) compares (column, tie, id), the cursor row's tie read by its id.
 */
function beyond(c: SortColumn, id: Expression<unknown>, at: Cursor, greater: boolean): RawBuilder<boolean> {
  const e = c.expr;
  const rest = c.tie ? sql`${c.tie.expr}, ${id}` : sql`${id}`;
  const atRest = c.tie ? sql`${c.tie.ofId(at.id)}, ${at.id}` : sql`${at.id}`;
  const cmp = sql.raw(greater ? ">" : "<");
  if (at.value === null) {
    return greater
      ? sql`(${e} is null and (${rest}) > (${atRest}))`
      : sql`(${e} is not null or (${rest}) < (${atRest}))`;
  }
  const v = fromText(c, at.value);
  // The bare bound beside the row comparison lets an index on the column alone (or on a joined table's
  // column) start at the cursor instead of filtering from the start of the list.
  if (!c.nullable) {
    return sql`(${e} ${cmp}= ${v} and (${e}, ${rest}) ${cmp} (${v}, ${atRest}))`;
  }
  return greater
    ? sql`(${e} is null or (${e}, ${rest}) > (${v}, ${atRest}))`
    : sql`(${e} is not null and (${e}, ${rest}) < (${v}, ${atRest}))`;
}

const flip = (d: SortDir): SortDir => d === "asc" ? "desc" : "asc";

/** Where the walk stands: the rows to read are past `at` in order `dir`. */
interface WalkFrom {
  at: Cursor | undefined;
  dir: SortDir;
  limit: number;
}

/**
 * The ids a page of a walked column (sorting.ts `SortWalk`) can hold: for each entity at or past the
 * cursor's value, and each of its paths, its first `limit` rows past the cursor in (tie, id) order (the
 * list's own filters included), each read through the path's index on (reference, tie, id). The page is
 * the first `limit` of these in (value, tie, id) order: a row among the page's is among its path's first
 * `limit` of its entity, since every row before it in (tie, id) order of the same entity (the same value)
 * comes before it in the page's order too. So a page costs one short index range per entity and path
 * (tens to hundreds of users or shops), not a sort of every row of the list. Rows without a value are
 * not here (`nullCandidates`).
 */
function walkedCandidates<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: SortColumn & { walk: SortWalk },
  id: Expression<unknown>,
  { at, dir, limit }: WalkFrom,
): RawBuilder<unknown>[] {
  const asc = dir === "asc";
  const cmp = sql.raw(asc ? ">" : "<");
  const tie = column.tie;
  // An entity past the cursor's value starts at its first row: tie and id 0 going up, 2^31 going down
  // (ints4). The cursor's own entity (its value) starts at the cursor's row.
  const edge = sql`${asc ? 0 : 2 ** 31}::bigint`;
  const starts = at && at.value !== null
    ? sql`case when k.value = ${at.value} then ${at.id}::bigint else ${edge} end`
    : edge;
  const tieStart = tie &&
    (at && at.value !== null
      ? sql`case when k.value = ${at.value} then ${tie.ofId(at.id)}::bigint else ${edge} end`
      : edge);
  // Past a null cursor going down every entity is ahead (the nulls came first); going up none is.
  const from = at && at.value !== null ? sql`where k.value ${cmp}= ${at.value}` : sql``;
  const bound = sql.raw(asc ? "<=" : ">=");
  return column.walk.paths.map((path) => {
    const { ref } = path;
    // The entity's rows as a range of the (reference, tie, id) index, never `reference = key`: with `=`
    // the planner drops the reference from the order (a constant) and may read the id index filtered by
    // entity, the whole table for an entity with few rows.
    let rows = query.clearSelect().select(sql`${id}`.as("id")).where(sql<boolean>`${ref} ${bound} k.key`);
    if (tie) {
      // The bound on (reference, the path's tie) is the index's; the one on (tie, id) drops the rows of
      // the cursor's claim up to the cursor.
      const own = path.tie ?? tie.expr;
      rows = rows.where(sql<boolean>`(${ref}, ${own}) ${cmp}= (k.key, ${tieStart})`)
        .where(sql<boolean>`(${tie.expr}, ${id}) ${cmp} (${tieStart}, ${starts})`)
        .orderBy(ref, dir).orderBy(own, dir);
    } else {
      rows = rows.where(sql<boolean>`(${ref}, ${id}) ${cmp} (k.key, ${starts})`).orderBy(ref, dir);
    }
    if (path.where) rows = rows.where(path.where);
    return sql`select w.id from (${column.walk.entities}) k
      cross join lateral ${rows.orderBy(id, dir).limit(limit)} w ${from}`;
  });
}

/**
 * The ids a page can hold among the rows without a value (sorting.ts `SortWalk.nulls`): the first `limit`
 * past the cursor in (tie, id) order.
 */
function nullCandidates<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: SortColumn & { walk: SortWalk },
  id: Expression<unknown>,
  nulls: RawBuilder<boolean>,
  { at, dir, limit }: WalkFrom,
): RawBuilder<unknown> {
  let rows = query.clearSelect().select(sql`${id}`.as("id")).where(nulls);
  if (at?.value === null) rows = rows.where(beyond(column, id, at, dir === "asc"));
  if (column.tie) rows = rows.orderBy(column.tie.expr, dir);
  return sql`${rows.orderBy(id, dir).limit(limit)}`;
}

/**
 * Which parts of a walk a page reads (`walkedCandidates`, `nullCandidates`). Going up, the rows without a
 * value come after every entity's: read only past a null cursor, or (`tail`) when the entities' rows did
 * not fill the page. Going down they come first: read from the start or past a null cursor; past a
 * value they are behind.
 */
function walkCandidates<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: SortColumn & { walk: SortWalk },
  id: Expression<unknown>,
  from: WalkFrom,
  tail: boolean,
): RawBuilder<unknown> {
  const { at, dir } = from;
  const inNulls = at?.value === null;
  const { nulls } = column.walk;
  const withNulls = nulls !== undefined && (dir === "asc" ? inNulls || tail : !at || inNulls);
  const parts = dir === "asc" && inNulls ? [] : walkedCandidates(query, column, id, from);
  if (withNulls) parts.push(nullCandidates(query, column, id, nulls, from));
  return sql.join(parts.map((p) => sql`(${p})`), sql` union all `);
}

/**
 * One page of `query` in the order (column `dir`, then its tie if it has one, then id `dir`). A page before a cursor is read in the
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
  const read = async (tail: boolean) => {
    let q = query.select(asText(column).as("sort_key"));
    if (at) q = q.where(beyond(column, id, at, dir === "asc"));
    if (column.walk) {
      // An array, not `in (…)`: the page is then read by id from these few candidates, where a semi-join
      // may be planned as a hash of the whole filtered list.
      const from = { at, dir, limit: window.limit + 1 };
      const candidates = walkCandidates(query, { ...column, walk: column.walk }, id, from, tail);
      q = q.where(sql<boolean>`${id} = any(array(${candidates}))`);
    }
    q = q.orderBy(column.expr, dir);
    if (column.tie) q = q.orderBy(column.tie.expr, dir);
    // Kysely's generic row type (a Selection over unknown tables) is the caller's row plus sort_key.
    return await q.orderBy(id, dir).limit(window.limit + 1).execute() as unknown as (O & {
      sort_key: string | null;
    })[];
  };
  let found = await read(false);
  // Going up, a walk reads the rows without a value only when the entities' rows leave the page short.
  const short = found.length <= window.limit && column.walk?.nulls && dir === "asc" && at?.value !== null;
  if (short) found = await read(true);
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
