/**
 * The part state machine, property-based (fast-check): random programs of submissions (direct drop-off,
 * reverse pickup, reverse leg 2) and dispatcher status changes (with the status the dispatcher saw, fresh
 * or stale) over the few parts of one claim.
 *
 * Whatever the program, each part's history is a valid path of the state machine (rows chain from where
 * the part started, a creation row first when there is one; every movement row is a step of lib/flows.ts,
 * every dashboard row an allowed transition of lib/part_status.ts) and ends at the part's status, and no
 * movement is half written (testkit/movements.ts). Run one command at a time, every answer is also
 * the one the state machine predicts, and a refused command changes nothing. On the PostgreSQL server the
 * commands also run in concurrent waves, so the invariants hold under real races.
 */
import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { sql } from "kysely";
import { PART_STATUSES, type PartStatus, type User } from "@/db/schema.ts";
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import { changeStatusByDispatcher, transitionsFrom } from "@/lib/part_status.ts";
import { appTest, serverAppTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makePhoto, makeRepairer, makeUser } from "@/testkit/factories.ts";
import {
  assertConsistent,
  assertHistoryPaths,
  confirmed,
  dropOffPayload,
  dropOffReversePayload,
  pickUpPayload,
  writtenCounts,
} from "@/testkit/movements.ts";

const PARTS = 4;

type Command =
  /**
   * `fromSearch`: the driver picks among the parts the search offers (those in the flow's status now, or
   * on the open trip), as the app does; otherwise the listed parts are sent as they are (a stale screen).
   */
  | { kind: "direct" | "pickup" | "leg2"; parts: number[]; fromSearch: boolean }
  | { kind: "dispatch"; part: number; choice: number; stale: boolean };

interface Scenario {
  statuses: PartStatus[];
  /** Per part: whether it starts with a creation row (as an import writes), or without history. */
  created: boolean[];
  commands: Command[];
}

const partIndexes = fc.uniqueArray(fc.integer({ min: 0, max: PARTS - 1 }), { minLength: 1, maxLength: 3 });
const fromSearch = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, {
  weight: 1,
  arbitrary: fc.constant(false),
});
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("direct" as const), parts: partIndexes, fromSearch }),
  fc.record({ kind: fc.constant("pickup" as const), parts: partIndexes, fromSearch }),
  fc.record({ kind: fc.constant("leg2" as const), parts: partIndexes, fromSearch }),
  fc.record({
    kind: fc.constant("dispatch" as const),
    part: fc.integer({ min: 0, max: PARTS - 1 }),
    choice: fc.nat(3),
    stale: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("dispatch" as const),
    part: fc.integer({ min: 0, max: PARTS - 1 }),
    choice: fc.nat(3),
    stale: fc.boolean(),
  }),
);
const scenarioArb = (maxCommands: number): fc.Arbitrary<Scenario> =>
  fc.record({
    // Mostly the statuses the flows and the dashboard act on; now and then the others.
    statuses: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<PartStatus>("Arrived", "Pending Repair Shop Pick-Up") },
        { weight: 2, arbitrary: fc.constantFrom<PartStatus>(...PART_STATUSES) },
      ),
      { minLength: PARTS, maxLength: PARTS },
    ),
    created: fc.array(fc.boolean(), { minLength: PARTS, maxLength: PARTS }),
    commands: fc.array(commandArb, { minLength: 1, maxLength: maxCommands }),
  });

/** What every run shares: an HQ, a shop, a driver, a dispatcher, one stored photo, the starting statuses. */
interface World {
  a: TestApp;
  shop: { id: number; name: string };
  driver: User;
  dispatcher: User;
  photoId: number;
  /** Starting status of every part made without a creation row. */
  initial: Map<number, PartStatus>;
}

async function world(a: TestApp): Promise<World> {
  await makeHq(a.db);
  const photo = await makePhoto(a.db, a.storage);
  return {
    a,
    shop: await makeRepairer(a.db),
    driver: await makeUser(a.db, { role: "driver" }),
    dispatcher: await makeUser(a.db, { role: "dispatcher" }),
    photoId: photo.id,
    initial: new Map(),
  };
}

/** One run's claim: PARTS parts in the scenario's statuses, some with a creation row. */
async function runClaim(w: World, s: Scenario) {
  const { claim, parts } = await makeClaim(w.a.db, {
    management: w.shop.id,
    parts: s.statuses.map((status) => ({ status })),
  });
  for (const [i, p] of parts.entries()) {
    if (!s.created[i]) {
      w.initial.set(p.id, p.status);
      continue;
    }
    await w.a.db.insertInto("part_status_history").values({
      part_id: p.id,
      from_status: null,
      to_status: p.status,
      changed_at: w.a.clock.now(),
      changed_by: null,
      via: "import",
    }).execute();
  }
  return { claim, parts };
}

type Run = Awaited<ReturnType<typeof runClaim>>;

