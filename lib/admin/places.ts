/**
 * Admin use cases for places: repair shops (add, rename, deactivate) and HQ locations (add, rename).
 * A repair shop is never deleted: claims and movements refer to it. A deactivated one stays on old
 * records but is no longer offered as a destination.
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import {
  insertHqLocationUnlessNameTaken,
  insertRepairerUnlessNameTaken,
  placeNameTaken,
  placeRowForUpdate,
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

/** The audit subject of a place: `repairer:<id>` or `hq_location:<id>`. */
const subjectOf = (table: PlaceTable, id: number) =>
  `${table === "repairers" ? "repairer" : "hq_location"}:${id}`;

/** A place's audited fields (no id: the subject names it). */
const fieldsOf = (row: Record<string, unknown>) => {
  const { id: _id, ...fields } = row;
  return fields;
};

/**
 * Changes a place's row with `change` (inside the transaction, after its row is locked) and writes the
 * audit entry with the row before and after.
 */
async function editPlace<R extends { id: number }>(
  tx: Db,
  table: PlaceTable,
  id: number,
  actorId: number,
  change: () => Promise<R | undefined>,
): Promise<R> {
  const before = await placeRowForUpdate(tx, table, id);
  if (!before) throw notFound(table);
  const row = await change();
  if (!row) throw notFound(table);
  const after = await placeRowForUpdate(tx, table, id);
  await insertAuditEntry(tx, {
    actorId,
    action: "place.edit",
    subject: subjectOf(table, id),
    before: fieldsOf(before),
    after: fieldsOf(after ?? {}),
  });
  return row;
}

/**
 * Renames a place (setting `also` with it), refusing a name another place of its kind already has:
 * nothing changes then.
 */
async function renamePlace(
  db: Db,
  table: PlaceTable,
  input: { id: number; name: string; actorId: number },
  also: { address?: string | null } = {},
) {
  const name = cleanName(input.name, table);
  return await db.transaction().execute(async (tx) => {
    if (await placeNameTaken(tx, table, name, input.id)) throw nameTaken(table, name);
    return await editPlace(
      tx,
      table,
      input.id,
      input.actorId,
      () => renamePlaceRow(tx, table, input.id, name, also),
    );
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

/** Writes a new place and its audit entry in one transaction; undefined from `insert` = name taken. */
async function createPlace<R extends { id: number }>(
  db: Db,
  table: PlaceTable,
  name: string,
  actorId: number,
  insert: (tx: Db) => Promise<R | undefined>,
): Promise<R> {
  return await db.transaction().execute(async (tx) => {
    const row = await insert(tx);
    if (!row) throw nameTaken(table, name);
    await insertAuditEntry(tx, {
      actorId,
      action: "place.create",
      subject: subjectOf(table, row.id),
      after: fieldsOf(row),
    });
    return row;
  });
}

export async function addRepairer(db: Db, input: { name: string; address?: string; actorId: number }) {
  const name = cleanName(input.name, "repairers");
  const address = cleanAddress(input.address);
  return await createPlace(
    db,
    "repairers",
    name,
    input.actorId,
    (tx) => insertRepairerUnlessNameTaken(tx, { name, address }),
  );
}

/** Renames a repair shop (and sets its address). */
export async function updateRepairer(
  db: Db,
  input: { id: number; name: string; address?: string; actorId: number },
) {
  return await renamePlace(db, "repairers", input, { address: cleanAddress(input.address) });
}

export async function setRepairerActive(db: Db, input: { id: number; active: boolean; actorId: number }) {
  return await db.transaction().execute((tx) =>
    editPlace(
      tx,
      "repairers",
      input.id,
      input.actorId,
      () => updateRepairerActive(tx, input.id, input.active),
    )
  );
}

export async function addHqLocation(db: Db, input: { name: string; actorId: number }) {
  const name = cleanName(input.name, "hq_locations");
  return await createPlace(
    db,
    "hq_locations",
    name,
    input.actorId,
    (tx) => insertHqLocationUnlessNameTaken(tx, name),
  );
}

export async function renameHqLocation(db: Db, input: { id: number; name: string; actorId: number }) {
  return await renamePlace(db, "hq_locations", input);
}
