/**
 * A return request may carry one photo of the parts at the shop (docs/return-requests.md "Photo"), sent by
 * the tablet after the request itself. The foreign key keeps the photo from the purge while the request
 * names it (db/queries/photo_purge.ts).
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table return_requests add column photo_id integer references photos(id)`.execute(db);
  // The purge's "is this photo referenced" probe looks a photo up here.
  await sql`create index return_requests_photo on return_requests (photo_id) where photo_id is not null`
    .execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table return_requests drop column photo_id`.execute(db);
}
