/**
 * Small factories for test data: each call makes fresh rows with unique names, so tests never share
 * mutable fixtures. Only what a test names is fixed; the rest gets sensible defaults.
 */
import type { Db } from "@/db/client.ts";
import type { MovementStage, PartStatus, Role } from "@/db/schema.ts";
import { probeImage } from "@/io/image_probe.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { jpegPhoto } from "@/testkit/photos.ts";

let seq = 0;
const next = () => ++seq;

export async function makeHq(db: Db, name = `HQ ${next()}`) {
  return await db.insertInto("hq_locations").values({ name }).returningAll().executeTakeFirstOrThrow();
}

export async function makeRepairer(db: Db, name = `Repairer ${next()}`) {
  return await db.insertInto("repairers").values({ name, address: "1 Test St" }).returningAll()
    .executeTakeFirstOrThrow();
}

export async function makeUser(
  db: Db,
  opts: {
    role?: Role;
    email?: string;
    name?: string;
    active?: boolean;
    pinHash?: string | null;
    passwordHash?: string | null;
  } = {},
) {
  const n = next();
  return await db.insertInto("users").values({
    email: opts.email ?? `user${n}@depot.example`,
    name: opts.name ?? `User ${n}`,
    role: opts.role ?? "driver",
    active: opts.active ?? true,
    pin_hash: opts.pinHash ?? null,
    password_hash: opts.passwordHash ?? null,
  }).returningAll().executeTakeFirstOrThrow();
}

export interface PartSpec {
  status: PartStatus;
  part_no?: string;
  description?: string;
  qty?: number;
}

/**
 * A claim with parts. `management`: a repairer id, `null` for a management record without repairer,
 * `false` for no management record at all. Defaults to a fresh repairer.
 */
export async function makeClaim(
  db: Db,
  opts: {
    registration?: string;
    claimNumber?: string;
    management?: number | null | false;
    parts?: PartSpec[];
    createdAt?: Date;
  } = {},
) {
  const n = next();
  const claim = await db.insertInto("claims").values({
    claim_number: opts.claimNumber ?? `CLM-T${n}`,
    registration: opts.registration ?? `T${n}ZZ`,
    ...(opts.createdAt ? { created_at: opts.createdAt } : {}),
  }).returningAll().executeTakeFirstOrThrow();
  const management = opts.management === undefined ? (await makeRepairer(db)).id : opts.management;
  if (management !== false) {
    await db.insertInto("claim_management").values({ claim_id: claim.id, repairer_id: management }).execute();
  }
  const parts = [];
  for (const [i, spec] of (opts.parts ?? []).entries()) {
    parts.push(
      await db.insertInto("parts_orders").values({
        claim_id: claim.id,
        part_no: spec.part_no ?? `PN-${n}-${i + 1}`,
        description: spec.description ?? `Part ${i + 1} of claim ${n}`,
        qty_ordered: spec.qty ?? 1,
        status: spec.status,
      }).returningAll().executeTakeFirstOrThrow(),
    );
  }
  return { claim, parts };
}

/** A stored photo file and its `photos` row. */
export async function makePhoto(db: Db, storage: PhotoStore, bytes?: Uint8Array) {
  const data = bytes ?? await jpegPhoto();
  const { key, bytes: size } = await storage.writeStream(ReadableStream.from([data]), { maxBytes: 1 << 30 });
  const info = probeImage(data)!;
  return await db.insertInto("photos")
    .values({
      storage_key: key,
      content_type: info.type,
      byte_size: size,
      width: info.width,
      height: info.height,
    })
    .onConflict((oc) => oc.column("storage_key").doUpdateSet({ storage_key: key }))
    .returningAll().executeTakeFirstOrThrow();
}

/**
 * A staged photo (Parts_Uploaded_Images row) as if calls 2a and 2b had run: with a stored file unless
 * `withFile` is false (a token was minted but nothing uploaded).
 */
export async function stagePhoto(
  deps: { db: Db; storage: PhotoStore; clock: { now(): Date } },
  opts: { partId: number; claimId: number; stage: MovementStage; userId: number; withFile?: boolean },
) {
  const photo = opts.withFile === false ? null : await makePhoto(deps.db, deps.storage);
  return await deps.db.insertInto("uploaded_images").values({
    part_id: opts.partId,
    claim_id: opts.claimId,
    movement_stage: opts.stage,
    uploaded_by: opts.userId,
    uploaded_time: deps.clock.now(),
    photo_id: photo?.id ?? null,
  }).returningAll().executeTakeFirstOrThrow();
}
