/**
 * The query strings of the dashboard's lists (parts, movements) and of their CSV exports: the values they
 * keep, what those mean to the searches, and the page (a keyset cursor). Parsed with zod; a value that fits no filter
 * was typed into the address bar, so it is ignored (the list shows unfiltered) rather than refused, except
 * a control character (below).
 */
import { z } from "zod";
import {
  PART_DEFAULT_SORT,
  PART_SORT_COLUMNS,
  PART_SORTS,
  type PartFilters,
  type PartSortColumn,
} from "@/db/queries/parts.ts";
import {
  MOVEMENT_DEFAULT_SORT,
  MOVEMENT_SORT_COLUMNS,
  MOVEMENT_SORTS,
  type MovementFilters,
  type MovementSortColumn,
  TRIP_DEFAULT_SORT,
  TRIP_SORTS,
} from "@/db/queries/movement_reads.ts";
import { type ListSort, SORT_DIRS, type SortColumns, type SortKind } from "@/db/queries/sorting.ts";
import type { Cursor, KeysetWindow } from "@/db/queries/paging.ts";
import { PART_STATUSES } from "@/db/schema.ts";
import { normaliseRego } from "@/lib/rego.ts";
import { partTextOf } from "@/lib/dashboard/search.ts";
import { dateRangeOf, dayWindowOf } from "@/lib/dashboard/date_range.ts";
import { lineTextField, MAX_ID, parseId, parseInput } from "@/lib/validation.ts";
import { ValidationError } from "@/lib/errors.ts";
import { Buffer } from "node:buffer";

export const PAGE_SIZE = 25;

/**
 * A query value as typed (trimmed); absent when empty. One holding a control character (lib/validation.ts)
 * is refused rather than ignored: it can only have been forged, and it must never reach a query
 * (PostgreSQL refuses U+0000) nor start an export that would then break off.
 */
const text = z.string().optional().catch(undefined).transform((v) => v?.trim() || undefined)
  .pipe(lineTextField.optional());

const partStatus = z.enum(PART_STATUSES).optional().catch(undefined);
const movementType = z.enum(["direct", "reverse"]).optional().catch(undefined);
const movementStatus = z.enum(["Parts Picked Up", "Parts Dropped off"]).optional().catch(undefined);

/** The values a list shows in its form and carries to its paging and export links. */
function kept(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) if (value) out[name] = value;
  return out;
}

/**
 * A list's request: `query` as typed (for the form and links), `filters` as the search takes them, and
 * the column order.
 */
export interface ListQuery<F, C extends string> {
  query: Record<string, string>;
  filters: F;
  sort: ListSort<C>;
}

/**
 * `?sort=<column>&dir=asc|desc`. Unlike a filter value, a column outside the list's allow-list is refused
 * (400): only a sort link makes these, so another value was forged or is stale, and showing the list in
 * some other order than the one asked for would mislead.
 */
function sortFields<C extends string>(columns: readonly [C, ...C[]]) {
  return {
    sort: z.enum(columns, { error: "is not a column this list sorts by" }).optional(),
    dir: z.enum(SORT_DIRS, { error: "must be asc or desc" }).optional(),
  };
}

function sortOf<C extends string>(
  q: { sort?: C; dir?: "asc" | "desc" },
  fallback: ListSort<C>,
): ListSort<C> {
  if (!q.sort) return fallback;
  return { column: q.sort, dir: q.dir ?? "asc" };
}

/** An age in whole hours, at most ten years (docs/overview.md "Ageing"); anything else is ignored. */
const ageHours = z.coerce.number().int().min(0).max(87_600).optional().catch(undefined);
const HOUR_MS = 3_600_000;

/** Where the parts list stands: "now" for the age filters, the depot's zone for the day of `returned`. */
export interface ListContext {
  now: Date;
  zone: string;
}

/**
 * The parts list's query: the form's filters, and the overview's (docs/overview.md): `repairer=none` (claims
 * without a shop), `returned=YYYY-MM-DD` (returned to HQ that depot day; a date that is not one is refused),
 * `min_age_h`/`max_age_h` (in the status now for at least / under so many hours).
 */
const partQuery = (ctx: ListContext) =>
  z.object({
    part: text,
    rego: text,
    claim: text,
    status: text,
    repairer: text,
    returned: text,
    min_age_h: text,
    max_age_h: text,
    ...sortFields(PART_SORTS),
  })
    .transform((q): ListQuery<PartFilters, PartSortColumn> => {
      const minAge = ageHours.parse(q.min_age_h);
      const maxAge = ageHours.parse(q.max_age_h);
      const ago = (hours: number) => new Date(ctx.now.getTime() - hours * HOUR_MS);
      return {
        query: kept({
          ...q,
          min_age_h: minAge === undefined ? undefined : String(minAge),
          max_age_h: maxAge === undefined ? undefined : String(maxAge),
        }),
        sort: sortOf(q, PART_DEFAULT_SORT),
        filters: {
          rego: q.rego && normaliseRego(q.rego),
          claim: q.claim,
          status: partStatus.parse(q.status),
          repairerId: parseId(q.repairer) ?? undefined,
          text: q.part ? partTextOf(q.part) : undefined,
          // The overview's filters, present only when asked for.
          ...(q.repairer === "none" ? { noShop: true } : {}),
          ...(q.returned ? { returned: dayWindowOf("returned", q.returned, ctx.zone) } : {}),
          ...(minAge === undefined ? {} : { sinceAtOrBefore: ago(minAge) }),
          ...(maxAge === undefined ? {} : { sinceAfter: ago(maxAge) }),
        },
      };
    });

