/**
 * Queries of the photo family: staged images (Parts_Uploaded_Images), upload tokens, stored photo rows
 * and their thumbnails, and what the purge (D19) asks. Functions that must run inside a transaction take
 * a `Transaction`; a conditional UPDATE … RETURNING decides races (token use), never a read then a write.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { MovementStage, Photo, UploadedImage } from "@/db/schema.ts";
import { asCompilable, compiledQuery, type QueryRunner, type Tx } from "@/db/queries/compiled.ts";

export interface NewStagedImage {
  partId: number;
  claimId: number;
  stage: MovementStage;
  userId: number;
  uploadedAt: Date;
}

/** Creates the staged row and its token together (call 2a). Returns the staged row's id. */
export async function insertStagedImageWithToken(
  trx: Tx,
  image: NewStagedImage,
  token: { hash: string; fieldName: string; expiresAt: Date },
): Promise<number> {
  const { id } = await trx.insertInto("uploaded_images").values({
    part_id: image.partId,
    claim_id: image.claimId,
    movement_stage: image.stage,
    uploaded_by: image.userId,
    uploaded_time: image.uploadedAt,
  }).returning("id").executeTakeFirstOrThrow();
  await trx.insertInto("upload_tokens").values({
    token_hash: token.hash,
    image_id: id,
    field_name: token.fieldName,
    expires_at: token.expiresAt,
  }).execute();
  return id;
}

export interface TokenBinding {
  hash: string;
  imageId: number;
  fieldName: string;
  now: Date;
}

// Compiled once (db/queries/compiled.ts): every upload runs both.
const usableToken = compiledQuery((db, hash: string, imageId: number, fieldName: string, now: Date) =>
  db.selectFrom("upload_tokens").select("token_hash")
    .where("token_hash", "=", hash)
    .where("image_id", "=", imageId)
    .where("field_name", "=", fieldName)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
);

/** Read-only: whether the token is unused, unexpired and bound to this record and field. */
export async function isTokenUsable(db: QueryRunner, t: TokenBinding): Promise<boolean> {
  return await usableToken.executeTakeFirst(db, t.hash, t.imageId, t.fieldName, t.now) !== undefined;
}

export interface NewPhoto {
  key: string;
  contentType: string;
  bytes: number;
  width: number;
  height: number;
  createdAt: Date;
}

const storeWithToken = compiledQuery((
  _db,
  hash: string,
  imageId: number,
  fieldName: string,
  now: Date,
  key: string,
  contentType: string,
  bytes: number,
  width: number,
  height: number,
  createdAt: Date,
) =>
  asCompilable(sql<{ photo_id: number }>`
    with image as (
      select id from uploaded_images where id = ${imageId} and photo_id is null for no key update
    ), token as (
      update upload_tokens set used_at = ${now}
      where token_hash = ${hash} and image_id = ${imageId} and field_name = ${fieldName}
        and used_at is null and expires_at > ${now} and image_id in (select id from image)
      returning image_id
    ), photo as (
      insert into photos (storage_key, content_type, byte_size, width, height, created_at)
      select ${key}, ${contentType}, ${bytes}, ${width}, ${height}, ${createdAt} where exists (select from token)
      -- A no-op update rather than DO NOTHING so RETURNING yields the existing row too.
      on conflict (storage_key) do update set storage_key = excluded.storage_key
      returning id
    )
    update uploaded_images set photo_id = photo.id from photo, token
    where uploaded_images.id = token.image_id
    returning photo.id as photo_id`)
);

/**
 * Records an upload's photo in ONE statement (one round trip, atomic by itself): uses the token if it is
 * still usable and its staged record holds no photo yet, upserts the photo row (content-addressed: the
 * existing row for the same bytes) and points the record at it. Returns the photo's id, or null with
 * nothing written (the token is used, expired or not this record's and field's). Of two uploads racing with
 * one token exactly one gets the id: the record's row is locked first (FOR NO KEY UPDATE, the lock its
 * UPDATE takes anyway, so a foreign-key check on it never waits; re-checked after a wait), then the token's
 * conditional UPDATE decides, and the photo row and the record depend on it.
 */
export async function storePhotoWithToken(
  db: QueryRunner,
  t: TokenBinding,
  p: NewPhoto,
): Promise<number | null> {
  const row = await storeWithToken.executeTakeFirst(
    db,
    t.hash,
    t.imageId,
    t.fieldName,
    t.now,
    p.key,
    p.contentType,
    p.bytes,
    p.width,
    p.height,
    p.createdAt,
  );
  return row?.photo_id ?? null;
}

