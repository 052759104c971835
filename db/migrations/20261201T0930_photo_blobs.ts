/**
 * `PHOTO_STORE=postgres` (io/photo_stores/postgres.ts): photo bytes in the database itself, so several
 * instances on one PostgreSQL server share photos with no other component. A photo is one `photo_blobs`
 * row (its content address, size and last write) and its bytes in `photo_blob_chunks` rows of at most
 * 1 MiB each, so neither side ever holds a whole photo in one value. Both are written in one transaction:
 * a reader sees a whole photo or none. The tables exist (empty) whatever the configured store, so a store
 * can be switched to `postgres` with `deno task photos:migrate` at any time.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable("photo_blobs")
    .addColumn("key", "text", (c) => c.primaryKey().check(sql`key ~ '^[0-9a-f]{64}$'`))
    .addColumn("byte_size", "bigint", (c) => c.notNull().check(sql`byte_size > 0`))
    .addColumn("modified_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createTable("photo_blob_chunks")
    .addColumn("key", "text", (c) => c.notNull().references("photo_blobs.key").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull().check(sql`seq >= 0`))
    .addColumn("data", "bytea", (c) => c.notNull())
    .addPrimaryKeyConstraint("photo_blob_chunks_pkey", ["key", "seq"])
    .execute();
  // Photos are already compressed (JPEG, WebP, HEIC): stored out of line without a compression attempt.
  await sql`alter table photo_blob_chunks alter column data set storage external`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("photo_blob_chunks").execute();
  await db.schema.dropTable("photo_blobs").execute();
}
