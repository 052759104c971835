/**
 * Queries of the devices table (enrolled depot tablets, docs/tablet.md "Enrolling a tablet"): only a device
 * token's SHA-256 is stored.
 */
import type { Db } from "@/db/client.ts";
import type { Device } from "@/db/schema.ts";

export async function insertDevice(
  db: Db,
  d: { name: string; tokenHash: string; enrolledBy: number | null; at: Date; browser?: string | null },
): Promise<Device> {
  return await db.insertInto("devices").values({
    name: d.name,
    token_hash: d.tokenHash,
    enrolled_by: d.enrolledBy,
    enrolled_at: d.at,
    browser: d.browser ?? null,
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

/** A sign-in on the tablet: who signed in (the last driver), its browser's summary, a use at `at`. */
export async function recordDeviceSignIn(
  db: Db,
  d: { id: number; userId: number; browser: string | null; at: Date },
): Promise<void> {
  await db.updateTable("devices")
    .set((eb) => ({
      last_user_id: d.userId,
      last_used_at: d.at,
      browser: d.browser === null ? eb.ref("browser") : d.browser,
    }))
    .where("id", "=", d.id).execute();
}

/** A device's name, its row locked until the transaction ends (a rename's "before"). */
export async function deviceNameForUpdate(db: Db, id: number): Promise<{ name: string } | undefined> {
  return await db.selectFrom("devices").select("name").where("id", "=", id).forUpdate().executeTakeFirst();
}

export async function setDeviceName(db: Db, id: number, name: string): Promise<void> {
  await db.updateTable("devices").set({ name }).where("id", "=", id).execute();
}

/**
 * Every enrolled tablet with the name of the admin who enrolled it, its last driver (the last user who
 * signed in on it) and its browser's summary, newest first.
 */
export async function listDevices(db: Db) {
  return await db.selectFrom("devices")
    .leftJoin("users", "users.id", "devices.enrolled_by")
    .leftJoin("users as last_user", "last_user.id", "devices.last_user_id")
    .select([
      "devices.id",
      "devices.name",
      "devices.enrolled_at",
      "devices.last_used_at",
      "devices.browser",
      "users.name as enrolled_by_name",
      "last_user.name as last_driver_name",
    ])
    .orderBy("devices.enrolled_at", "desc").orderBy("devices.id", "desc")
    .execute();
}

/** Deletes a device; its name, undefined when there was none. */
export async function deleteDevice(db: Db, id: number): Promise<{ name: string } | undefined> {
  return await db.deleteFrom("devices").where("id", "=", id).returning("name").executeTakeFirst();
}
