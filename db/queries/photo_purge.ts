/**
 * The photo purge's queries (D19, lib/photos/purge.ts): old staged rows, photo rows nothing references and
 * the file keys still named. What counts as a reference is `unreferenced` below: every table whose rows hold
 * a photo (a staged row, a Deliver_Parts row, a return request, a shop's problem report) keeps it; a new holder of photos adds itself
 * there, with a foreign key that backs the check up against a reference made meanwhile.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";

/** Deletes up to `limit` staged rows uploaded before `cutoff` (their tokens cascade); returns how many. */
export async function deleteStagedBefore(db: Db, cutoff: Date, limit: number): Promise<number> {
  const rows = await db.deleteFrom("uploaded_images")
    .where(
      "id",
      "in",
      (eb) =>
        eb.selectFrom("uploaded_images").select("id").where("uploaded_time", "<", cutoff).orderBy("id").limit(
          limit,
        ),
    )
    .returning("id")
    .execute();
  return rows.length;
}

/** A condition: no row of any table that holds photos references photo `p`. */
const unreferenced = sql<boolean>`not exists (select 1 from uploaded_images u where u.photo_id = p.id)
  and not exists (select 1 from deliver_parts d where d.pickup_photo_id = p.id or d.delivery_photo_id = p.id)
  and not exists (select 1 from return_requests r where r.photo_id = p.id)
  and not exists (select 1 from shop_problem_reports s where s.photo_id = p.id)`;

/** Ids (ascending, after `afterId`) of photo rows created before `before` that nothing references. */
export async function unreferencedPhotoIds(
  db: Db,
  before: Date,
  afterId: number,
  limit: number,
): Promise<number[]> {
  const rows = await db.selectFrom("photos as p").select("p.id")
    .where("p.id", ">", afterId)
    .where("p.created_at", "<", before)
    .where(unreferenced)
    .orderBy("p.id").limit(limit).execute();
  return rows.map((r) => r.id);
}

/**
 * Deletes the photo row if still unreferenced; returns its file keys, or null if it was kept. The
 * foreign keys to photos back the NOT EXISTS up: a reference committed meanwhile makes the delete fail
 * (foreign key violation), which counts as kept.
 */
export async function deletePhotoIfUnreferenced(
  db: Db,
  id: number,
): Promise<{ storage_key: string; thumb_key: string | null } | null> {
  try {
    const row = await db.deleteFrom("photos as p").where("p.id", "=", id).where(unreferenced)
      .returning(["p.storage_key", "p.thumb_key"]).executeTakeFirst();
    return row ?? null;
  } catch (error) {
    if ((error as { code?: string }).code === "23503") return null;
    throw error;
  }
}

/** Which of these file keys a photo row still names, as its photo or its thumbnail. */
export async function keysInUse(db: QueryRunner, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom("photos").select(["storage_key", "thumb_key"])
    .where((eb) => eb.or([eb("storage_key", "in", keys), eb("thumb_key", "in", keys)]))
    .execute();
  const used = new Set<string>();
  for (const r of rows) {
    used.add(r.storage_key);
    if (r.thumb_key) used.add(r.thumb_key);
  }
  return new Set(keys.filter((k) => used.has(k)));
}
