/**
 * The nine references checked once per statement (db/migrations/20261220T0900_set_based_references.ts)
 * hold as their foreign keys did: an insert or update naming a missing movement, part, user, image or
 * photo is refused with SQLSTATE 23503 and the key's name, so is deleting (or renumbering) a referenced row
 * (a deleted staged image is set null instead), and a delete
 * racing a writer waits for it and is refused (KEY SHARE, as the foreign key locked). The submissions
 * never leave a dangling reference.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { appTest } from "@/testkit/app.ts";
import { dbTest, serverTest } from "@/testkit/db.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { COUNTED_SUBMISSIONS } from "@/testkit/round_trips.ts";
import { lockWaiters } from "@/tests/helpers/races.ts";

/** The SQLSTATE and constraint of the error `write` fails with. */
async function violation(write: () => Promise<unknown>): Promise<{ code: string; constraint?: string }> {
  const error = await write().then(() => assert.fail("the write should have been refused"), (e) => e);
  assert.ok(typeof error?.code === "string", `a database error, got ${error}`);
  return { code: error.code, constraint: error.constraint };
}

async function refused(write: () => Promise<unknown>, constraint: string) {
  assert.deepEqual(await violation(write), { code: "23503", constraint });
}

const MISSING = 2_000_000_000;
const AT = new Date("2026-12-20T09:00:00Z");

/** A claim with three Arrived parts, a driver, a return trip of the claim, a photo and two staged images. */
async function fixture(db: Db) {
  const shop = await makeRepairer(db);
  const user = await makeUser(db);
  const { claim, parts } = await makeClaim(db, {
    management: shop.id,
    parts: [{ status: "Arrived" }, { status: "Arrived" }, { status: "Arrived" }],
  });
  const movement = await db.insertInto("parts_movements").values({
    claim_id: claim.id,
    movement_type: "reverse",
    movement_status: "Parts Picked Up",
    picked_up_by: user.id,
    pick_up_at: AT,
    location_type: "HQ",
    hq_location_id: (await db.insertInto("hq_locations").values({ name: `HQ ${claim.id}` })
      .returning("id").executeTakeFirstOrThrow()).id,
  }).returning("id").executeTakeFirstOrThrow();
  const photo = await db.insertInto("photos").values({
    storage_key: String(claim.id).padStart(64, "0"), // any 64 hex digits
    content_type: "image/jpeg",
    byte_size: 1,
    width: 1,
    height: 1,
  }).returning("id").executeTakeFirstOrThrow();
  const image = (partId: number) =>
    db.insertInto("uploaded_images").values({
      part_id: partId,
      claim_id: claim.id,
      movement_stage: "reverse_pickup",
      uploaded_by: user.id,
      uploaded_time: AT,
      photo_id: photo.id,
    }).returning("id").executeTakeFirstOrThrow();
  // Staged for the third part, so that the first two have no reference but the ones under test.
  const images = [await image(parts[2].id), await image(parts[2].id)];
  const delivery = (partId: number, movementId = movement.id) => ({
    movement_id: movementId,
    part_id: partId,
    pickup: true,
    delivery: false,
    qty_ordered: 1,
    pickup_image_id: images[parts.findIndex((p) => p.id === partId)]?.id ?? null,
    pickup_photo_id: photo.id,
  });
  const history = (partId: number, o: { movementId?: number | null; by?: number | null } = {}) => ({
    part_id: partId,
    from_status: "Arrived" as const,
    to_status: "Picked Up from Repair Shop" as const,
    changed_at: AT,
    changed_by: o.by === undefined ? user.id : o.by,
    via: "movement" as const,
    movement_id: o.movementId === undefined ? movement.id : o.movementId,
  });
  return { user, claim, parts, movement, photo, images, delivery, history };
}

