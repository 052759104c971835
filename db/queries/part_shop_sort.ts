/**
 * The parts list's repair-shop sort at scale (docs/dashboard.md "Lists: links, sorting, thumbnails"): the
 * shop is the claim's (claim_management), so no index on parts_orders holds it, and none may be added (every
 * status flip of a submission writes each of its indexes). The sort walks the shops instead (sorting.ts
 * `SortWalk`, the walk in paging.ts), reading one page through indexes that were already there.
 */
import { sql } from "kysely";
import { claimTie, col, namesOf, type SortColumn } from "@/db/queries/sorting.ts";

/**
 * The shops in name order, each one's claims through claim_management (repairer_id, claim_id) and each
 * claim's parts through parts_orders_claim_status. So a shop's parts come in claim order, then by id (the
 * tie; it used to be by id alone: parts of one claim are imported together, so this is nearly the same
 * order). Parts of a claim without a shop come last ascending, first descending, also by claim then id.
 */
export const SHOP_SORT: SortColumn = {
  ...col("r.name", "text", true),
  tie: claimTie("parts_orders", "p.claim_id"),
  walk: {
    entities: namesOf("repairers"),
    paths: [{ ref: sql.ref("cm.repairer_id"), tie: sql.ref("cm.claim_id") }],
    // A management record naming no shop, or none at all: the claims the partial index
    // claims_without_shop holds (20261219T0900_claim_shop_flag), read only when a page reaches them (the
    // last pages ascending, the first descending).
    nulls: sql<boolean>`not c.has_shop`,
  },
};

/**
 * `column` as the parts list reads it under these filters. Unfiltered, the walk reads each shop's claims
 * until a page of their parts passes; under a status (which can match no part of a whole shop: 1.6 s to
 * find that at 1 000 000 claims), a rego, a claim number or a part's text (a handful of rows) the list
 * sorts the filtered rows instead, as the movements' driver sort does (movement_reads.ts).
 */
export function shopWalkUnder(
  column: SortColumn,
  f: { status?: unknown; rego?: string; claim?: string; repairerId?: number; text?: unknown },
): SortColumn {
  if (!column.walk) return column;
  if (f.status || f.rego || f.claim || f.text) return { ...column, walk: undefined };
  // A shop filter: that shop is the only entity (a range per other shop would be read, and a btree cannot
  // start at a row comparison beside `repairer_id = …`), and no part without a shop matches.
  if (f.repairerId) {
    return { ...column, walk: { entities: namesOf("repairers", f.repairerId), paths: column.walk.paths } };
  }
  return column;
}
