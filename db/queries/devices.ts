/**
 * Queries of the devices table (enrolled depot tablets, docs/tablet.md "Enrolling a tablet"): only a device
 * token's SHA-256 is stored.
 */
import type { Db } from "@/db/client.ts";
import type { Device } from "@/db/schema.ts";

export async function insertDevice(
  db: Db,
  d: { name: string; tokenHash: string; enrolledBy: number | null; at: Date },
): Promise<Device> {
  return await db.insertInto("devices").values({
    name: d.name,
    token_hash: d.tokenHash,
    enrolled_by: d.enrolledBy,
    enrolled_at: d.at,
  }).returningAll().executeTakeFirstOrThrow();
}

export async function deviceByTokenHash(db: Db, tokenHash: string): Promise<Device | undefined> {
  return await db.selectFrom("devices").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
}

/** Records a use at `at`, unless one was recorded after `before` (a page of requests is one write). */
export async function touchDevice(db: Db, id: number, at: Date, before: Date): Promise<void> {
  await db.updateTable("devices").set({ last_used_at: at }).where("id", "=", id)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", before)]))
    .execute();
}

/** Every enrolled tablet with the name of the admin who enrolled it, newest first. */
export async function listDevices(db: Db) {
  return await db.selectFrom("devices").leftJoin("users", "users.id", "devices.enrolled_by")
    .select([
      "devices.id",
      "devices.name",
      "devices.enrolled_at",
      "devices.last_used_at",
      "users.name as enrolled_by_name",
    ])
    .orderBy("devices.enrolled_at", "desc").orderBy("devices.id", "desc")
    .execute();
}

/** Deletes a device; its name, undefined when there was none. */
export async function deleteDevice(db: Db, id: number): Promise<{ name: string } | undefined> {
  return await db.deleteFrom("devices").where("id", "=", id).returning("name").executeTakeFirst();
}
