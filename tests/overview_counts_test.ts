/**
 * The overview's counters (`overview_counts`, migration 20261225T1000_overview, docs/overview.md "How
 * fast") always equal a recount of the parts: after inserts, status changes, a claim's shop set, changed,
 * cleared and removed, and a part deleted (both databases); and after many status changes and shop changes
 * committed at once from a pool of connections (the server), none of them refused.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import type { PartStatus } from "@/db/schema.ts";
import { upsertParts } from "@/db/queries/parts.ts";

const COUNTED: PartStatus[] = [
  "Arrived",
  "Delivered to Repair Shop directly",
  "Pending Repair Shop Pick-Up",
  "Picked Up from Repair Shop",
];

/** The counters and a recount of the parts, as sorted lines "status|shop|day|parts". */
async function countersAndRecount(db: Db): Promise<{ counters: string[]; recount: string[] }> {
  const counters = await sql<{ line: string }>`select status || '|' || repairer_id || '|' ||
      to_char(since_day at time zone 'UTC', 'YYYY-MM-DD') || '|' || parts as line
    from overview_counts where parts <> 0 order by 1`.execute(db);
  const recount = await sql<{ line: string }>`select p.status || '|' || coalesce(cm.repairer_id, 0) || '|' ||
      to_char(date_trunc('day', p.updated_at, 'UTC') at time zone 'UTC', 'YYYY-MM-DD') || '|' || count(*) as line
    from parts_orders p left join claim_management cm on cm.claim_id = p.claim_id
    where p.status in (${sql.join(COUNTED)})
    group by p.status, coalesce(cm.repairer_id, 0), date_trunc('day', p.updated_at, 'UTC') order by 1`
    .execute(db);
  return { counters: counters.rows.map((r) => r.line), recount: recount.rows.map((r) => r.line) };
}

async function assertCountersRight(db: Db) {
  const { counters, recount } = await countersAndRecount(db);
  assert.ok(recount.length > 0);
  assert.deepEqual(counters, recount);
}

appTest("overview counters: every kind of write keeps them equal to a recount", async (a) => {
  const north = await makeRepairer(a.db, "North");
  const south = await makeRepairer(a.db, "South");
  const one = await makeClaim(a.db, {
    management: north.id,
    parts: [{ status: "Arrived" }, { status: "Arrived" }, { status: "Ordered" }],
  });
  const two = await makeClaim(a.db, { management: false, parts: [{ status: "Arrived" }] });
  const three = await makeClaim(a.db, {
    management: null,
    parts: [{ status: "Delivered to Repair Shop directly" }],
  });
  await assertCountersRight(a.db);

  const step = async (what: string, run: () => Promise<unknown>) => {
    await run();
    const { counters, recount } = await countersAndRecount(a.db);
    assert.deepEqual(counters, recount, what);
  };
  await step(
    "a status change",
    () =>
      a.db.updateTable("parts_orders").set({
        status: "Delivered to Repair Shop directly",
        updated_at: a.clock.now(),
      })
        .where("id", "=", one.parts[0].id).execute(),
  );
  await step(
    "a time moved to another day",
    () =>
      a.db.updateTable("parts_orders").set({ updated_at: new Date("2026-10-01T05:00:00Z") })
        .where("claim_id", "=", one.claim.id).execute(),
  );
  await step(
    "a change of nothing counted",
    () =>
      a.db.updateTable("parts_orders").set({ description: "renamed" }).where("claim_id", "=", one.claim.id)
        .execute(),
  );
  await step(
    "a claim's shop changed",
    () =>
      a.db.updateTable("claim_management").set({ repairer_id: south.id }).where("claim_id", "=", one.claim.id)
        .execute(),
  );
  await step(
    "a shop given to a claim without a record",
    () =>
      a.db.insertInto("claim_management").values({ claim_id: two.claim.id, repairer_id: north.id }).execute(),
  );
  await step(
    "a shop named on a record that had none",
    () =>
      a.db.updateTable("claim_management").set({ repairer_id: north.id }).where(
        "claim_id",
        "=",
        three.claim.id,
      )
        .execute(),
  );
  await step(
    "a shop cleared",
    () =>
      a.db.updateTable("claim_management").set({ repairer_id: null }).where("claim_id", "=", one.claim.id)
        .execute(),
  );
  await step(
    "a record removed",
    () => a.db.deleteFrom("claim_management").where("claim_id", "=", two.claim.id).execute(),
  );
  await step(
    "a part moved to an uncounted status",
    () =>
      a.db.updateTable("parts_orders").set({ status: "Returned to HQ" }).where("id", "=", three.parts[0].id)
        .execute(),
  );
  await step(
    "an import's upsert: one part changed, one new",
    () =>
      a.db.transaction().execute((tx) =>
        upsertParts(tx, [
          {
            claim_id: three.claim.id,
            part_no: three.parts[0].part_no,
            description: "d",
            qty_ordered: 1,
            status: "Arrived",
          },
          {
            claim_id: three.claim.id,
            part_no: "NEW-1",
            description: "d",
            qty_ordered: 1,
            status: "Pending Repair Shop Pick-Up",
          },
        ], new Date("2026-11-02T03:00:00Z"))
      ),
  );
  await step(
    "a part deleted",
    () => a.db.deleteFrom("parts_orders").where("id", "=", one.parts[2].id).execute(),
  );
  await step(
    "a claim's parts moved to another claim",
    () =>
      a.db.updateTable("parts_orders").set({ claim_id: three.claim.id }).where("id", "=", one.parts[1].id)
        .execute(),
  );
});

appTest("overview counters: status and shop changes committed at once stay counted right", async (a) => {
  const shops = [await makeRepairer(a.db, "A"), await makeRepairer(a.db, "B"), await makeRepairer(a.db, "C")];
  const claims: Awaited<ReturnType<typeof makeClaim>>[] = [];
  for (let i = 0; i < 12; i++) {
    claims.push(
      await makeClaim(a.db, {
        management: shops[i % 3].id,
        parts: [{ status: "Arrived" }, { status: "Arrived" }, { status: "Pending Repair Shop Pick-Up" }],
      }),
    );
  }
  const flow: Record<string, PartStatus> = {
    "Arrived": "Delivered to Repair Shop directly",
    "Delivered to Repair Shop directly": "Pending Repair Shop Pick-Up",
    "Pending Repair Shop Pick-Up": "Picked Up from Repair Shop",
    "Picked Up from Repair Shop": "Arrived",
  };
  // Each worker moves every part of its claims one status on (a submission's one statement), and gives the
  // claims of the next worker another shop, four rounds, all at once.
  const worker = async (w: number) => {
    for (let round = 0; round < 4; round++) {
      for (const c of claims.filter((_, i) => i % 4 === w)) {
        // One statement, each part one status on: a statement per status inside one transaction would hold
        // the first statements' counters while asking for the next ones', an order no submission takes.
        const next = sql.join(Object.entries(flow).map(([from, to]) => sql`when ${from} then ${to}`), sql` `);
        await a.db.updateTable("parts_orders").set({
          status: sql<PartStatus>`case status ${next} end`,
          updated_at: new Date(Date.UTC(2026, 10, 1 + round)),
        })
          .where("claim_id", "=", c.claim.id).where("status", "in", Object.keys(flow) as PartStatus[])
          .execute();
        const other = claims[(claims.indexOf(c) + 1) % claims.length];
        await a.db.updateTable("claim_management").set({ repairer_id: shops[(round + w) % 3].id })
          .where("claim_id", "=", other.claim.id).execute();
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  await assertCountersRight(a.db);
}, { only: "postgres", poolSize: 8 });
