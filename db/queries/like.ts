/** LIKE patterns built from typed input: the contains-matches of the search and the dashboard filters. */

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
