/**
 * Rego normalisation (D11): what is compared is upper case with spaces and hyphens removed, the rule of the
 * `claims.registration_norm` column. Queries take registrations already normalised: the use case (or the
 * route parsing a filter) normalises the typed value with this function and passes the result, so db/
 * never depends on lib/ and a query's `norm` argument means one thing.
 */
export function normaliseRego(input: string): string {
  return input.trim().replace(/[\s-]+/g, "").toUpperCase();
}