/**
 * A staged photo for each part (calls 2a and 2b as done): rows sharing one stored file, which D14 allows
 * (a match is about the staged row, used at most once).
 */
async function stage(
  w: World,
  run: Run,
  ids: number[],
  stage: "direct_dropoff" | "reverse_pickup" | "reverse_dropoff",
) {
  if (ids.length === 0) return [];
  const rows = await w.a.db.insertInto("uploaded_images").values(ids.map((id) => ({
    part_id: id,
    claim_id: run.claim.id,
    movement_stage: stage,
    uploaded_by: w.driver.id,
    uploaded_time: w.a.clock.now(),
    photo_id: w.photoId,
  }))).returning(["id", "part_id"]).execute();
  return ids.map((id) => ({ part: id, image: rows.find((r) => r.part_id === id)!.id }));
}

async function statuses(w: World, run: Run): Promise<Map<number, PartStatus>> {
  const rows = await w.a.db.selectFrom("parts_orders").select(["id", "status"])
    .where("claim_id", "=", run.claim.id).execute();
  return new Map(rows.map((r) => [r.id, r.status]));
}

/**
 * The claim's return trips as the app and the dashboard see them: `search` is the trip the reverse search
 * offers for leg 2 (the latest reverse movement, when it is still `Parts Picked Up`) with the parts still
 * on its truck; `onTruck` holds the parts on any open trip (the dashboard refuses to change those). A
 * claim has at most one open trip: a pickup racing another is refused.
 */
async function trips(w: World, run: Run) {
  const open = await w.a.db.selectFrom("parts_movements as m")
    .innerJoin("deliver_parts as d", "d.movement_id", "m.id")
    .select(["m.id", "d.part_id"])
    .where("m.claim_id", "=", run.claim.id).where("m.movement_type", "=", "reverse")
    .where("m.movement_status", "=", "Parts Picked Up").where("d.delivery", "=", false).execute();
  const latest = await w.a.db.selectFrom("parts_movements").select(["id", "movement_status"])
    .where("claim_id", "=", run.claim.id).where("movement_type", "=", "reverse")
    .orderBy("id", "desc").executeTakeFirst();
  const search = latest?.movement_status === "Parts Picked Up"
    ? { id: latest.id, onTruck: new Set(open.filter((r) => r.id === latest.id).map((r) => r.part_id)) }
    : null;
  return { search, onTruck: new Set(open.map((r) => r.part_id)) };
}

interface Outcome {
  /** null: not attempted (no open trip for leg 2, no dashboard change from the status seen). */
  ok: boolean | null;
  text?: string;
  /** Status each touched part should have after a success. */
  to?: Map<number, PartStatus>;
  /** For the model: what the command acted on. */
  partIds: number[];
  seen?: PartStatus;
  tripId?: number;
}

/** Runs one command; `seenAtStart` gives the stale status a dispatcher may act on. */
async function execute(
  w: World,
  run: Run,
  c: Command,
  seenAtStart: Map<number, PartStatus>,
): Promise<Outcome> {
  const { a } = w;
  a.clock.advance(1000);
  if (c.kind === "dispatch") {
    const part = run.parts[c.part];
    const seen = c.stale ? seenAtStart.get(part.id)! : (await statuses(w, run)).get(part.id)!;
    const options = transitionsFrom(seen);
    if (options.length === 0) return { ok: null, partIds: [part.id], seen };
    const to = options[c.choice % options.length];
    try {
      await changeStatusByDispatcher(a.db, a.clock, {
        partId: part.id,
        from: seen,
        to: to.to,
        reason: to.correction ? "property test" : null,
        userId: w.dispatcher.id,
      });
      return { ok: true, to: new Map([[part.id, to.to]]), partIds: [part.id], seen };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { ok: false, text: error.message, partIds: [part.id], seen };
    }
  }
  let ids = c.parts.map((i) => run.parts[i].id);
  const trip = c.kind === "leg2" ? (await trips(w, run)).search : null;
  if (c.fromSearch) {
    const now = await statuses(w, run);
    const from = c.kind === "direct" ? FLOWS.direct.from : FLOWS.reverse_pickup.from;
    const offered = run.parts.map((p) => p.id).filter((id) =>
      c.kind === "leg2" ? trip?.onTruck.has(id) : now.get(id) === from
    );
    if (offered.length === 0) return { ok: null, partIds: ids };
    const picked = ids.filter((id) => offered.includes(id));
    ids = picked.length ? picked : offered;
  }
  const rego = run.claim.registration;
  const email = w.driver.email;
  let payload: unknown;
  let tripId: number | undefined;
  let flowTo: PartStatus;
  if (c.kind === "direct") {
    payload = dropOffPayload(email, rego, w.shop, confirmed(await stage(w, run, ids, "direct_dropoff")));
    flowTo = FLOWS.direct.to;
  } else if (c.kind === "pickup") {
    payload = pickUpPayload(email, rego, confirmed(await stage(w, run, ids, "reverse_pickup")));
    flowTo = FLOWS.reverse_pickup.to;
  } else {
    if (!trip) return { ok: null, partIds: ids };
    tripId = trip.id;
    payload = dropOffReversePayload(
      email,
      rego,
      trip.id,
      confirmed(await stage(w, run, ids, "reverse_dropoff")),
    );
    flowTo = FLOWS.reverse_dropoff.to;
  }
  const body = await a.call(payload);
  if (body.result.status !== "success") return { ok: false, text: body.result.text, partIds: ids, tripId };
  return { ok: true, to: new Map(ids.map((id) => [id, flowTo])), partIds: ids, tripId };
}

