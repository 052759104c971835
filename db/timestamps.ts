/**
 * A `timestamptz` read as PostgreSQL's text (`t::text`) into epoch milliseconds, for a read of millions of
 * times (the parts CSV export, docs/dashboard.md "Exports"): pg's own parser builds a Date through a regular
 * expression (~1 µs and an object a time), PGlite's through `new Date(text)`. Only the statement that casts
 * its times reads them this way; every other statement keeps the drivers' Dates.
 */
import pg from "pg";

/** pg's parser of a timestamptz's text: what the export's times read as before, for any text not below. */
const pgTimestamptz = pg.types.getTypeParser(1184, "text") as (text: string) => Date | number;

/** The digit at `i`, or NaN. */
function digit(text: string, i: number): number {
  const d = text.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : NaN;
}

function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + digit(text, i);
  return n;
}

/**
 * Epoch milliseconds of a timestamptz's text: "2026-11-21 09:30:05.123456+00" (DateStyle ISO in a UTC
 * session, years 1000–9999) by position, microseconds dropped (as pg's parser and a Date drop them); any
 * other text (another session zone, BC, "infinity") through pg's parser: the same instant either way
 * (tests/hq_exports_test.ts). ±Infinity for "±infinity", as pg's parser gives it.
 */
export function timestamptzMs(text: string): number {
  const n = text.length;
  if (
    n >= 22 && n <= 29 && text[4] === "-" && text[7] === "-" && text[10] === " " && text[13] === ":" &&
    text[16] === ":" && text.endsWith("+00") && (n === 22 || (n >= 24 && text[19] === "."))
  ) {
    const year = digits(text, 0, 4);
    const end = n - 3;
    // The first three digits of the fraction, padded ("5" is 500 ms, "123456" is 123); NaN when any of
    // its digits is not one.
    let ms = 0;
    for (let i = 20; i < 23; i++) ms = ms * 10 + (i < end ? digit(text, i) : 0);
    for (let i = 23; i < end; i++) if (Number.isNaN(digit(text, i))) ms = NaN;
    const t = Date.UTC(
      year,
      digits(text, 5, 7) - 1,
      digits(text, 8, 10),
      digits(text, 11, 13),
      digits(text, 14, 16),
      digits(text, 17, 19),
      ms,
    );
    if (year >= 1000 && Number.isFinite(t)) return t;
  }
  const parsed = pgTimestamptz(text);
  return parsed instanceof Date ? parsed.getTime() : parsed;
}
