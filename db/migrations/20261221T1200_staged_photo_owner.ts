/**
 * Staged photos per uploader (docs/photos.md "Quotas", "Retakes", "Whose photo"). A submission accepts only
 * photos its own user staged (`uploaded_by`, set by call 2a since the first migration: nothing to add for
 * that). The quota counts each uploader's staged photos not yet submitted, and everyone's bytes, on every
 * upload; a retake marks the photo it replaces (`replaced_at`), which then no longer counts for its uploader,
 * cannot be submitted, and is removed a minute later (lib/photos/retakes.ts).
 *
 * `submitted`: whether a Deliver_Parts uses the staged row, kept by statement triggers on deliver_parts (an
 * insert names pickup images, a leg-2 update delivery images), so the quota reads only the rows not yet
 * submitted through a small partial index instead of testing a month of staged rows against Deliver_Parts
 * (55–100 ms a count at 60 000 staged rows on the embedded database, twice per upload). A row once used stays
 * used (D14: a staged image is used once; the purge's SET NULL only ever clears a reference).
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table uploaded_images add column replaced_at timestamptz,
    add column submitted boolean not null default false`.execute(db);
  await sql`update uploaded_images u set submitted = true
    where exists (select from deliver_parts d where d.pickup_image_id = u.id or d.delivery_image_id = u.id)`
    .execute(db);
  await sql`create function uploaded_images_submitted() returns trigger language plpgsql as $$
    begin
      update uploaded_images u set submitted = true
      where u.id in (select pickup_image_id from new_rows union all select delivery_image_id from new_rows)
        and not u.submitted;
      return null;
    end $$`.execute(db);
  // Transition tables allow no column list: every update of deliver_parts fires it, finding nothing to do
  // unless it named an image.
  for (const event of ["insert", "update"]) {
    await sql.raw(`create trigger deliver_parts_submitted_${event} after ${event} on deliver_parts
      referencing new table as new_rows for each statement execute function uploaded_images_submitted()`)
      .execute(db);
  }
  await sql`create index uploaded_images_staged on uploaded_images (uploaded_by, part_id)
    where photo_id is not null and not submitted`.execute(db);
  await sql`create index uploaded_images_replaced on uploaded_images (replaced_at)
    where replaced_at is not null`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index uploaded_images_replaced`.execute(db);
  await sql`drop index uploaded_images_staged`.execute(db);
  await sql`drop trigger deliver_parts_submitted_update on deliver_parts`.execute(db);
  await sql`drop trigger deliver_parts_submitted_insert on deliver_parts`.execute(db);
  await sql`drop function uploaded_images_submitted()`.execute(db);
  await sql`alter table uploaded_images drop column submitted, drop column replaced_at`.execute(db);
}
