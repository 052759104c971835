/**
 * Admin use cases for places: repair shops (add, edit with their details, deactivate) and HQ locations
 * (add, rename, place on the map). The details' rules are lib/places/details.ts.
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
  type PlaceUpdate,
  renamePlaceRow,
  updateRepairerActive,
} from "@/db/queries/places.ts";
import { DomainError } from "@/lib/errors.ts";
import {
  checkEmails,
  checkPhone,
  coordinatesFromForm,
  hoursFromForm,
  must,
  PlaceFieldError,
} from "@/lib/places/details.ts";
import { cleanFreeText, isLineText } from "@/lib/validation.ts";

/** The two kinds of place (by table), as the messages name them. */
const PLACES: Record<PlaceTable, { what: string; a: string }> = {
  repairers: { what: "repair shop", a: "A" },
  hq_locations: { what: "HQ location", a: "An" },
};

function cleanName(name: string, table: PlaceTable): string {
  const clean = name.trim().replace(/\s+/g, " ");
  if (!clean || clean.length > 200) {
    throw new PlaceFieldError("name", "", `Enter the ${PLACES[table].what}'s name (at most 200 characters).`);
  }
  if (!isLineText(clean)) {
    throw new PlaceFieldError(
      "name",
      "",
      `The ${PLACES[table].what}'s name must not contain control characters.`,
    );
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
  also: PlaceUpdate = {},
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
    throw new PlaceFieldError("address", "", "The address must not contain control characters.");
  }
  if (clean.length > 500) throw new PlaceFieldError("address", "", "Keep the address under 500 characters.");
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

/**
 * A place's details as the admin form sends them (text boxes). A field left out of the form (undefined)
 * keeps its value on an edit and is empty on a new place.
 */
export interface PlaceDetailsForm {
  address?: string;
  phone?: string;
  /** Addresses separated by commas, semicolons, spaces or lines. */
  emails?: string;
  latitude?: string;
  longitude?: string;
  /** As a person types them: "Mon–Fri 07:30–17:00, Sat 08:00–12:00" (lib/places/hours.ts). */
  openingHours?: string;
}

/** The coordinates of a form, when it has either box. */
function coordinatesOf(form: PlaceDetailsForm): PlaceUpdate {
  if (form.latitude === undefined && form.longitude === undefined) return {};
  return coordinatesFromForm(form.latitude ?? "", form.longitude ?? "");
}

/** A repair shop's details from its form, checked; only the fields the form holds. */
function repairerDetails(form: PlaceDetailsForm): PlaceUpdate {
  const out: PlaceUpdate = {};
  if (form.address !== undefined) out.address = cleanAddress(form.address);
  if (form.phone !== undefined) out.phone = must("phone", checkPhone(form.phone));
  if (form.emails !== undefined) out.emails = must("emails", checkEmails(form.emails));
  Object.assign(out, coordinatesOf(form));
  if (form.openingHours !== undefined) {
    const hours = hoursFromForm(form.openingHours);
    out.opening_hours = hours && JSON.stringify(hours);
  }
  return out;
}

export async function addRepairer(db: Db, input: { name: string; actorId: number } & PlaceDetailsForm) {
  const name = cleanName(input.name, "repairers");
  const details = repairerDetails({ address: "", ...input });
  return await createPlace(
    db,
    "repairers",
    name,
    input.actorId,
    (tx) => insertRepairerUnlessNameTaken(tx, { ...details, name, address: details.address ?? null }),
  );
}

/** Renames a repair shop and sets the details its form holds. */
export async function updateRepairer(
  db: Db,
  input: { id: number; name: string; actorId: number } & PlaceDetailsForm,
) {
  return await renamePlace(db, "repairers", input, repairerDetails(input));
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

type HqForm = { name: string; actorId: number } & Pick<PlaceDetailsForm, "latitude" | "longitude">;

export async function addHqLocation(db: Db, input: HqForm) {
  const name = cleanName(input.name, "hq_locations");
  const coordinates = coordinatesOf(input);
  return await createPlace(
    db,
    "hq_locations",
    name,
    input.actorId,
    (tx) => insertHqLocationUnlessNameTaken(tx, { name, ...coordinates }),
  );
}

/** Renames an HQ location and sets its coordinates when the form holds them. */
export async function renameHqLocation(db: Db, input: { id: number } & HqForm) {
  return await renamePlace(db, "hq_locations", input, coordinatesOf(input));
}
