/**
 * The staged photos' bytes, kept as a bound (docs/photos.md "Quotas"): `staged_photo_bytes` holds one number,
 * never less than the bytes of every staged photo not yet submitted. Each upload adds its bytes under the
 * quota's lock; a submission, a retake's removal or the purge takes none away, so the number only runs
 * ahead of the truth, and the quota counts the truth again (and writes it here) only when the number alone
 * would refuse an upload, and on each purge. The sum over every staged row, which the quota used to take
 * twice per upload (the second time under the one lock of every instance), grew with the rows waiting to
 * be submitted: at 6 000 of them, about 14 ms a count on the server, and uploads ran at 0.45 of the bare
 * baseline instead of 0.8 (docs/performance.md "Upload path").
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table staged_photo_bytes (
    only_row boolean primary key default true check (only_row),
    bytes bigint not null check (bytes >= 0)
  )`.execute(db);
  await sql`insert into staged_photo_bytes (bytes)
    select coalesce(sum(p.byte_size), 0) from uploaded_images u join photos p on p.id = u.photo_id
    where not u.submitted`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table staged_photo_bytes`.execute(db);
}
