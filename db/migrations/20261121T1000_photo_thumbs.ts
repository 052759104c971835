/**
 * Thumbnails (GET /photos/:id/thumb): made once on first request and kept in photo storage like any
 * photo file (content-addressed); the photo row remembers the thumbnail's key. Null until made, and
 * for photos no thumbnail can be made of (HEIC: the prebuilt decoder has no HEVC).
 *
 * Plus the indexes the photo purge (D19) needs: it asks "does any staged row or Deliver_Parts use this
 * photo?" and "does any row name this file?", and deleting a photo row makes PostgreSQL check the same
 * foreign keys; without these each of those is a full scan.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("photos")
    .addColumn("thumb_key", "text", (c) => c.check(sql`thumb_key ~ '^[0-9a-f]{64}$'`))
    .execute();
  await sql`create index photos_thumb_key on photos (thumb_key) where thumb_key is not null`.execute(db);
  await sql`create index uploaded_images_photo on uploaded_images (photo_id) where photo_id is not null`
    .execute(db);
  await db.schema.createIndex("deliver_parts_pickup_photo").on("deliver_parts").column("pickup_photo_id")
    .execute();
  await sql`create index deliver_parts_delivery_photo on deliver_parts (delivery_photo_id)
    where delivery_photo_id is not null`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (
    const index of [
      "deliver_parts_delivery_photo",
      "deliver_parts_pickup_photo",
      "uploaded_images_photo",
      "photos_thumb_key",
    ]
  ) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.alterTable("photos").dropColumn("thumb_key").execute();
}
