/**
 * Staged photos per uploader, the SQL of their quotas and retakes (docs/photos.md "Quotas", "Retakes"):
 * what the quota counts, its bound on everyone's bytes, its lock, and the retakes' replaced rows.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { asCompilable, compiledQuery, type QueryRunner, type Tx } from "@/db/queries/compiled.ts";

/**
 * A staged row's photo counts while no Deliver_Parts uses the row (not yet submitted): `submitted`, kept by
 * triggers on deliver_parts, read through the partial index of the rows holding a photo not yet submitted.
 */
const notSubmitted = sql<boolean>`u.photo_id is not null and not u.submitted`;

export interface StagedUse {
  /**
   * The uploader's staged photos not yet submitted, leaving out those already replaced and those the
   * photo for this record would replace (a retake does not add).
   */
  uploaderPhotos: number;
  /**
   * Bytes of every staged photo not yet submitted, replaced ones included until they are removed: the
   * bound `staged_photo_bytes` keeps (never less than that), or the exact sum where a function says so.
   */
  totalBytes: number;
}

/** The uploader of staged record `recordId`: their photos as StagedUse counts them (their partial index). */
const uploaderPhotos = (recordId: number) =>
  sql<number>`(with me as
      (select uploaded_by, part_id, movement_stage from uploaded_images where id = ${recordId})
    select count(*) from uploaded_images u join me on u.uploaded_by = me.uploaded_by
    where ${notSubmitted} and u.replaced_at is null
      and not (u.part_id = me.part_id and u.movement_stage = me.movement_stage))::int`;

/** The exact bytes of every staged photo not yet submitted: a sum over all of them, for when the bound refuses. */
const exactStagedBytes = sql<number>`(select coalesce(sum(p.byte_size), 0)
  from uploaded_images u join photos p on p.id = u.photo_id where ${notSubmitted})`;

const stagedUse = compiledQuery((_db, recordId: number) =>
  asCompilable(sql<{ uploader_photos: number; total_bytes: number }>`
    select ${uploaderPhotos(recordId)} as uploader_photos,
      (select bytes from staged_photo_bytes)::float8 as total_bytes`)
);

/** What the quota counts around staged record `recordId`: its uploader's photos, everyone's bytes by the bound. */
export async function stagedUseAround(db: QueryRunner, recordId: number): Promise<StagedUse> {
  const row = await stagedUse.executeTakeFirstOrThrow(db, recordId);
  return { uploaderPhotos: row.uploader_photos, totalBytes: row.total_bytes };
}

const exactBytes = compiledQuery((_db) =>
  asCompilable(sql<{ total_bytes: number }>`select ${exactStagedBytes}::float8 as total_bytes`)
);

/** The exact bytes of every staged photo not yet submitted (a sum over them all: see stagedUseAround). */
export async function stagedBytesExactly(db: QueryRunner): Promise<number> {
  return (await exactBytes.executeTakeFirstOrThrow(db)).total_bytes;
}

const useAdding = compiledQuery((_db, recordId: number, bytes: number) =>
  asCompilable(sql<{ uploader_photos: number; total_bytes: number }>`
    with added as (update staged_photo_bytes set bytes = bytes + ${bytes}::bigint returning bytes)
    select ${uploaderPhotos(recordId)} as uploader_photos,
      (select bytes - ${bytes}::bigint from added)::float8 as total_bytes`)
);

/**
 * StagedUse around record `recordId` as stagedUseAround reads it, with `bytes` more added to the bound in the
 * same statement (the bytes before them in `totalBytes`): under the quota's lock, for the photo about to be
 * recorded. A refusal after it rolls the transaction back, and the addition with it.
 */
export async function stagedUseAdding(trx: Tx, recordId: number, bytes: number): Promise<StagedUse> {
  const row = await useAdding.executeTakeFirstOrThrow(trx, recordId, bytes);
  return { uploaderPhotos: row.uploader_photos, totalBytes: row.total_bytes };
}

const recount = compiledQuery((_db, adding: number) =>
  asCompilable(sql<{ total_bytes: number }>`
    update staged_photo_bytes set bytes = ${exactStagedBytes} + ${adding}::bigint
    returning (bytes - ${adding}::bigint)::float8 as total_bytes`)
);

/**
 * Sets the bound to the exact bytes (plus `adding`, a photo being recorded in the same transaction) and
 * returns the exact bytes. Under the quota's lock: no photo is recorded meanwhile.
 */
export async function recountStagedBytes(trx: Tx, adding = 0): Promise<number> {
  return (await recount.executeTakeFirstOrThrow(trx, adding)).total_bytes;
}

/** One key for every instance: uploads record their photo one at a time (a few milliseconds each). */
const quotaLock = compiledQuery((_db) =>
  asCompilable(sql`select pg_advisory_xact_lock(hashtext('parts-movement staged photo quota'))`)
);

/**
 * Until the transaction ends, no other upload counts or records a staged photo: the quota's count and the
 * record it allows are one step for everyone (READ COMMITTED: the count after the lock sees every photo
 * recorded before it).
 */
export async function lockStagedQuota(trx: Tx): Promise<void> {
  await quotaLock.execute(trx);
}

const replaceEarlier = compiledQuery((_db, recordId: number, now: Date) =>
  asCompilable(sql<{ id: number }>`
    update uploaded_images u set replaced_at = ${now}
    from uploaded_images n
    where n.id = ${recordId} and u.uploaded_by = n.uploaded_by and u.part_id = n.part_id
      and u.movement_stage = n.movement_stage and u.id <> n.id
      and u.photo_id is not null and u.replaced_at is null and ${notSubmitted}
    returning u.id`)
);

/**
 * A retake: the uploader's earlier staged photos for the same part and stage, not yet submitted, are marked
 * replaced by record `recordId`'s. Returns their ids.
 */
export async function replaceEarlierStaged(trx: Tx, recordId: number, now: Date): Promise<number[]> {
  return (await replaceEarlier.execute(trx, recordId, now)).map((r) => r.id);
}

/**
 * Deletes up to `limit` staged rows replaced before `cutoff` that no submission used meanwhile (their
 * tokens cascade); returns the photo ids they held.
 */
export async function deleteReplacedBefore(db: Db, cutoff: Date, limit: number): Promise<number[]> {
  const rows = await db.deleteFrom("uploaded_images")
    .where("id", "in", (eb) =>
      eb.selectFrom("uploaded_images as u").select("u.id")
        .where("u.replaced_at", "<", cutoff)
        .where(notSubmitted)
        .orderBy("u.id").limit(limit))
    .returning("photo_id")
    .execute();
  return rows.flatMap((r) => r.photo_id === null ? [] : [r.photo_id]);
}
