/** LIKE patterns built from typed input: the contains-matches of the search and the dashboard filters. */
import { sql } from "kysely";

/** Escapes LIKE wildcards so `%`, `_` and `\` in the input match themselves (PostgreSQL's default ESCAPE). */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** A LIKE pattern matching any text that contains `value` literally. */
export function containsPattern(value: string): string {
  return `%${escapeLike(value)}%`;
}

/** A LIKE pattern matching any text that starts with `value` literally. */
export function prefixPattern(value: string): string {
  return `${escapeLike(value)}%`;
}

/** Fewer characters than a trigram: the trigram index cannot find them, and they match claims densely. */
const TRIGRAM = 3;

/**
 * The dashboard lists' rego filter (docs/dashboard-scale.md "Filters"): the rows whose claim's normalised
 * rego (`regoColumn`, of the joined claim) contains `rego`. From 3 characters the claims are found first,
 * through the trigram index on `registration_norm`, and the rows then by their claim's key
 * (`claimIdColumn = any(array(…))`): written as a plain condition on the joined claim, the planner guessed
 * 1 % of claims for any fragment and walked the whole list backwards by id for a page of 40 claims' rows
 * (1.8–3.4 s at 1 000 000 claims; 30 ms this way). Shorter fragments match a third of the claims or more, a
 * page is found within the first rows of that walk, and the array would hold hundreds of thousands: they
 * keep the plain condition.
 */
export function regoContains(claimIdColumn: string, regoColumn: string, rego: string) {
  if (rego.length < TRIGRAM) return sql<boolean>`${sql.ref(regoColumn)} like ${containsPattern(rego)}`;
  return sql<boolean>`${sql.ref(claimIdColumn)} = any(array(
    select id from claims where registration_norm like ${containsPattern(rego)}))`;
}
