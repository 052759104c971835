/**
 * Admin use cases for places: repair shops (add, rename, deactivate) and HQ locations (add).
 * A repair shop is never deleted: claims and movements refer to it. A deactivated one stays on old
 * records but is no longer offered as a destination.
 */
import type { Db } from "@/db/client.ts";
import { DomainError } from "@/lib/errors.ts";

function cleanName(name: string, what: string): string {
  const clean = name.trim().replace(/\s+/g, " ");
  if (!clean || clean.length > 200) {
    throw new DomainError(`Enter the ${what}'s name (at most 200 characters).`);
  }
  return clean;
}

function cleanAddress(address: string | undefined): string | null {
  const clean = address?.trim() ?? "";
  if (clean.length > 500) throw new DomainError("Keep the address under 500 characters.");
  return clean || null;
}

export async function addRepairer(db: Db, input: { name: string; address?: string }) {
  const name = cleanName(input.name, "repair shop");
  const row = await db.insertInto("repairers")
    .values({ name, address: cleanAddress(input.address) })
    .onConflict((oc) => oc.column("name").doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new DomainError(`A repair shop named ${name} already exists.`);
  return row;
}

/** Renames a repair shop (and sets its address). */
export async function updateRepairer(db: Db, input: { id: number; name: string; address?: string }) {
  const name = cleanName(input.name, "repair shop");
  return await db.transaction().execute(async (tx) => {
    const clash = await tx.selectFrom("repairers").select("id")
      .where("name", "=", name).where("id", "<>", input.id).executeTakeFirst();
    if (clash) throw new DomainError(`A repair shop named ${name} already exists.`);
    const row = await tx.updateTable("repairers")
      .set({ name, address: cleanAddress(input.address) })
      .where("id", "=", input.id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new DomainError("Repair shop not found.");
    return row;
  }).catch((error) => {
    // Two admins renaming to the same name at once: the unique index decides; say so plainly.
    if ((error as { code?: string }).code === "23505") {
      throw new DomainError(`A repair shop named ${name} already exists.`);
    }
    throw error;
  });
}

export async function setRepairerActive(db: Db, input: { id: number; active: boolean }) {
  const row = await db.updateTable("repairers").set({ active: input.active })
    .where("id", "=", input.id).returningAll().executeTakeFirst();
  if (!row) throw new DomainError("Repair shop not found.");
  return row;
}

export async function addHqLocation(db: Db, input: { name: string }) {
  const name = cleanName(input.name, "HQ location");
  const row = await db.insertInto("hq_locations").values({ name })
    .onConflict((oc) => oc.column("name").doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new DomainError(`An HQ location named ${name} already exists.`);
  return row;
}

export async function listHqLocations(db: Db) {
  return await db.selectFrom("hq_locations").select(["id", "name"]).orderBy("id").execute();
}
