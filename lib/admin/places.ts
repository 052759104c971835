/**
 * Admin use cases for places: repair shops (add, rename, deactivate) and HQ locations (add, rename).
 * A repair shop is never deleted: claims and movements refer to it. A deactivated one stays on old
 * records but is no longer offered as a destination.
 */
import type { Db } from "@/db/client.ts";
import {
  insertHqLocationUnlessNameTaken,
  insertRepairerUnlessNameTaken,
  placeNameTaken,
  type PlaceTable,
  renamePlaceRow,
  updateRepairerActive,
} from "@/db/queries/places.ts";
import { DomainError } from "@/lib/errors.ts";
import { cleanFreeText, isLineText } from "@/lib/validation.ts";

/** The two kinds of place (by table), as the messages name them. */
const PLACES: Record<PlaceTable, { what: string; a: string }> = {
  repairers: { what: "repair shop", a: "A" },
  hq_locations: { what: "HQ location", a: "An" },
};

function cleanName(name: string, table: PlaceTable): string {
  const clean = name.trim().replace(/\s+/g, " ");
  if (!clean || clean.length > 200) {
    throw new DomainError("invalid", `Enter the ${PLACES[table].what}'s name (at most 200 characters).`);
  }
  if (!isLineText(clean)) {
    throw new DomainError("invalid", `The ${PLACES[table].what}'s name must not contain control characters.`);
  }
  return clean;
}

function nameTaken(table: PlaceTable, name: string): DomainError {
  const { what, a } = PLACES[table];
  return new DomainError("conflict", `${a} ${what} named ${name} already exists.`);
}

function notFound(table: PlaceTable): DomainError {
  const { what } = PLACES[table];
  return new DomainError("not_found", `${what[0].toUpperCase()}${what.slice(1)} not found.`);
}

/**
 * Renames a place (setting `also` with it), refusing a name another place of its kind already has:
 * nothing changes then.
 */
async function renamePlace(
  db: Db,
  table: PlaceTable,
  input: { id: number; name: string },
  also: { address?: string | null } = {},
) {
  const name = cleanName(input.name, table);
  return await db.transaction().execute(async (tx) => {
    if (await placeNameTaken(tx, table, name, input.id)) throw nameTaken(table, name);
    const row = await renamePlaceRow(tx, table, input.id, name, also);
    if (!row) throw notFound(table);
    return row;
  }).catch((error) => {
    // Two admins renaming to the same name at once: the unique index decides; say so plainly.
    if ((error as { code?: string }).code === "23505") throw nameTaken(table, name);
    throw error;
  });
}

/** An address is free text (lib/validation.ts): line breaks kept, bidi controls stripped. */
function cleanAddress(address: string | undefined): string | null {
  const clean = cleanFreeText(address ?? "")?.trim();
  if (clean === undefined) {
    throw new DomainError("invalid", "The address must not contain control characters.");
  }
  if (clean.length > 500) throw new DomainError("invalid", "Keep the address under 500 characters.");
  return clean || null;
}

export async function addRepairer(db: Db, input: { name: string; address?: string }) {
  const name = cleanName(input.name, "repairers");
  const row = await insertRepairerUnlessNameTaken(db, { name, address: cleanAddress(input.address) });
  if (!row) throw nameTaken("repairers", name);
  return row;
}

/** Renames a repair shop (and sets its address). */
export async function updateRepairer(db: Db, input: { id: number; name: string; address?: string }) {
  return await renamePlace(db, "repairers", input, { address: cleanAddress(input.address) });
}

export async function setRepairerActive(db: Db, input: { id: number; active: boolean }) {
  const row = await updateRepairerActive(db, input.id, input.active);
  if (!row) throw notFound("repairers");
  return row;
}

export async function addHqLocation(db: Db, input: { name: string }) {
  const name = cleanName(input.name, "hq_locations");
  const row = await insertHqLocationUnlessNameTaken(db, name);
  if (!row) throw nameTaken("hq_locations", name);
  return row;
}

export async function renameHqLocation(db: Db, input: { id: number; name: string }) {
  return await renamePlace(db, "hq_locations", input);
}
