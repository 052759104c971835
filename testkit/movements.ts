/**
 * Helpers for the movement submission tests: a claim ready for a flow with staged photos, the three
 * payloads, and whole-database checks (nothing written, no orphan rows, history paths).
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { MovementStage, PartStatus } from "@/db/schema.ts";
import { FLOWS } from "@/lib/flows.ts";
import { findTransition } from "@/lib/part_status.ts";
import type { TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer, makeUser, stagePhoto } from "@/testkit/factories.ts";

export interface Item {
  parts_order_id: number | string;
  confirm: boolean;
  image_id?: number | string | null;
}

export const dropOffPayload = (
  email: string,
  rego: string,
  shop: { id: number | string; name?: string },
  parts: Item[],
) => ({
  event_type: "parts_drop_off",
  user_email: email,
  details: {
    rego,
    movement_type: "direct",
    delivery_location: { id: String(shop.id), name: shop.name ?? "Shop" },
    parts,
  },
});

export const pickUpPayload = (email: string, rego: string, parts: Item[]) => ({
  event_type: "parts_pick_up_reverse",
  user_email: email,
  details: { rego, movement_type: "reverse", delivery_location: "", parts },
});

export const dropOffReversePayload = (
  email: string,
  rego: string,
  movementId: number | string,
  parts: Item[],
) => ({
  event_type: "parts_drop_off_reverse",
  user_email: email,
  details: { rego, movement_type: "reverse", parts_movement_id: String(movementId), parts },
});

/** Confirmed items with their photo ids, as the app sends them (IDs as strings). */
export const confirmed = (pairs: { part: number; image: number }[]): Item[] =>
  pairs.map((p) => ({ parts_order_id: String(p.part), confirm: true, image_id: String(p.image) }));

/** A claim with `count` parts in `status`, a repairer, an HQ, a driver, and one staged photo per part. */
export async function flowSetup(
  a: TestApp,
  opts: {
    count?: number;
    status: PartStatus;
    stage?: MovementStage;
    registration?: string;
    photos?: boolean;
  },
) {
  const shop = await makeRepairer(a.db);
  const hq = await makeHq(a.db);
  const user = await makeUser(a.db, { role: "driver" });
  const { claim, parts } = await makeClaim(a.db, {
    registration: opts.registration,
    management: shop.id,
    parts: Array.from({ length: opts.count ?? 1 }, () => ({ status: opts.status })),
  });
  const images: number[] = [];
  if (opts.stage && opts.photos !== false) {
    for (const p of parts) {
      images.push(
        (await stagePhoto(a, { partId: p.id, claimId: claim.id, stage: opts.stage, userId: user.id })).id,
      );
    }
  }
  return {
    shop,
    hq,
    user,
    claim,
    parts,
    images,
    pairs: parts.map((p, i) => ({ part: p.id, image: images[i] })),
  };
}

/** Stages one photo per part for `userId` and returns the image ids. */
export async function stageFor(
  a: TestApp,
  parts: { id: number; claim_id: number }[],
  stage: MovementStage,
  userId: number,
): Promise<number[]> {
  const ids = [];
  for (const p of parts) {
    ids.push((await stagePhoto(a, { partId: p.id, claimId: p.claim_id, stage, userId })).id);
  }
  return ids;
}

/** Row counts of every table a submission writes. */
export async function writtenCounts(db: Db) {
  const r = await sql<Record<string, number>>`select
    (select count(*) from parts_movements)::int as movements,
    (select count(*) from deliver_parts)::int as deliver_parts,
    (select count(*) from deliver_parts where delivery)::int as delivered,
    (select count(*) from part_status_history where via = 'movement')::int as history,
    (select count(*) from announcements)::int as announcements,
    (select count(*) from claim_management where parts_movement_id is not null)::int as linked,
    (select string_agg(id || ':' || status, ',' order by id) from parts_orders) as statuses`.execute(db);
  return r.rows[0];
}

/** Every part's status. */
export async function statusOf(db: Db, id: number): Promise<PartStatus> {
  return (await db.selectFrom("parts_orders").select("status").where("id", "=", id).executeTakeFirstOrThrow())
    .status;
}

/** The transitions the state machine allows (D6, D20), plus the dispatcher's moves in the race tests. */
const MOVEMENT_STEPS: Record<string, PartStatus> = {
  "Arrived": "Delivered to Repair Shop directly",
  "Pending Repair Shop Pick-Up": "Picked Up from Repair Shop",
  "Picked Up from Repair Shop": "Returned to HQ",
};

/**
 * No orphans: every movement has Deliver_Parts, every Deliver_Parts' part carries the status its movement
 * gave it (with a history row of that movement), every history row of a movement has its Deliver_Parts,
 * and each part's history is a chain (each row starts where the previous ended, and ends at the part's
 * status), with movement steps only along the state machine.
 */
