/**
 * The tablet islands' JSON endpoints (`/tablet/api/…`): each checks its body size first (an oversized
 * body is refused before anything else, signed in or not), then the signed-in driver or admin, then the
 * X-CSRF-Token header. Each parses its own input (the schemas below, in the tablet's words) into the use
 * cases' input types and calls them (lib/tablet_search.ts, lib/movements/, lib/photos/), so rules and
 * messages are the handler's without going through the handler. A refusal answers `{message, part_id?}`
 * (refusalAnswer).
 *
 *   POST /search      {job, rego}                                → FoundClaim (refused: {message, next_step?, regos?})
 *   POST /photos?job=&rego=&part_id=   body: the photo bytes      → {image_id, photo_id} (2a + 2b)
 *   POST /movements   {job, rego, repairer_id?, movement_id?, parts[], handover?} → {movement_id, receipt_url}
 *   POST /handover-images?kind=signature|left   body: the image   → {image_id} (handover_images.ts)
 *   POST /ping        keeps the session alive (the idle warning's "Stay signed in")
 *   POST /scan        {code, job?, rego?}  the part a label code or part number names (scan.ts)
 *   POST /return-requests, GET /return-requests/:id  asking HQ to flag parts for return (return_requests.ts)
 *   GET  /run-sheet   today's stops, the trips on the road, the work with no shop → RunSheetAnswer
 *                     (lib/run_sheet.ts, docs/runs.md "The tablet's JSON")
 *   GET  /live        the change feed as server-sent events, as /hq/live streams it to staff
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { HandoverPolicy, User } from "@/db/schema.ts";
import {
  type ApiRefusal,
  type FoundClaim,
  JOB_NAMES,
  type JobName,
  JOBS,
  PART_STATUS_WORDS,
} from "@/components/tablet_jobs.ts";
import type { RunSheetAnswer, RunSheetLine } from "@/components/run_sheet.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import { dropOff } from "@/lib/movements/drop_off.ts";
import { dropOffReverse } from "@/lib/movements/drop_off_reverse.ts";
import { MAX_SUBMITTED_PARTS, type SubmittedPart } from "@/lib/movements/input.ts";
import { pickUpReverse } from "@/lib/movements/pick_up_reverse.ts";
import { policyFor, unsignedReasonList } from "@/lib/handover/policy.ts";
import { storeStagedPhoto, UploadRefused } from "@/lib/photos/upload.ts";
import { createUploadToken } from "@/lib/photos/upload_tokens.ts";
import { type ClaimPart, matchingRegos, TABLET_ROLES } from "@/lib/tablet_data.ts";
import { type FlowClaim, searchForFlow } from "@/lib/tablet_search.ts";
import { idField, isId, parseId, parseInput, regoField } from "@/lib/validation.ts";
import { liveRoutes } from "@/routes/hq/live.ts";
import { requireTabletUser } from "@/routes/tablet/guard.ts";
import { readJson } from "@/routes/tablet/json_body.ts";
import { scanRoutes } from "@/routes/tablet/scan.ts";
import { photoBodyApp, rawBody } from "@/routes/tablet/photo_body.ts";
import {
  offerAnswer,
  returnRequestPhotoRoutes,
  returnRequestRoutes,
} from "@/routes/tablet/return_requests.ts";
import { handoverField, handoverImageRoutes } from "@/routes/tablet/handover_images.ts";
import { returnOfferFor } from "@/lib/return_request_offer.ts";
import { type RunSheet, runSheetFor, type SheetLine } from "@/lib/run_sheet.ts";
import { phoneHref } from "@/lib/places/details.ts";
import { isOpenAt } from "@/lib/places/hours.ts";
import { smallBodies } from "@/routes/web/body_limits.ts";
import { withOwnMiddleware } from "@/routes/web/mount.ts";
import { csrfProtect, type SessionEnv } from "@/routes/web/session.ts";
import { TABLET_UPLOAD_REFUSAL_STATUS } from "@/routes/web/upload_refusals.ts";

const jobField = z.enum(JOB_NAMES as [JobName, ...JobName[]]);

/** The parts of a submission as the tablet's queue sends them: every part of the claim, confirmed or not. */
const partsField = z.array(z.object({
  parts_order_id: idField,
  confirm: z.boolean(),
  // The staged photo of a confirmed part; null or absent for a part not moved.
  image_id: idField.nullish(),
})).max(MAX_SUBMITTED_PARTS).transform((items): SubmittedPart[] =>
  items.map((p) => ({ partId: p.parts_order_id, confirm: p.confirm, imageId: p.image_id ?? null }))
);

