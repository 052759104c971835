/**
 * Proof of handover (docs/handover.md): the receiver's name and signature, or why nobody signed with a photo
 * of where the parts were left, per movement leg; the admin's policy per leg; the images the tablet sends
 * before its submission.
 *
 * - `handover_policies`: one row per leg whose policy an admin set; a leg without a row has its default
 *   (lib/handover/policy.ts).
 * - `handover_images`: a signature or left-at photo a driver sent, staged like a part's photo: it belongs to
 *   its uploader and is unused (`movement_id` null) until a submission takes it, in the movement's
 *   transaction, for one leg; unused ones older than 30 days go with the purge (D19).
 * - `handovers`: what was recorded, with its digest; the foreign keys to photos keep the images from the
 *   purge (db/queries/photo_purge.ts).
 */
import { type Kysely, sql } from "kysely";

const LEGS = sql.raw(`('direct_dropoff', 'reverse_pickup', 'reverse_dropoff')`);

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table handover_policies (
    leg text primary key check (leg in ${LEGS}),
    policy text not null check (policy in ('required', 'optional', 'off')),
    updated_by integer not null references users(id),
    updated_at timestamptz not null
  )`.execute(db);
  await sql`create table handover_images (
    id integer primary key generated always as identity,
    kind text not null check (kind in ('signature', 'left')),
    photo_id integer not null references photos(id),
    uploaded_by integer not null references users(id),
    uploaded_at timestamptz not null,
    movement_id integer references parts_movements(id),
    leg text check (leg in ${LEGS}),
    check ((movement_id is null) = (leg is null))
  )`.execute(db);
  // The purge's "is this photo referenced" probe and its sweep of unused rows.
  await sql`create index handover_images_photo on handover_images (photo_id)`.execute(db);
  await sql`create index handover_images_unused on handover_images (uploaded_at) where movement_id is null`
    .execute(db);
  await sql`create table handovers (
    movement_id integer not null references parts_movements(id),
    leg text not null check (leg in ${LEGS}),
    receiver_name text check (length(receiver_name) between 1 and 100),
    signature_photo_id integer references photos(id),
    unsigned_reason text check (unsigned_reason in ('shop_closed', 'left_at_agreed_place', 'receiver_refused')),
    left_photo_id integer references photos(id),
    recorded_at timestamptz not null,
    recorded_by integer not null references users(id),
    digest text not null check (digest ~ '^[0-9a-f]{64}$'),
    primary key (movement_id, leg),
    check ((receiver_name is null) = (signature_photo_id is null)),
    check ((unsigned_reason is null) = (left_photo_id is null)),
    check ((receiver_name is null) <> (unsigned_reason is null))
  )`.execute(db);
  await sql`create index handovers_signature on handovers (signature_photo_id)
    where signature_photo_id is not null`.execute(db);
  await sql`create index handovers_left on handovers (left_photo_id) where left_photo_id is not null`
    .execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table handovers`.execute(db);
  await sql`drop table handover_images`.execute(db);
  await sql`drop table handover_policies`.execute(db);
}
