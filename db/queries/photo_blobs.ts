/**
 * Queries of the postgres photo store (io/photo_stores/postgres.ts): `photo_blobs` (one row per stored
 * photo) and `photo_blob_chunks` (its bytes, in order). A photo is written in one transaction, so a reader
 * finds a blob row only once every chunk of it is there.
 *
 * Chunk bytes travel as base64 text through `decode`/`encode` rather than as bytea values: PGlite turns a
 * bytea parameter or result into hex text in JavaScript, which measured 2x slower to write and 5x slower to
 * read a 1 MiB chunk than base64 (native on both sides); on a server the difference is small either way.
 */
import { Buffer } from "node:buffer";
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";

/** Claims `key` for a new photo; false if it is stored already (waits for a concurrent writer of it). */
export async function insertBlobIfAbsent(trx: Tx, key: string, bytes: number, at: Date): Promise<boolean> {
  const row = await trx.insertInto("photo_blobs").values({ key, byte_size: bytes, modified_at: at })
    .onConflict((oc) => oc.column("key").doNothing()).returning("key").executeTakeFirst();
  return row !== undefined;
}

/** A deduplicated upload of a stored photo refreshes its time, so a purge deciding about it keeps it. */
export async function touchBlob(trx: Tx, key: string, at: Date): Promise<void> {
  await trx.updateTable("photo_blobs").set({ modified_at: at }).where("key", "=", key).execute();
}

const base64 = (data: Uint8Array) =>
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");

/** Writes one chunk; returns the SHA-256 (hex) of the bytes as the database stored them. */
export async function insertChunk(trx: Tx, key: string, seq: number, data: Uint8Array): Promise<string> {
  const row = await trx.insertInto("photo_blob_chunks")
    .values({ key, seq, data: sql<Uint8Array>`decode(${base64(data)}, 'base64')` })
    .returning(sql<string>`encode(sha256(data), 'hex')`.as("sha256")).executeTakeFirstOrThrow();
  return row.sha256;
}

export async function blobInfo(db: Db, key: string): Promise<{ bytes: number; modified: Date } | null> {
  const row = await db.selectFrom("photo_blobs").select(["byte_size", "modified_at"])
    .where("key", "=", key).executeTakeFirst();
  return row ? { bytes: Number(row.byte_size), modified: row.modified_at } : null;
}

/** Chunk `seq` of a photo (chunks are numbered from 0 without gaps), or null past the last. */
export async function blobChunk(db: Db, key: string, seq: number): Promise<Uint8Array | null> {
  const row = await db.selectFrom("photo_blob_chunks").select(sql<string>`encode(data, 'base64')`.as("data"))
    .where("key", "=", key).where("seq", "=", seq).executeTakeFirst();
  // Buffer's base64 decoder skips the line breaks PostgreSQL's encode puts every 76 characters.
  return row ? Buffer.from(row.data, "base64") : null;
}

/** Deletes a photo and its chunks; with `olderThan`, only if last written before it. */
export async function deleteBlob(db: Db, key: string, olderThan?: Date): Promise<boolean> {
  let q = db.deleteFrom("photo_blobs").where("key", "=", key);
  if (olderThan) q = q.where("modified_at", "<", olderThan);
  const result = await q.executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Up to `limit` stored keys after `after`, in order (paging through every key). */
export async function blobKeysAfter(db: Db, after: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom("photo_blobs").select("key").where("key", ">", after)
    .orderBy("key").limit(limit).execute();
  return rows.map((r) => r.key);
}

class ProbeRollback extends Error {}

/** Proves the photo tables take a write now: inserts a blob and a chunk in a transaction rolled back. */
export async function probeBlobWrite(db: Db): Promise<void> {
  try {
    await db.transaction().execute(async (trx) => {
      const key = "0".repeat(64);
      await trx.insertInto("photo_blobs").values({ key, byte_size: 1, modified_at: new Date() })
        .onConflict((oc) => oc.column("key").doUpdateSet({ byte_size: 1 })).execute();
      await trx.insertInto("photo_blob_chunks").values({ key, seq: 1_000_000, data: new Uint8Array([1]) })
        .execute();
      throw new ProbeRollback();
    });
  } catch (error) {
    if (!(error instanceof ProbeRollback)) throw error;
  }
}
