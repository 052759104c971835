/**
 * The query strings of the dashboard's lists (parts, movements) and of their CSV exports: the values they
 * keep, what those mean to the searches, and the page number. Parsed with zod; a value that fits no filter
 * was typed into the address bar, so it is ignored (the list shows unfiltered) rather than refused, except
 * a control character (below).
 */
import { z } from "zod";
import { PART_DEFAULT_SORT, PART_SORTS, type PartFilters, type PartSortColumn } from "@/db/queries/parts.ts";
import {
  MOVEMENT_DEFAULT_SORT,
  MOVEMENT_SORTS,
  type MovementFilters,
  type MovementSortColumn,
  TRIP_DEFAULT_SORT,
  TRIP_SORTS,
} from "@/db/queries/movement_reads.ts";
import { type ListSort, SORT_DIRS } from "@/db/queries/sorting.ts";
import { PART_STATUSES } from "@/db/schema.ts";
import { normaliseRego } from "@/lib/rego.ts";
import { lineTextField, parseId, parseInput } from "@/lib/validation.ts";

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

const partQuery = z.object({
  rego: text,
  claim: text,
  status: text,
  repairer: text,
  ...sortFields(PART_SORTS),
})
  .transform((q): ListQuery<PartFilters, PartSortColumn> => ({
    query: kept(q),
    sort: sortOf(q, PART_DEFAULT_SORT),
    filters: {
      rego: q.rego && normaliseRego(q.rego),
      claim: q.claim,
      status: partStatus.parse(q.status),
      repairerId: parseId(q.repairer) ?? undefined,
    },
  }));

const movementQuery = z.object({
  type: text,
  status: text,
  rego: text,
  driver: text,
  ...sortFields(MOVEMENT_SORTS),
})
  .transform((q): ListQuery<MovementFilters, MovementSortColumn> => ({
    query: kept(q),
    sort: sortOf(q, MOVEMENT_DEFAULT_SORT),
    filters: {
      type: movementType.parse(q.type),
      status: movementStatus.parse(q.status),
      rego: q.rego && normaliseRego(q.rego),
      driverId: parseId(q.driver) ?? undefined,
    },
  }));

/** What the parts list and the parts export filter by; throws ValidationError for a refused value. */
export const partQueryOf = (raw: Record<string, string>) => parseInput(partQuery, raw);

/** What the movements list and the movements export filter by; throws ValidationError likewise. */
export const movementQueryOf = (raw: Record<string, string>) => parseInput(movementQuery, raw);

const tripQuery = z.object(sortFields(TRIP_SORTS)).transform((q) => ({
  query: kept(q),
  sort: sortOf(q, TRIP_DEFAULT_SORT),
}));

/** The open return trips' order (they have no filters); throws ValidationError for a refused column. */
export const tripQueryOf = (raw: Record<string, string>) => parseInput(tripQuery, raw);

/** `?page=N` (1-based, capped so an offset stays sane). */
const pageNumber = z.coerce.number().int().min(1).max(10_000).catch(1);

/** The page a list request asks for, and the window of rows that page holds. */
export function pageOf(raw: Record<string, string>) {
  const page = pageNumber.parse(raw.page);
  return { page, paging: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } };
}