/**
 * Records a photo committed to the store outside the upload tokens' path (a return request's photo):
 * content-addressed, so the same bytes give the existing row. Returns the row's id.
 */
export async function upsertPhoto(db: Db | Tx, p: NewPhoto): Promise<number> {
  const row = await db.insertInto("photos").values({
    storage_key: p.key,
    content_type: p.contentType,
    byte_size: p.bytes,
    width: p.width,
    height: p.height,
    created_at: p.createdAt,
  })
    // A no-op update rather than DO NOTHING so RETURNING yields the existing row too.
    .onConflict((oc) =>
      oc.column("storage_key").doUpdateSet((eb) => ({ storage_key: eb.ref("excluded.storage_key") }))
    )
    .returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A staged image (Parts_Uploaded_Images row) as a submission checks it: its part, stage, photo, and
 * whether a Deliver_Parts already uses it (D14).
 */
export interface StagedImageRow
  extends Pick<UploadedImage, "id" | "part_id" | "movement_stage" | "photo_id" | "uploaded_by"> {
  used: boolean;
  /** A retake by the same uploader replaced it (docs/photos.md "Retakes"). */
  replaced: boolean;
}

/**
 * The staged images with these ids (those that exist), for a submission's checks: a query to embed in the
 * submission's lock-and-read statement (submission_reads.ts).
 */
export function stagedImagesQuery(db: QueryRunner, imageIds: number[]) {
  return db.selectFrom("uploaded_images as u")
    .select([
      "u.id",
      "u.part_id",
      "u.movement_stage",
      "u.photo_id",
      "u.uploaded_by",
      sql<boolean>`u.replaced_at is not null`.as("replaced"),
      sql<boolean>`exists (select 1 from deliver_parts d
        where d.pickup_image_id = u.id or d.delivery_image_id = u.id)`.as("used"),
    ])
    .where("u.id", "=", sql<number>`any(${imageIds}::int[])`);
}

export async function photoById(db: QueryRunner, id: number): Promise<Photo | undefined> {
  return await db.selectFrom("photos").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Records the thumbnail unless another request changed it since we read `previous` (null, or a key
 * whose file went missing); returns the key now in force.
 */
export async function setThumbKey(db: Db, id: number, key: string, previous: string | null): Promise<string> {
  const updated = await db.updateTable("photos").set({ thumb_key: key })
    .where("id", "=", id)
    .where((eb) => previous === null ? eb("thumb_key", "is", null) : eb("thumb_key", "=", previous))
    .returning("thumb_key").executeTakeFirst();
  if (updated?.thumb_key) return updated.thumb_key;
  const row = await db.selectFrom("photos").select("thumb_key").where("id", "=", id).executeTakeFirst();
  return row?.thumb_key ?? key;
}

/**
 * Whether `userId` took photo `photoId` (a staged row, a return request or a handover image of theirs holds
 * it), drove a movement that shows it (picked up or dropped off, the tablet receipt's rule:
 * routes/tablet/receipt.tsx), or recorded the handover that shows it (docs/handover.md).
 */
export async function isPhotoOfDriver(db: QueryRunner, photoId: number, userId: number): Promise<boolean> {
  const row = await db.selectFrom("photos as p").select("p.id").where("p.id", "=", photoId)
    .where((eb) =>
      eb.or([
        eb.exists(
          eb.selectFrom("uploaded_images as u").select("u.id")
            .whereRef("u.photo_id", "=", "p.id").where("u.uploaded_by", "=", userId),
        ),
        eb.exists(
          eb.selectFrom("deliver_parts as d").innerJoin("parts_movements as m", "m.id", "d.movement_id")
            .select("d.id")
            .where((w) =>
              w.or([w("d.pickup_photo_id", "=", photoId), w("d.delivery_photo_id", "=", photoId)])
            )
            .where((w) => w.or([w("m.picked_up_by", "=", userId), w("m.dropped_off_by", "=", userId)])),
        ),
        eb.exists(
          eb.selectFrom("return_requests as r").select("r.id")
            .whereRef("r.photo_id", "=", "p.id").where("r.requested_by", "=", userId),
        ),
        eb.exists(
          eb.selectFrom("handover_images as h").select("h.id")
            .whereRef("h.photo_id", "=", "p.id").where("h.uploaded_by", "=", userId),
        ),
        eb.exists(
          eb.selectFrom("handovers as h").select("h.movement_id")
            .where((w) => w.or([w("h.signature_photo_id", "=", photoId), w("h.left_photo_id", "=", photoId)]))
            .where("h.recorded_by", "=", userId),
        ),
      ])
    )
    .executeTakeFirst();
  return row !== undefined;
}