dbTest(
  "references: an insert naming a missing movement, part, user, image or photo is refused, whole",
  async ({ db }) => {
    const f = await fixture(db);
    const [p1, p2] = f.parts;
    await refused(
      () => db.insertInto("deliver_parts").values([f.delivery(p1.id), f.delivery(p2.id, MISSING)]).execute(),
      "deliver_parts_movement_id_fkey",
    );
    await refused(
      () => db.insertInto("deliver_parts").values([f.delivery(p1.id), f.delivery(MISSING)]).execute(),
      "deliver_parts_part_id_fkey",
    );
    await refused(
      () =>
        db.insertInto("deliver_parts").values([f.delivery(p1.id), {
          ...f.delivery(p2.id),
          pickup_image_id: MISSING,
        }])
          .execute(),
      "deliver_parts_pickup_image_id_fkey",
    );
    const delivered = { delivery: true, delivery_image_id: f.images[1].id, delivery_photo_id: f.photo.id };
    for (const column of ["delivery_image_id", "delivery_photo_id"] as const) {
      await refused(
        () =>
          db.insertInto("deliver_parts").values({ ...f.delivery(p2.id), ...delivered, [column]: MISSING })
            .execute(),
        `deliver_parts_${column}_fkey`,
      );
    }
    await refused(
      () =>
        db.insertInto("deliver_parts").values({ ...f.delivery(p2.id), pickup_photo_id: MISSING }).execute(),
      "deliver_parts_pickup_photo_id_fkey",
    );
    await refused(
      () => db.insertInto("part_status_history").values([f.history(p1.id), f.history(MISSING)]).execute(),
      "part_status_history_part_id_fkey",
    );
    await refused(
      () => db.insertInto("part_status_history").values(f.history(p1.id, { movementId: MISSING })).execute(),
      "part_status_history_movement_id_fkey",
    );
    await refused(
      () => db.insertInto("part_status_history").values(f.history(p1.id, { by: MISSING })).execute(),
      "part_status_history_changed_by_fkey",
    );
    // Nothing of the refused statements was written; null references (a dashboard change) pass.
    const count = async () =>
      (await sql<{ n: number }>`select (select count(*) from deliver_parts)::int
      + (select count(*) from part_status_history)::int as n`.execute(db)).rows[0].n;
    assert.equal(await count(), 0);
    await db.insertInto("deliver_parts").values([f.delivery(p1.id), { ...f.delivery(p2.id), ...delivered }])
      .execute();
    await db.insertInto("part_status_history")
      .values([f.history(p1.id), { ...f.history(p2.id, { movementId: null, by: null }), via: "dashboard" }])
      .execute();
    assert.equal(await count(), 4);
  },
);

dbTest(
  "references: an update to a missing movement, part, user, image or photo is refused",
  async ({ db }) => {
    const f = await fixture(db);
    const [p1, p2] = f.parts;
    await db.insertInto("deliver_parts").values(f.delivery(p1.id)).execute();
    await db.insertInto("part_status_history").values(f.history(p1.id)).execute();
    const dp = db.updateTable("deliver_parts");
    await refused(() => dp.set({ movement_id: MISSING }).execute(), "deliver_parts_movement_id_fkey");
    await refused(() => dp.set({ part_id: MISSING }).execute(), "deliver_parts_part_id_fkey");
    await refused(() => dp.set({ pickup_image_id: MISSING }).execute(), "deliver_parts_pickup_image_id_fkey");
    await refused(() => dp.set({ pickup_photo_id: MISSING }).execute(), "deliver_parts_pickup_photo_id_fkey");
    const h = db.updateTable("part_status_history");
    await refused(() => h.set({ part_id: MISSING }).execute(), "part_status_history_part_id_fkey");
    await refused(() => h.set({ movement_id: MISSING }).execute(), "part_status_history_movement_id_fkey");
    await refused(() => h.set({ changed_by: MISSING }).execute(), "part_status_history_changed_by_fkey");
    // To rows that exist (or null where allowed): accepted.
    await dp.set({ part_id: p2.id }).execute();
    await h.set({ part_id: p2.id, movement_id: null, changed_by: null }).execute();
  },
);