/** The state machine's prediction for a command, from the state right before it ran. */
function predicted(
  c: Command,
  o: Outcome,
  before: Map<number, PartStatus>,
  trip: Awaited<ReturnType<typeof trips>>,
): boolean {
  if (c.kind === "direct") return o.partIds.every((id) => before.get(id) === FLOWS.direct.from);
  // A claim has at most one open return trip: a pickup while one is open is refused.
  if (c.kind === "pickup") {
    return trip.onTruck.size === 0 && o.partIds.every((id) => before.get(id) === FLOWS.reverse_pickup.from);
  }
  if (c.kind === "leg2") return o.partIds.every((id) => trip.search!.onTruck.has(id));
  const id = o.partIds[0];
  // The dashboard refuses a part on an open return trip (it belongs to the trip until leg 2).
  return before.get(id) === o.seen && !(o.seen === "Picked Up from Repair Shop" && trip.onTruck.has(id));
}

/** Every refusal a program can meet: the part moved on, or is not where the command expects it. */
const RACE_TEXTS = new RegExp(
  [
    / is no longer available for delivery\.$/,
    / is no longer flagged for return\.$/,
    / is no longer awaiting return\.$/,
    / is not part of this return trip\.$/,
    /^This return trip is already complete\.$/,
    /^Parts of this claim are already on a return trip to HQ\. Drop them off at HQ before collecting more\.$/,
    / changed to .+ while you were looking; nothing was changed\.$/,
    / is on open return trip #\d+; it changes when the driver drops it off at HQ\. Nothing was changed\.$/,
  ].map((r) => r.source).join("|"),
);

const historyCount = async (a: TestApp) =>
  (await sql<{ n: number }>`select count(*)::int as n from part_status_history`.execute(a.db)).rows[0].n;

async function checkInvariants(w: World) {
  await assertHistoryPaths(w.a.db, w.initial);
  await assertConsistent(w.a.db);
}

appTest("state machine: random programs, one command at a time, follow the model", async (a) => {
  const w = await world(a);
  await fc.assert(
    fc.asyncProperty(scenarioArb(8), async (s) => {
      const run = await runClaim(w, s);
      const atStart = await statuses(w, run);
      for (const c of s.commands) {
        const before = await statuses(w, run);
        const trip = await trips(w, run);
        const counts = await writtenCounts(a.db);
        const history = await historyCount(a);
        const o = await execute(w, run, c, atStart);
        if (o.ok === null) continue;
        const where = `${JSON.stringify(c)} from ${JSON.stringify([...before])}: ${o.text ?? "ok"}`;
        assert.equal(o.ok, predicted(c, o, before, trip), where);
        const after = await statuses(w, run);
        if (o.ok) {
          for (const [id, to] of o.to!) assert.equal(after.get(id), to, where);
          for (const [id, st] of before) if (!o.to!.has(id)) assert.equal(after.get(id), st, where);
        } else {
          assert.deepEqual(after, before, `refused, yet changed: ${where}`);
          assert.deepEqual(await writtenCounts(a.db), counts, `refused, yet wrote: ${where}`);
          assert.equal(await historyCount(a), history, `refused, yet wrote history: ${where}`);
        }
      }
      await checkInvariants(w);
    }),
    // The embedded database is slower per statement: fewer runs there, more on the server.
    { numRuns: a.kind === "pglite" ? 30 : 50 },
  );
});

serverAppTest(
  "state machine: random programs in concurrent waves keep every history a valid path",
  async (a) => {
    const w = await world(a);
    await fc.assert(
      fc.asyncProperty(scenarioArb(12), fc.integer({ min: 2, max: 4 }), async (s, waveSize) => {
        const run = await runClaim(w, s);
        for (let i = 0; i < s.commands.length; i += waveSize) {
          // Each wave's dispatchers saw the statuses as the wave began: stale by the time they act.
          const seen = await statuses(w, run);
          const wave = s.commands.slice(i, i + waveSize);
          const outcomes = await Promise.all(wave.map((c) => execute(w, run, c, seen)));
          for (const o of outcomes) {
            if (o.ok === false) assert.match(o.text!, RACE_TEXTS, `an answer no race explains: ${o.text}`);
          }
        }
        await checkInvariants(w);
      }),
      { numRuns: 30 },
    );
  },
  { poolSize: 12 },
);