export async function assertConsistent(db: Db): Promise<void> {
  const empty = await sql<{ id: number }>`select m.id from parts_movements m
    where not exists (select 1 from deliver_parts d where d.movement_id = m.id)`.execute(db);
  assert.deepEqual(empty.rows, [], "movements without Deliver_Parts");
  const unflipped = await sql<{ id: number }>`select d.id from deliver_parts d
    join parts_movements m on m.id = d.movement_id
    where not exists (select 1 from part_status_history h where h.movement_id = d.movement_id
      and h.part_id = d.part_id and h.via = 'movement'
      and h.to_status = case when m.movement_type = 'direct' then 'Delivered to Repair Shop directly'
        else 'Picked Up from Repair Shop' end)
    or (d.delivery and m.movement_type = 'reverse' and not exists (select 1 from part_status_history h
      where h.movement_id = d.movement_id and h.part_id = d.part_id and h.to_status = 'Returned to HQ'))`
    .execute(db);
  assert.deepEqual(unflipped.rows, [], "Deliver_Parts without their status change");
  const stray = await sql<{ id: number }>`select h.id from part_status_history h where h.via = 'movement'
    and not exists (select 1 from deliver_parts d where d.movement_id = h.movement_id and d.part_id = h.part_id)`
    .execute(db);
  assert.deepEqual(stray.rows, [], "movement history without Deliver_Parts");

  const history = await db.selectFrom("part_status_history").selectAll().orderBy("part_id").orderBy("id")
    .execute();
  const parts = new Map(
    (await db.selectFrom("parts_orders").select(["id", "status"]).execute()).map((p) => [p.id, p.status]),
  );
  const last = new Map<number, PartStatus>();
  for (const h of history) {
    const prev = last.get(h.part_id);
    if (prev !== undefined) assert.equal(h.from_status, prev, `part ${h.part_id}: history is not a chain`);
    if (h.via === "movement") {
      assert.equal(MOVEMENT_STEPS[h.from_status!], h.to_status, `part ${h.part_id}: not a movement step`);
    }
    last.set(h.part_id, h.to_status);
  }
  for (const [partId, status] of last) {
    assert.equal(parts.get(partId), status, `part ${partId}: status ≠ history`);
  }
}

/** A driver (fresh user) e-mail. */
export async function driverEmail(a: TestApp): Promise<string> {
  return (await makeUser(a.db, { role: "driver" })).email;
}

/**
 * Every part's history is a path of the state machine, from where the part started: `initial` gives the
 * status of parts made without a history row (the factories insert parts directly); otherwise the path
 * starts with an import row. Each row starts where the previous one ended; a `movement` row is a step of a
 * flow (lib/flows.ts) and names its movement; a `dashboard` row is an allowed dispatcher transition
 * (lib/part_status.ts); an `import` row may set any status (a re-import). The part's status is where its
 * path ends (a part without history still has its initial status).
 */
export async function assertHistoryPaths(
  db: Db,
  initial: ReadonlyMap<number, PartStatus> = new Map(),
): Promise<void> {
  const history = await db.selectFrom("part_status_history").selectAll().orderBy("part_id").orderBy("id")
    .execute();
  const parts = await db.selectFrom("parts_orders").select(["id", "status"]).execute();
  const at = new Map<number, PartStatus | null>(parts.map((p) => [p.id, initial.get(p.id) ?? null]));
  for (const h of history) {
    const where = `part ${h.part_id}, history ${h.id} (${h.via}: ${h.from_status} → ${h.to_status})`;
    const prev = at.get(h.part_id);
    if (prev !== null) assert.equal(h.from_status, prev, `${where}: does not start where the path is`);
    else assert.equal(h.via, "import", `${where}: a path starts with the part's creation`);
    if (h.via === "movement") {
      assert.ok(
        Object.values(FLOWS).some((f) => f.from === h.from_status && f.to === h.to_status),
        `${where}: not a movement step`,
      );
      assert.notEqual(h.movement_id, null, `${where}: movement row without its movement`);
    } else if (h.via === "dashboard") {
      assert.ok(findTransition(h.from_status ?? "", h.to_status), `${where}: not a dispatcher transition`);
    }
    at.set(h.part_id, h.to_status);
  }
  for (const p of parts) {
    const end = at.get(p.id);
    if (end !== null) assert.equal(p.status, end, `part ${p.id}: status ${p.status} ≠ end of its history`);
  }
}

/** Asserts a submission is refused with exactly `text` (D8 envelope) and writes nothing. */
export async function assertRefused(a: TestApp, payload: unknown, text: string): Promise<void> {
  const before = await writtenCounts(a.db);
  const res = await a.handler(payload);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  assert.deepEqual(await res.json(), { result: { status: "failure", text }, code: 3000 });
  assert.deepEqual(await writtenCounts(a.db), before);
}
