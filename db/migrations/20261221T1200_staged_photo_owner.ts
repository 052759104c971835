/**
 * Staged photos per uploader (docs/photos.md "Quotas" and "Retakes"): a submission accepts only photos its
 * own user staged (`uploaded_by`, set by call 2a since the first migration), the quota counts each uploader's
 * photos not yet submitted, and a retake marks the staged photo it replaces (`replaced_at`), which then no
 * longer counts for its uploader, cannot be submitted, and is removed a minute later
 * (lib/photos/retakes.ts).
 *
 * Two partial indexes, small by construction: the uploader's staged rows that hold a photo (the quota's
 * count and a retake's lookup), and the replaced rows waiting for removal.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table uploaded_images add column replaced_at timestamptz`.execute(db);
  await sql`create index uploaded_images_uploader on uploaded_images (uploaded_by, part_id)
    where photo_id is not null and replaced_at is null`.execute(db);
  await sql`create index uploaded_images_replaced on uploaded_images (replaced_at)
    where replaced_at is not null`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index uploaded_images_replaced`.execute(db);
  await sql`drop index uploaded_images_uploader`.execute(db);
  await sql`alter table uploaded_images drop column replaced_at`.execute(db);
}
