/**
 * The dashboard search box's reads (docs/search-box.md): each kind of thing it finds, at most `limit` rows
 * each, every one through an index at 1 000 000 claims / 3 000 000 parts (migrations
 * 20261121T0900_core, 20261215T0900_dashboard_indexes, 20261224T0900_search_box). The caller passes the
 * text already cut to what each look-up takes (lib/dashboard/search.ts): a part number in upper case, the
 * description's words, a normalised rego.
 */
import { type RawBuilder, sql, type SqlBool } from "kysely";
import type { Db } from "@/db/client.ts";
import { containsPattern, prefixPattern } from "@/db/queries/like.ts";

/** A part's number as the index `parts_orders_part_no_upper` holds it (upper case, C collation). */
const partNoKey = sql<string>`upper(p.part_no) collate "C"`;

/** The part number (upper case) is `partNo` or starts with it: one range of that index. */
const partNoStarts = (partNo: string) => sql<SqlBool>`${partNoKey} like ${prefixPattern(partNo)}`;

/** The description holds every one of `words` (any case): the trigram index `parts_orders_description_trgm`. */
const descriptionHolds = (words: readonly string[]) =>
  sql<SqlBool>`(${sql.join(words.map((w) => sql`p.description ilike ${containsPattern(w)}`), sql` and `)})`;

/** What a typed text looks for among parts (lib/dashboard/search.ts `partTextOf`). */
export interface PartText {
  /** Upper case: a part number equal to it or starting with it. */
  partNo: string;
  /** Words of 3 characters or more, each held by the description; none: the description is not looked at. */
  words: readonly string[];
}

/**
 * Parts (aliased `p`) whose number starts with the text or whose description holds its words: the search
 * box's parts and the parts list's "Part No. or description" filter (db/queries/parts.ts).
 */
export function partTextMatch({ partNo, words }: PartText): RawBuilder<SqlBool> {
  return words.length === 0
    ? partNoStarts(partNo)
    : sql<SqlBool>`(${partNoStarts(partNo)} or ${descriptionHolds(words)})`;
}

function partRows(db: Db) {
  return db.selectFrom("parts_orders as p")
    .innerJoin("claims as c", "c.id", "p.claim_id")
    .select([
      "p.id",
      "p.part_no",
      "p.description",
      "p.status",
      "c.claim_number",
      "c.registration",
    ]);
}

export type SearchPart = Awaited<ReturnType<ReturnType<typeof partRows>["execute"]>>[number];

/** The part with this id (a label's code names one), if it exists. */
export async function searchPartById(db: Db, id: number): Promise<SearchPart[]> {
  return await partRows(db).where("p.id", "=", id).execute();
}

/**
 * Parts whose number (upper case) is `partNo` or starts with it: the exact one first, then by number, one
 * range of `parts_orders_part_no_upper`.
 */
export async function searchPartsByNo(db: Db, partNo: string, limit: number): Promise<SearchPart[]> {
  return await partRows(db)
    .where(partNoStarts(partNo))
    .orderBy(partNoKey).orderBy("p.id")
    .limit(limit)
    .execute();
}

/** Parts whose description holds every one of `words` (3 characters or more: the trigram index), newest first. */
export async function searchPartsByWords(
  db: Db,
  words: readonly string[],
  limit: number,
): Promise<SearchPart[]> {
  return await partRows(db)
    .where(descriptionHolds(words))
    .orderBy("p.id", "desc")
    .limit(limit)
    .execute();
}

function claimRows(db: Db) {
  return db.selectFrom("claims as c")
    .leftJoin("claim_management as cm", "cm.claim_id", "c.id")
    .leftJoin("repairers as r", "r.id", "cm.repairer_id")
    .select(["c.id", "c.claim_number", "c.registration", "r.name as repairer_name"]);
}

export type SearchClaim = Awaited<ReturnType<ReturnType<typeof claimRows>["execute"]>>[number];

/** The claim numbered `text` and the claims of the rego `rego` (normalised), through their unique indexes. */
export async function searchClaimsExact(
  db: Db,
  text: string,
  rego: string,
  limit: number,
): Promise<SearchClaim[]> {
  return await claimRows(db)
    .where((eb) => eb.or([eb("c.claim_number", "=", text), eb("c.registration_norm", "=", rego)]))
    .orderBy("c.id", "desc")
    .limit(limit)
    .execute();
}

/**
 * Claims whose number holds `text` (any case) or whose rego holds `rego` (normalised; null: not looked
 * for), newest first: the trigram indexes of both, or the newest claims read backwards when most match.
 * The caller asks only with 3 characters or more (a trigram).
 */
export async function searchClaimsContaining(
  db: Db,
  text: string,
  rego: string | null,
  limit: number,
): Promise<SearchClaim[]> {
  return await claimRows(db)
    .where((eb) =>
      eb.or([
        eb("c.claim_number", "ilike", containsPattern(text)),
        ...(rego ? [eb("c.registration_norm", "like", containsPattern(rego))] : []),
      ])
    )
    .orderBy("c.id", "desc")
    .limit(limit)
    .execute();
}

/** Drivers whose name or e-mail holds `text` (any case), by name; the users table is small. */
export async function searchDrivers(db: Db, text: string, limit: number) {
  const pattern = containsPattern(text);
  return await db.selectFrom("users")
    .select(["id", "name", "email", "active"])
    .where("role", "=", "driver")
    .where((eb) => eb.or([eb("name", "ilike", pattern), eb("email", "ilike", pattern)]))
    .orderBy("active", "desc").orderBy("name").orderBy("id")
    .limit(limit)
    .execute();
}

/** Repair shops whose name or address holds `text` (any case), by name; the repairers table is small. */
export async function searchShops(db: Db, text: string, limit: number) {
  const pattern = containsPattern(text);
  return await db.selectFrom("repairers")
    .select(["id", "name", "address", "active"])
    .where((eb) => eb.or([eb("name", "ilike", pattern), eb("address", "ilike", pattern)]))
    .orderBy("active", "desc").orderBy("name").orderBy("id")
    .limit(limit)
    .execute();
}
