/**
 * A part's label code (docs/labels.md "Codes"): `PM-` + the part id in Crockford's base32 (at least four
 * symbols) + one check symbol, e.g. `PM-000MD` for part 20. Derived from the id, so no table keeps codes and
 * every part has exactly one; it shows the order parts were created in, which is fine on labels only staff
 * handle (docs/labels.md "What a code reveals").
 *
 * The check symbol is Damm's scheme over GF(32): `interim = a·interim + symbol` for each symbol, with `a` the
 * field's generator (x, modulo x⁵ + x² + 1), and the check is `a·interim`, so a valid code folds to 0. It
 * catches every single wrong symbol and every swap of two symbols (a is primitive: a^i ≠ a^j within a
 * code's length), and its check is one of the 32 symbols, unlike Crockford's mod-37 check, whose `*~$=U`
 * a driver cannot type easily and a QR code can only carry in byte mode.
 *
 * Reading is forgiving as Crockford says: any case, `O` for 0, `I` and `L` for 1, hyphens and spaces
 * ignored after the `PM` prefix.
 */
import { DomainError } from "@/lib/errors.ts";
import { MAX_ID } from "@/lib/validation.ts";

export const LABEL_PREFIX = "PM-";
/** Crockford's base32 symbols, by value. */
export const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** The fewest id symbols a code shows, so every code looks like one (`PM-0001…`, not `PM-1…`). */
const MIN_SYMBOLS = 4;
/** Seven symbols hold any id up to MAX_ID (2³¹ − 1); a few more allow leading zeros typed in. */
const MAX_SYMBOLS = 10;

/** `a·v` in GF(32) with a = x: a shift, reduced by x⁵ + x² + 1 (0b100101). */
const timesA = (v: number): number => v & 0b10000 ? ((v << 1) ^ 0b100101) & 31 : v << 1;

/** The check symbol's value for these symbol values. */
function checkValue(values: readonly number[]): number {
  let interim = 0;
  for (const v of values) interim = timesA(interim) ^ v;
  return timesA(interim);
}

/** The label code of a part id. */
export function labelCode(partId: number): string {
  if (!Number.isSafeInteger(partId) || partId < 1 || partId > MAX_ID) {
    throw new RangeError(`not a part id: ${partId}`);
  }
  const values: number[] = [];
  for (let n = partId; n > 0; n = Math.floor(n / 32)) values.unshift(n % 32);
  while (values.length < MIN_SYMBOLS) values.unshift(0);
  return LABEL_PREFIX + [...values, checkValue(values)].map((v) => CROCKFORD[v]).join("");
}

/** What a typed or scanned code is written as, for messages: trimmed and upper case. */
const shown = (text: string): string => text.trim().toUpperCase();

/** `PM` then a hyphen or spaces: the sign of a label code (anything else is, say, a part number). */
const PREFIX = /^\s*PM[\s-]+/i;

/** Whether the text is meant as a label code (it starts with `PM-`), valid or not. */
export const looksLikeLabelCode = (text: string): boolean => PREFIX.test(text);

/** The value of one typed symbol, with Crockford's aliases; -1 for a character no code has. */
function valueOf(char: string): number {
  const c = char.toUpperCase();
  const aliased = c === "O" ? "0" : c === "I" || c === "L" ? "1" : c;
  return CROCKFORD.indexOf(aliased);
}

/**
 * The part id of a label code, or a DomainError (`invalid`) saying what is wrong with it: not a code, a
 * character no code has, too long, or a check symbol that does not match (a mistyped or misread symbol).
 */
export function parseLabelCode(text: string): number {
  const match = PREFIX.exec(text);
  if (!match) {
    throw new DomainError("invalid", `${shown(text)} is not a label code: codes start with ${LABEL_PREFIX}.`);
  }
  const body = text.slice(match[0].length).replace(/[\s-]/g, "");
  const values = [...body].map(valueOf);
  const bad = [...body].find((_, i) => values[i] < 0);
  if (bad !== undefined) {
    throw new DomainError(
      "invalid",
      `${shown(text)} is not a label code: it has "${bad}", which no code has.`,
    );
  }
  if (values.length < 2 || values.length > MAX_SYMBOLS + 1) {
    throw new DomainError("invalid", `${shown(text)} is not a label code: it is too short or too long.`);
  }
  const symbols = values.slice(0, -1);
  if (checkValue(symbols) !== values[values.length - 1]) {
    throw new DomainError(
      "invalid",
      `${
        shown(text)
      } is not a valid label code: its last character does not match the rest. Check the code for a mistyped character.`,
    );
  }
  const id = symbols.reduce((n, v) => n * 32 + v, 0);
  // A valid check over an id no part can have (0, or past the id column's range) names no part.
  if (id < 1 || id > MAX_ID) throw unknownLabelCode(text);
  return id;
}

/** The refusal of a well-formed code that names no part. */
export const unknownLabelCode = (text: string): DomainError =>
  new DomainError("not_found", `No part has the label code ${shown(text)}.`);