/** The movements list's query at `now` in the depot's `zone` (its date range is of the depot's days). */
const movementQuery = (now: Date, zone: string) =>
  z.object({
    type: text,
    status: text,
    rego: text,
    driver: text,
    range: text,
    from: text,
    to: text,
    ...sortFields(MOVEMENT_SORTS),
  })
    .transform((q): ListQuery<MovementFilters, MovementSortColumn> => {
      const { range, from, to, ...rest } = q;
      const dates = dateRangeOf({ range, from, to }, now, zone);
      return {
        query: kept({ ...rest, ...dates.kept }),
        sort: sortOf(q, MOVEMENT_DEFAULT_SORT),
        filters: {
          type: movementType.parse(q.type),
          status: movementStatus.parse(q.status),
          rego: q.rego && normaliseRego(q.rego),
          driverId: parseId(q.driver) ?? undefined,
          pickedUp: dates.window,
        },
      };
    });

/**
 * What the parts list and the parts export filter by; throws ValidationError for a refused value. `ctx`
 * (the clock and the depot's zone) only matters to the overview's filters; without it, the system clock in
 * UTC.
 */
export const partQueryOf = (raw: Record<string, string>, ctx?: ListContext) =>
  parseInput(partQuery(ctx ?? { now: new Date(), zone: "UTC" }), raw);

/**
 * What the movements list and the movements export filter by, their dates being the depot's days at `now`
 * (lib/dashboard/date_range.ts); throws ValidationError likewise, also for a date refused.
 */
export const movementQueryOf = (raw: Record<string, string>, now: Date, zone: string) =>
  parseInput(movementQuery(now, zone), raw);

const tripQuery = z.object(sortFields(TRIP_SORTS)).transform((q) => ({
  query: kept(q),
  sort: sortOf(q, TRIP_DEFAULT_SORT),
}));

/** The open return trips' order (they have no filters); throws ValidationError for a refused column. */
export const tripQueryOf = (raw: Record<string, string>) => parseInput(tripQuery, raw);

/**
 * The page a list request asks for: `?after=<cursor>` (the page after the row the cursor names),
 * `?before=<cursor>` (the page before it), else the first page. A cursor is opaque to the reader: unpadded
 * base64url of JSON `[column, dir, value, id]`, written by `cursorParam` from the last (first) row shown.
 * It names the order it was made in, so a cursor of another order (a forged or hand-edited link), a value
 * that is not of the column's kind, or both parameters at once is refused (400) before it reaches SQL.
 * The old `?page=N` links (the offset paging keyset paging replaced) are ignored: they show the first page.
 */
function keysetOf<C extends string>(
  raw: Record<string, string>,
  sort: ListSort<C>,
  columns: SortColumns<C>,
): KeysetWindow {
  if (raw.after !== undefined && raw.before !== undefined) {
    throw new ValidationError("after", "cannot be given with before");
  }
  const name = raw.after !== undefined ? "after" : raw.before !== undefined ? "before" : null;
  if (!name) return { limit: PAGE_SIZE };
  const cursor = cursorOf(sort, columns[sort.column].kind).safeParse(raw[name]);
  if (!cursor.success) throw new ValidationError(name, "is not a link of this list and order");
  return { limit: PAGE_SIZE, [name]: cursor.data };
}

/** The page of the parts list a request asks for, in its order (`keysetOf`); throws ValidationError. */
export const partPageOf = (raw: Record<string, string>, sort: ListSort<PartSortColumn>) =>
  keysetOf(raw, sort, PART_SORT_COLUMNS);

/** The page of the movements list a request asks for, in its order (`keysetOf`); throws ValidationError. */
export const movementPageOf = (raw: Record<string, string>, sort: ListSort<MovementSortColumn>) =>
  keysetOf(raw, sort, MOVEMENT_SORT_COLUMNS);

/** The query value of a cursor in this order (the inverse of `keysetOf`'s parsing). */
export function cursorParam<C extends string>(sort: ListSort<C>, cursor: Cursor): string {
  return Buffer.from(JSON.stringify([sort.column, sort.dir, cursor.value, cursor.id])).toString("base64url");
}

/** A sort value of each kind as paging.ts writes it; anything else would fail its cast in SQL. */
const SORT_VALUE: Record<SortKind, z.ZodType<string>> = {
  text: z.string().max(10_000).refine((v) => !v.includes("\0"), "must not contain NUL"),
  int: z.string().regex(/^-?\d{1,18}$/),
  time: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/).refine((v) => !isNaN(Date.parse(v))),
};

/** A cursor's text: base64url JSON of this order's column and direction, a value of its kind, an id. */
function cursorOf(sort: ListSort<string>, kind: SortKind) {
  return z.string().max(12_000).transform((text, ctx) => {
    try {
      return JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "is not JSON" });
      return z.NEVER;
    }
  }).pipe(z.tuple([z.literal(sort.column), z.literal(sort.dir), SORT_VALUE[kind].nullable(), idNumber]))
    .transform(([, , value, id]): Cursor => ({ value, id }));
}

const idNumber = z.number().int().min(1).max(MAX_ID);

/** The "Previous" and "Next" links of a list page: its query as typed plus the neighbour's cursor. */
export function pageLinks<C extends string>(
  path: string,
  query: Record<string, string>,
  sort: ListSort<C>,
  page: { prev?: Cursor; next?: Cursor },
): { prev?: string; next?: string } {
  const href = (name: "after" | "before", cursor: Cursor) =>
    `${path}?${new URLSearchParams({ ...query, [name]: cursorParam(sort, cursor) })}`;
  return {
    prev: page.prev && href("before", page.prev),
    next: page.next && href("after", page.next),
  };
}