dbTest(
  "references: a referenced movement, part, user or photo is not deleted or renumbered",
  async ({ db }) => {
    const f = await fixture(db);
    const [p1, p2] = f.parts;
    await db.insertInto("deliver_parts").values(f.delivery(p1.id)).execute();
    const dispatcher = await makeUser(db, { role: "dispatcher" });
    await db.insertInto("part_status_history").values(
      f.history(p2.id, { movementId: null, by: dispatcher.id }),
    )
      .execute();
    await refused(
      () => db.deleteFrom("parts_movements").where("id", "=", f.movement.id).execute(),
      "deliver_parts_movement_id_fkey",
    );
    await refused(
      () => db.deleteFrom("parts_orders").where("id", "=", p1.id).execute(),
      "deliver_parts_part_id_fkey",
    );
    await refused(
      () => db.deleteFrom("parts_orders").where("id", "=", p2.id).execute(),
      "part_status_history_part_id_fkey",
    );
    await refused(
      () => sql`update parts_orders set id = default where id = ${p1.id}`.execute(db),
      "deliver_parts_part_id_fkey",
    );
    await refused(
      () => db.deleteFrom("users").where("id", "=", dispatcher.id).execute(),
      "part_status_history_changed_by_fkey",
    );
    // The staged images go (the purge), and the Deliver_Parts forgets its image (ON DELETE SET NULL)...
    await db.deleteFrom("uploaded_images").execute();
    const row = await db.selectFrom("deliver_parts").select(["pickup_image_id", "pickup_photo_id"])
      .where("part_id", "=", p1.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { pickup_image_id: null, pickup_photo_id: f.photo.id });
    // ...but keeps its photo.
    await refused(
      () => db.deleteFrom("photos").where("id", "=", f.photo.id).execute(),
      "deliver_parts_pickup_photo_id_fkey",
    );
    // Checked at the end of the statement, as NO ACTION was: the references and the row go together.
    await sql`with d as (delete from deliver_parts where part_id = ${p1.id})
    delete from parts_orders where id = ${p1.id}`.execute(db);
    await db.deleteFrom("parts_movements").where("id", "=", f.movement.id).execute();
  },
);

serverTest("references: a delete racing a writer waits for it and is refused", async ({ db }) => {
  const f = await fixture(db);
  const [p1, p2] = f.parts;
  // The writer first: its check locks the part (KEY SHARE), the delete waits, then sees the reference.
  let deleted: Promise<unknown> = Promise.resolve();
  await db.transaction().execute(async (tx) => {
    await tx.insertInto("part_status_history").values(f.history(p1.id)).execute();
    deleted = db.deleteFrom("parts_orders").where("id", "=", p1.id).execute();
    deleted.catch(() => {}); // awaited below; the transaction commits first
    await lockWaiters(db, 1);
  });
  await refused(() => deleted, "part_status_history_part_id_fkey");
  // The delete first: the writer waits for it, then finds the part gone.
  let written: Promise<unknown> = Promise.resolve();
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("parts_orders").where("id", "=", p2.id).execute();
    written = db.insertInto("part_status_history").values(f.history(p2.id)).execute();
    written.catch(() => {}); // awaited below; the transaction commits first
    await lockWaiters(db, 1);
  });
  await refused(() => written, "part_status_history_part_id_fkey");
}, { poolSize: 3 });

appTest("references: the three submissions leave no reference dangling", async (a) => {
  for (const flow of COUNTED_SUBMISSIONS) {
    const answer = await (await flow.prepare(a, 3))();
    assert.equal(answer.result.status, "success", `${flow.name}: ${JSON.stringify(answer)}`);
  }
  const dangling = await sql<{ what: string }>`
    select 'deliver_parts.movement_id' as what from deliver_parts d
      where not exists (select 1 from parts_movements m where m.id = d.movement_id)
    union all select 'deliver_parts.part_id' from deliver_parts d
      where not exists (select 1 from parts_orders p where p.id = d.part_id)
    union all select 'part_status_history.part_id' from part_status_history h
      where not exists (select 1 from parts_orders p where p.id = h.part_id)
    union all select 'part_status_history.movement_id' from part_status_history h
      where h.movement_id is not null and not exists (select 1 from parts_movements m where m.id = h.movement_id)
    union all select 'part_status_history.changed_by' from part_status_history h
      where h.changed_by is not null and not exists (select 1 from users u where u.id = h.changed_by)`
    .execute(a.db);
  assert.deepEqual(dangling.rows, []);
  const counts = await sql<{ d: number; h: number }>`select (select count(*) from deliver_parts)::int as d,
    (select count(*) from part_status_history where via = 'movement')::int as h`.execute(a.db);
  // 3 + 3 + 3 Deliver_Parts (leg 2 updates its trip's), 3 + 3 + 6 history rows.
  assert.deepEqual(counts.rows[0], { d: 9, h: 12 });
});
