/**
 * The dashboard's search box (docs/search-box.md): one text, looked for as a part's code, a part number, words
 * of a description, a claim number, a rego, a driver and a repair shop; results grouped by kind, at most
 * SEARCH_CAP of each, each group saying whether there were more. Every look-up is one indexed statement
 * (db/queries/search_box.ts); a text too short to look for runs none.
 */
import { z } from "zod";
import type { Db } from "@/db/client.ts";
import {
  type PartText,
  type SearchClaim,
  searchClaimsContaining,
  searchClaimsExact,
  searchDrivers,
  type SearchPart,
  searchPartById,
  searchPartsByNo,
  searchPartsByWords,
  searchShops,
} from "@/db/queries/search_box.ts";
import { looksLikeLabelCode, parseLabelCode } from "@/lib/labels/code.ts";
import { normaliseRego } from "@/lib/rego.ts";
import { lineTextField, parseInput } from "@/lib/validation.ts";

/** Results shown per kind; one more is read to know there are more. */
export const SEARCH_CAP = 20;
/** The shortest text looked for: one character finds half the database and says nothing. */
export const SEARCH_MIN_CHARS = 2;
/** The longest: nothing the box finds is longer (a description's words are matched one by one). */
export const SEARCH_MAX_CHARS = 100;
/** A contains-match (claim number, rego, description word) needs a trigram to use its index. */
const CONTAINS_MIN_CHARS = 3;
/** Description words looked for, at most (each is one more condition on the same index). */
const MAX_WORDS = 6;
/** The part a label's code names (docs/labels.md), or null: not a code, or not a valid one. */
function partIdOfCode(text: string): number | null {
  if (!looksLikeLabelCode(text)) return null;
  try {
    return parseLabelCode(text);
  } catch {
    return null; // a mistyped code is still looked for as a part number
  }
}

/** `?q=`: trimmed, on one line, at most SEARCH_MAX_CHARS; absent is empty. */
const searchQuery = z.object({
  q: z.string().optional().transform((v) => (v ?? "").trim()).pipe(
    lineTextField.pipe(
      z.string().max(SEARCH_MAX_CHARS, { error: `must be at most ${SEARCH_MAX_CHARS} characters` }),
    ),
  ),
});

/** The text of a search request; throws ValidationError for a refused one (control character, too long). */
export const searchTextOf = (raw: Record<string, string>): string => parseInput(searchQuery, raw).q;

/**
 * What a text looks for among parts: a part number (any case) equal to it or starting with it, and
 * descriptions holding each of its words of 3 characters or more (a trigram each, for the index).
 */
export function partTextOf(text: string): PartText {
  return {
    partNo: text.toUpperCase(),
    words: text.split(/\s+/).filter((w) => [...w].length >= CONTAINS_MIN_CHARS).slice(0, MAX_WORDS),
  };
}

/** One kind's results: at most SEARCH_CAP rows, and whether more matched. */
export interface SearchGroup<T> {
  rows: T[];
  more: boolean;
}

export interface SearchResults {
  parts: SearchGroup<SearchPart & { exact: boolean }>;
  claims: SearchGroup<SearchClaim & { exact: boolean }>;
  drivers: SearchGroup<{ id: number; name: string; email: string; active: boolean }>;
  shops: SearchGroup<{ id: number; name: string; address: string | null; active: boolean }>;
}

export type SearchAnswer = { kind: "too_short" } | { kind: "results"; results: SearchResults };

/** Rows of several look-ups, in order, each id once, cut at the cap. */
function merged<T extends { id: number }>(
  lists: T[][],
  exact: (row: T) => boolean,
): SearchGroup<T & { exact: boolean }> {
  const seen = new Set<number>();
  const rows: (T & { exact: boolean })[] = [];
  for (const row of lists.flat()) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    rows.push({ ...row, exact: exact(row) });
  }
  return { rows: rows.slice(0, SEARCH_CAP), more: rows.length > SEARCH_CAP };
}

const capped = <T>(rows: T[]): SearchGroup<T> => ({
  rows: rows.slice(0, SEARCH_CAP),
  more: rows.length > SEARCH_CAP,
});

/**
 * Everything `text` finds. Parts: the part a label's code names, then part numbers equal to or starting
 * with the text (any case), then parts whose description holds each word of 3 characters or more. Claims:
 * the claim of that number and the claims of that rego, then those whose number or rego holds the text
 * (from 3 characters). Drivers and repair shops: name, e-mail or address holding the text.
 */
export async function searchEverything(db: Db, text: string): Promise<SearchAnswer> {
  if ([...text].length < SEARCH_MIN_CHARS) return { kind: "too_short" };
  const limit = SEARCH_CAP + 1;
  const { partNo, words } = partTextOf(text);
  const rego = normaliseRego(text);
  const codeId = partIdOfCode(text);
  const contains = [...text].length >= CONTAINS_MIN_CHARS;
  const [byCode, byNo, byWords, claimsExact, claimsContaining, drivers, shops] = await Promise.all([
    codeId === null ? [] : searchPartById(db, codeId),
    searchPartsByNo(db, partNo, limit),
    words.length > 0 ? searchPartsByWords(db, words, limit) : [],
    searchClaimsExact(db, text, rego, limit),
    contains ? searchClaimsContaining(db, text, rego.length >= CONTAINS_MIN_CHARS ? rego : null, limit) : [],
    searchDrivers(db, text, limit),
    searchShops(db, text, limit),
  ]);
  const codeIds = new Set(byCode.map((p) => p.id));
  return {
    kind: "results",
    results: {
      parts: merged(
        [byCode, byNo, byWords],
        (p) => codeIds.has(p.id) || p.part_no.toUpperCase() === partNo,
      ),
      claims: merged(
        [claimsExact, claimsContaining],
        (c) => c.claim_number === text || normaliseRego(c.registration) === rego,
      ),
      drivers: capped(drivers),
      shops: capped(shops),
    },
  };
}
