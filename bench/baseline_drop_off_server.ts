/**
 * Baseline for the drop-off benchmark (docs/performance.md "Round trips"): a bare `Deno.serve` that takes the handler's
 * `parts_drop_off` JSON and runs the service's own statements — its optimistic path: the read without
 * locks, then the all-or-nothing write statement, each on its own — on bare `pg` (DATABASE_URL) or PGlite (DATA_DIR/db), with no Hono, no zod and
 * no Kysely execution. The SQL text cannot drift from the service's: it is compiled from the same query
 * builders (`submissionReadSql`, `writeNewMovementSql`) against a Kysely that only compiles. It keeps only
 * the checks a successful bench submission passes through (user, claim, parts, photos, shop) and answers
 * anything else as a failure. Run as a child by bench/drop_off.ts (`BARE_DROP_OFF`); PORT from env.
 */
import type { CompiledQuery } from "kysely";
import { openBareDb } from "@/bench/bare_db.ts";
import { sqlCompiler } from "@/db/queries/compiled.ts";
import { writeNewMovementSql } from "@/db/queries/movements.ts";
import { type SubmissionRead, submissionReadSql } from "@/db/queries/submission_reads.ts";
import { testConfig } from "@/io/config.ts";
import { announcementOutbox } from "@/lib/announcements/outbox.ts";
import { FLOWS } from "@/lib/flows.ts";
import { submissionReadQuery } from "@/lib/movements/submission.ts";

/** Runs one statement (the drop-off's two statements run on their own, as the service's optimistic path). */
type Run = <R>(q: CompiledQuery<R>) => Promise<R[]>;

const config = testConfig();
const flow = FLOWS.direct;
const failure = (text: string) => ({ result: { status: "failure", text }, code: 3000 });

interface DropOffDetails {
  rego: string;
  delivery_location: { id: string | number };
  parts: { parts_order_id: string | number; confirm: boolean; image_id: string | number }[];
}

async function dropOff(run: Run, email: string, d: DropOffDetails) {
  const confirmed = d.parts.filter((p) => p.confirm)
    .map((p) => ({ partId: Number(p.parts_order_id), imageId: Number(p.image_id) }));
  const query = submissionReadQuery(
    { email: email.toLowerCase(), roles: ["driver"], sourceAddress: "127.0.0.1" },
    {
      flow,
      claimFlow: "direct",
      rego: d.rego,
      parts: [],
      pickup: false,
      tripId: null,
      repairerId: Number(d.delivery_location.id),
    },
    confirmed,
    false,
  );
  const now = new Date();
  const [read] = await run(
    submissionReadSql(sqlCompiler, query).compile(sqlCompiler) as CompiledQuery<SubmissionRead>,
  );
  const { user, claim, repairer } = read;
  if (!user || !claim || !repairer) return failure("Not found.");
  const parts = new Map(read.parts.map((p) => [p.id, p]));
  const staged = new Map(read.staged.map((s) => [s.id, s]));
  const checked = confirmed.map((c) => ({ part: parts.get(c.partId), photo: staged.get(c.imageId) }));
  if (checked.some((c) => c.part?.status !== flow.from || !c.photo?.photo_id || c.photo.used)) {
    return failure("Refused.");
  }
  const ids = checked.map((c) => c.part!.id);
  const written = await run(
    writeNewMovementSql({
      movement: {
        claim_id: claim.id,
        movement_type: "direct",
        movement_status: "Parts Dropped off",
        picked_up_by: user.id,
        dropped_off_by: user.id,
        pick_up_at: now,
        dropped_off_at: now,
        repairer_id: repairer.id,
        location_type: null,
        hq_location_id: null,
      },
      deliverParts: checked.map((c) => ({
        part_id: c.part!.id,
        qty_ordered: c.part!.qty_ordered,
        pickup_image_id: c.photo!.id,
        pickup_photo_id: c.photo!.photo_id!,
      })),
      delivered: true,
      flip: { ids, from: flow.from, to: flow.to, at: now, by: user.id },
      linkOnManagement: false,
      outbox: announcementOutbox(config, {
        title: "Parts Delivered",
        rego: claim.registration,
        place: repairer.name,
        parts: checked.map((c) => ({ partNo: c.part!.part_no, description: c.part!.description })),
        driver: user.name,
        at: now.toISOString(),
      }, now),
      unlessOpenTrip: false,
      // The service writes the handler's audit entry in this statement too.
      audit: { stage: "direct_dropoff", sourceAddress: "127.0.0.1" },
    }).compile(sqlCompiler),
  );
  const deliveryOf = new Map(written.map((r) => [r.part_id, r.id]));
  return {
    result: {
      data: {
        delivery_parts: ids.map((id) => ({ parts_order_id: id, delivery_id: deliveryOf.get(id) })),
        parts_movement_id: written[0].movement_id,
      },
      status: "success",
    },
    code: 3000,
  };
}

if (import.meta.main) {
  const query = await openBareDb();
  const run: Run = (q) => query(q.sql, q.parameters);
  Deno.serve(
    { port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} },
    async (req) => {
      if (new URL(req.url).pathname === "/healthz") return new Response("ok");
      const { payload } = await req.json();
      return Response.json(await dropOff(run, payload.user_email, payload.details));
    },
  );
}