const searchSchema = z.object({ job: jobField, rego: regoField });
const photoQuery = z.object({ job: jobField, rego: regoField, part_id: idField });
const movementSchema = z.object({
  job: jobField,
  rego: regoField,
  // The shop picked in the dropdown; none (or not an ID) is the use case's `Choose a repair shop.` (D15).
  repairer_id: z.unknown().optional().transform((v) => isId(v) ? v : null),
  // A return finishes the open trip its search found.
  movement_id: idField.optional(),
  parts: partsField,
  handover: handoverField,
});
type MovementRequest = z.output<typeof movementSchema>;

/**
 * The tablet's one mapping of refusals to answers: `{message, part_id}` with 422 for any domain error
 * (the page shows it next to the part it names), and the upload's status for a refused photo (about
 * the part the request names).
 */
function refusalAnswer(c: Context, error: DomainError | UploadRefused): Response {
  if (error instanceof DomainError) return c.json({ message: error.message, part_id: error.partId }, 422);
  const partId = parseId(c.req.query("part_id")) ?? undefined;
  return c.json({ message: error.message, part_id: partId }, TABLET_UPLOAD_REFUSAL_STATUS[error.reason]);
}

const offeredPart = ({ id, part_no, description, qty }: ClaimPart) => ({ id, part_no, description, qty });

/**
 * What every job's answer says of the claim a search found: its rego, number, the parts offered with their
 * quantity, and the claim's other parts (not movable in this job now) with their status in a driver's words.
 */
function foundClaim(job: JobName, rego: string, claim: FlowClaim, policy: HandoverPolicy): FoundClaim {
  return {
    job,
    rego,
    claim_number: claim.claimNumber,
    parts: claim.parts.map(offeredPart),
    not_ready: claim.otherParts.map((p) => ({ ...offeredPart(p), status: PART_STATUS_WORDS[p.status] })),
    ...(claim.repairer ? { repairer_id: claim.repairer.id, repairer_name: claim.repairer.name } : {}),
    ...(claim.trip ? { hq_location: claim.trip.hqLocation, movement_id: claim.trip.id } : {}),
    handover: { policy, reasons: unsignedReasonList() },
  };
}

/** What a driver can do after a search refusal of this kind (tablet only: the message stays the handler's). */
const SEARCH_NEXT_STEP: Partial<Record<DomainError["kind"], string>> = {
  not_found:
    "Check the rego on the vehicle and search again. If it is right, call HQ: the claim may not be set up yet.",
};

/**
 * A refused search as the tablet answers it: the handler's message word for word, what to do next, and,
 * when the rego matches several vehicles, their regos (from the search's own query) to pick from.
 */
async function searchRefusal(
  deps: AppDeps,
  job: JobName,
  rego: string,
  error: DomainError,
): Promise<ApiRefusal> {
  const regos = error.kind === "invalid" ? await matchingRegos(deps.db, rego) : [];
  if (regos.length > 1) {
    return { message: error.message, regos, next_step: "Tap the vehicle you mean, or type the full rego." };
  }
  const next = SEARCH_NEXT_STEP[error.kind];
  // Collect with nothing flagged: no dead end at the shop, the driver may ask HQ (docs/return-requests.md).
  const offer = job === "collect" && error.kind === "nothing_to_move"
    ? await returnOfferFor(deps.db, rego)
    : null;
  return {
    message: error.message,
    ...(next ? { next_step: next } : {}),
    ...(offer ? { return_offer: offerAnswer(rego, offer) } : {}),
  };
}

/** What the job finds for a rego; a claim in the other leg's state is said in the tablet's words. */
async function findForJob(
  deps: AppDeps,
  user: User,
  job: JobName,
  rego: string,
): Promise<FoundClaim | ApiRefusal> {
  const found = await searchForFlow(deps.db, user, JOBS[job].flow, rego);
  if (!("mismatch" in found)) {
    const policy = await policyFor(deps.db, FLOWS[JOBS[job].flow].stage, found.trip?.id ?? null);
    return foundClaim(job, rego, found, policy);
  }
  if (found.mismatch === "no_return_trip") return { message: "Return trip not found." };
  return {
    message:
      `${rego.trim()} has a return trip in progress (parts on the truck). Finish it with "${JOBS.return.title}" first.`,
    switch_to: "return",
  };
}

/** Each job's submission: its use case, given the tablet's input. */
const SUBMIT: Record<
  JobName,
  (deps: AppDeps, user: User, m: MovementRequest) => Promise<{ movementId: number }>
> = {
  deliver: (deps, user, m) =>
    dropOff(deps, { user }, {
      rego: m.rego,
      repairShopId: m.repairer_id,
      parts: m.parts,
      handover: m.handover,
    }),
  collect: (deps, user, m) =>
    pickUpReverse(deps, { user }, { rego: m.rego, parts: m.parts, handover: m.handover }),
  return: (deps, user, m) => {
    // The search hands the page the open trip; a return without one has nothing to finish.
    if (m.movement_id === undefined) throw new DomainError("not_found", "Return trip not found.");
    return dropOffReverse(deps, { user }, {
      rego: m.rego,
      movementId: m.movement_id,
      parts: m.parts,
      handover: m.handover,
    });
  },
};

