/** Rego normalisation (D11): what is compared is upper case with spaces and hyphens removed. */
export function normaliseRego(input: string): string {
  return input.trim().replace(/[\s-]+/g, "").toUpperCase();
}

/** Escapes LIKE wildcards so `%`, `_` and `\` in a rego match themselves. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
