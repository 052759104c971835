/**
 * The query strings of the dashboard's lists (parts, movements) and of their CSV exports: the values they
 * keep, what those mean to the searches, and the page number. Parsed with zod; a value that fits no filter
 * was typed into the address bar, so it is ignored (the list shows unfiltered) rather than refused, except
 * a control character (below).
 */
import { z } from "zod";
import type { PartFilters } from "@/db/queries/parts.ts";
import type { MovementFilters } from "@/db/queries/movement_reads.ts";
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

/** A list's request: `query` as typed (for the form and links), `filters` as the search takes them. */
export interface ListQuery<F> {
  query: Record<string, string>;
  filters: F;
}

const partQuery = z.object({ rego: text, claim: text, status: text, repairer: text })
  .transform((q): ListQuery<PartFilters> => ({
    query: kept(q),
    filters: {
      rego: q.rego && normaliseRego(q.rego),
      claim: q.claim,
      status: partStatus.parse(q.status),
      repairerId: parseId(q.repairer) ?? undefined,
    },
  }));

const movementQuery = z.object({ type: text, status: text, rego: text, driver: text })
  .transform((q): ListQuery<MovementFilters> => ({
    query: kept(q),
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

/** `?page=N` (1-based, capped so an offset stays sane). */
const pageNumber = z.coerce.number().int().min(1).max(10_000).catch(1);

/** The page a list request asks for, and the window of rows that page holds. */
export function pageOf(raw: Record<string, string>) {
  const page = pageNumber.parse(raw.page);
  return { page, paging: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } };
}
