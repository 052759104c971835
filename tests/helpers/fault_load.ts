/**
 * Load for the fault tests: claims with parts and staged photos seeded directly in the database, one
 * submission each (direct drop-offs and reverse pickups, alternating), a bounded pool of concurrent
 * callers, and the whole-database checks that must hold after any fault: no half movement, every part's
 * status agrees with its Deliver_Parts and its history, every movement has its announcement rows.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { AnnouncementTitle, PartStatus } from "@/db/schema.ts";
import { ANNOUNCEMENT_CHANNELS } from "@/lib/announcements/outbox.ts";
import { FLOWS } from "@/lib/flows.ts";
import type { PhotoStore } from "@/io/photo_storage.ts";
import { makeClaim, makeHq, makeRepairer, makeUser, stagePhoto } from "@/testkit/factories.ts";
import {
  assertConsistent,
  assertHistoryPaths,
  confirmed,
  dropOffPayload,
  pickUpPayload,
} from "@/testkit/movements.ts";

export interface SubmissionJob {
  index: number;
  kind: "direct" | "reverse";
  payload: unknown;
  /** The confirmed parts (they move), in request order. */
  partIds: number[];
  /** A part of the same claim sent with `confirm: false` (it must not move). */
  untouchedId: number;
  imageIds: number[];
}

export interface SeededLoad {
  jobs: SubmissionJob[];
  /** Every seeded part's status before the load (the factories write no history row). */
  initial: Map<number, PartStatus>;
}

/**
 * `count` claims of 3 parts each, alternately `Arrived` (direct) and `Pending Repair Shop Pick-Up`
 * (reverse), each with its submission: two parts confirmed with their staged photos, the third sent
 * unconfirmed. Drivers take turns; no two submissions share a part, so each can succeed exactly once.
 */
export async function seedSubmissionLoad(
  deps: { db: Db; storage: PhotoStore; clock: { now(): Date } },
  opts: { count: number; drivers?: number },
): Promise<SeededLoad> {
  const { db } = deps;
  await makeHq(db);
  const shop = await makeRepairer(db);
  const drivers = [];
  for (let i = 0; i < (opts.drivers ?? 8); i++) drivers.push(await makeUser(db, { role: "driver" }));
  const jobs: SubmissionJob[] = [];
  const initial = new Map<number, PartStatus>();
  for (let index = 0; index < opts.count; index++) {
    const kind = index % 2 === 0 ? "direct" : "reverse";
    const flow = kind === "direct" ? FLOWS.direct : FLOWS.reverse_pickup;
    const driver = drivers[index % drivers.length];
    const { claim, parts } = await makeClaim(db, {
      management: shop.id,
      parts: [{ status: flow.from }, { status: flow.from }, { status: flow.from }],
    });
    for (const p of parts) initial.set(p.id, p.status);
    const moving = parts.slice(0, 2);
    const imageIds: number[] = [];
    for (const p of moving) {
      imageIds.push(
        (await stagePhoto(deps, { partId: p.id, claimId: claim.id, stage: flow.stage, userId: driver.id }))
          .id,
      );
    }
    const items = [
      ...confirmed(moving.map((p, i) => ({ part: p.id, image: imageIds[i] }))),
      { parts_order_id: String(parts[2].id), confirm: false },
    ];
    jobs.push({
      index,
      kind,
      payload: kind === "direct"
        ? dropOffPayload(driver.email, claim.registration, shop, items)
        : pickUpPayload(driver.email, claim.registration, items),
      partIds: moving.map((p) => p.id),
      untouchedId: parts[2].id,
      imageIds,
    });
  }
  return { jobs, initial };
}

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight; stops taking new items once
 * `stop()` says so. Returns the items that were started.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<T[]> {
  const started: T[] = [];
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stop()) {
      const item = items[next++];
      started.push(item);
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return started;
}

/**
 * After any fault: no half movement, statuses and histories agree (see assertConsistent and
 * assertHistoryPaths), a part has Deliver_Parts iff its status moved away from where it started, and
 * every movement has exactly its announcement rows (one per channel of its title, unique message ids;
 * the load makes no leg 2, so a reverse movement has only its pickup announcement).
 */
export async function assertNoHalfMovement(db: Db, initial: ReadonlyMap<number, PartStatus>): Promise<void> {
  await assertConsistent(db);
  await assertHistoryPaths(db, initial);
  const parts = await sql<{ id: number; status: PartStatus; deliveries: number }>`
    select p.id, p.status, (select count(*) from deliver_parts d where d.part_id = p.id)::int as deliveries
    from parts_orders p order by p.id`.execute(db);
  for (const p of parts.rows) {
    const start = initial.get(p.id);
    if (start === undefined) continue;
    assert.equal(
      p.deliveries > 0,
      p.status !== start,
      `part ${p.id}: ${p.deliveries} Deliver_Parts but status ${start} → ${p.status}`,
    );
    assert.ok(p.deliveries <= 1, `part ${p.id} moved ${p.deliveries} times`);
  }
  const movements = await db.selectFrom("parts_movements").select(["id", "movement_type"]).execute();
  const rows = await db.selectFrom("announcements").select(["movement_id", "title", "channel", "message_id"])
    .orderBy("id").execute();
  assert.equal(new Set(rows.map((r) => r.message_id)).size, rows.length, "message ids are unique");
  for (const m of movements) {
    const title: AnnouncementTitle = m.movement_type === "direct"
      ? "Parts Delivered"
      : "Parts Picked Up From Repair Shop";
    assert.deepEqual(
      rows.filter((r) => r.movement_id === m.id).map((r) => [r.title, r.channel]),
      ANNOUNCEMENT_CHANNELS[title].map((c) => [title, c]),
      `movement ${m.id}: its announcement rows`,
    );
  }
  assert.equal(
    rows.filter((r) => !movements.some((m) => m.id === r.movement_id)).length,
    0,
    "announcements of no movement",
  );
}