const sheetLine = (l: SheetLine): RunSheetLine => ({
  claimNumber: l.claimNumber,
  rego: l.rego,
  parts: l.parts,
  done: l.done,
});

/** The sheet in the tablet's JSON (components/run_sheet.ts); opening hours asked at `asOf`, depot clock. */
function runSheetAnswer(sheet: RunSheet, timeZone: string): RunSheetAnswer {
  return {
    date: sheet.date,
    asOf: sheet.asOf.toISOString(),
    stops: sheet.stops.map(({ shop, ...stop }) => ({
      repairerId: shop.id,
      name: shop.name,
      address: shop.address,
      phone: shop.phone,
      phoneHref: shop.phone === null ? null : phoneHref(shop.phone),
      hours: shop.openingHoursText,
      openNow: shop.openingHours === null ? null : isOpenAt(shop.openingHours, sheet.asOf, timeZone),
      latitude: shop.coordinates?.latitude ?? null,
      longitude: shop.coordinates?.longitude ?? null,
      assignedTo: stop.assignedTo,
      mine: stop.assignedTo?.id === sheet.userId,
      deliver: stop.deliver.map(sheetLine),
      collect: stop.collect.map(sheetLine),
      done: stop.done,
      total: stop.total,
    })),
    onTruck: sheet.onTruck.map((t) => ({
      claimNumber: t.claimNumber,
      rego: t.rego,
      parts: t.parts,
      movementId: t.movementId,
      from: t.from,
      mine: t.pickedUpBy === sheet.userId,
    })),
    needsHq: sheet.needsHq.map((l) => ({
      claimNumber: l.claimNumber,
      rego: l.rego,
      parts: l.parts,
      job: l.job,
    })),
  };
}

/** The JSON endpoints: small bodies. */
function jsonRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.post("/ping", (c) => c.body(null, 204));

  // Read-only, no input: what the sheet shows changes with every movement, so never cached on the way.
  app.get("/run-sheet", async (c) => {
    const sheet = await runSheetFor(deps, c.var.session!.user);
    c.header("Cache-Control", "no-store");
    return c.json(runSheetAnswer(sheet, deps.config.depotTimeZone));
  });

  app.post("/search", async (c) => {
    const { job, rego } = parseInput(searchSchema, await readJson(c));
    let found;
    try {
      found = await findForJob(deps, c.var.session!.user, job, rego);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return c.json(await searchRefusal(deps, job, rego, error), 422);
    }
    return "parts" in found ? c.json(found) : c.json(found, 422);
  });

  app.post("/movements", async (c) => {
    const input = parseInput(movementSchema, await readJson(c));
    const { movementId } = await SUBMIT[input.job](deps, c.var.session!.user, input);
    return c.json({ movement_id: movementId, receipt_url: `/tablet/movements/${movementId}` });
  });
  app.route("/return-requests", returnRequestRoutes(deps));
  app.route("/scan", scanRoutes(deps));
  app.route("/live", liveRoutes(deps, TABLET_ROLES));
  return app;
}

/** A part's photo for a job: staged (2a) and stored (2b) in one request. */
function photoRoutes(deps: AppDeps) {
  const app = photoBodyApp(deps);
  app.post("/", async (c) => {
    const { job, rego, part_id } = parseInput(photoQuery, c.req.query());
    // 2a: checks the part may be photographed for this flow and creates the staged row (D17).
    const staged = await createUploadToken(deps, c.var.session!.user, {
      partId: part_id,
      stage: FLOWS[JOBS[job].flow].stage,
      rego,
    });
    // 2b: stores the bytes (type, size and pixel checks) and attaches them to the staged row (D18).
    const stored = await storeStagedPhoto(deps, {
      recordId: staged.record_id,
      token: staged.token,
      readFile: rawBody(c),
    });
    return c.json({ image_id: staged.record_id, photo_id: stored.photoId });
  });
  return app;
}

export function apiRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.onError(async (error, c) => {
    if (!(error instanceof DomainError || error instanceof UploadRefused)) throw error;
    // A refused photo is not read to the end (a no-op when the body was already read).
    await c.req.raw.body?.cancel().catch(() => {});
    if (error instanceof UploadRefused) deps.metrics?.uploadRefused(error.reason);
    return refusalAnswer(c, error);
  });
  app.route("/photos", photoRoutes(deps));
  app.route("/return-requests", returnRequestPhotoRoutes(deps));
  app.route("/handover-images", handoverImageRoutes(deps));
  app.route(
    "/",
    withOwnMiddleware(
      jsonRoutes(deps),
      smallBodies(deps, "Request body too large."),
      requireTabletUser(),
      csrfProtect(deps, { headerOnly: true }),
    ),
  );
  return app;
}
