/**
 * The tablet islands' JSON endpoints (`/tablet/api/…`): each checks its body size first (an oversized
 * body is refused before anything else, signed in or not), then the signed-in driver or admin, then the
 * X-CSRF-Token header. Searches and submissions run the mobile handler's own events (routes/api/events),
 * with the payload the phone would send for the job, so rules and messages are the handler's; photos go
 * through 2a and the one upload entry point. A refusal answers `{message, part_id?}` (refusalAnswer).
 *
 *   POST /search      {job, rego}                                → FoundClaim (refused: {message, next_step?, regos?})
 *   POST /photos?job=&rego=&part_id=   body: the photo bytes      → {image_id, photo_id} (calls 2a + 2b)
 *   POST /movements   {job, rego, repairer_id?, movement_id?, parts[]} → {movement_id, receipt_url}
 *   POST /ping        keeps the session alive (the idle warning's "Stay signed in")
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { User } from "@/db/schema.ts";
import {
  type ApiRefusal,
  type FoundClaim,
  JOB_NAMES,
  type JobName,
  JOBS,
  PART_STATUS_WORDS,
} from "@/islands/_tablet_jobs.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import { claimParts, matchingRegos } from "@/lib/tablet_data.ts";
import { repairShopIdField, submittedPartsField } from "@/lib/movements/input.ts";
import { photoTooLarge, storeStagedPhoto, UploadRefused } from "@/lib/photos/upload.ts";
import { idField, parseId, parseInput, regoField } from "@/lib/validation.ts";
import { UPLOAD_REFUSALS } from "@/routes/api/codes.ts";
import { handlerEvents } from "@/routes/api/events/mod.ts";
import { requireTabletUser } from "@/routes/tablet/guard.ts";
import { limitStreamedBody, smallBodies } from "@/routes/web/body_limits.ts";
import { withOwnMiddleware } from "@/routes/web/mount.ts";
import { csrfProtect, type SessionEnv } from "@/routes/web/session.ts";

const jobField = z.enum(JOB_NAMES as [JobName, ...JobName[]]);

const searchSchema = z.object({ job: jobField, rego: regoField });
const photoQuery = z.object({ job: jobField, rego: regoField, part_id: idField });
const movementSchema = z.object({
  job: jobField,
  rego: regoField,
  repairer_id: repairShopIdField,
  movement_id: idField.optional(),
  parts: submittedPartsField,
});
type MovementRequest = z.output<typeof movementSchema>;

/**
 * The tablet's one mapping of refusals to answers: `{message, part_id}` with 422 for any domain error
 * (the page shows it next to the part it names), and the upload table's status for a refused photo (about
 * the part the request names).
 */
function refusalAnswer(c: Context, error: DomainError | UploadRefused): Response {
  if (error instanceof DomainError) return c.json({ message: error.message, part_id: error.partId }, 422);
  const partId = parseId(c.req.query("part_id")) ?? undefined;
  return c.json({ message: error.message, part_id: partId }, UPLOAD_REFUSALS[error.reason].status);
}

async function readJson(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new DomainError("invalid", "Request body must be JSON.");
  }
}

/**
 * What every job's answer says of the claim a search found: its rego, number, the parts offered with their
 * quantity, and the claim's other parts (not movable in this job now) with their status in a driver's words.
 */
async function claimFound(
  deps: AppDeps,
  job: JobName,
  r: {
    rego: string;
    claim_number: string;
    parts_list: { parts_order_id: number; part_no: string; description: string }[];
  },
): Promise<FoundClaim> {
  const all = await claimParts(deps.db, r.claim_number);
  const offered = new Set(r.parts_list.map((p) => p.parts_order_id));
  const qty = new Map(all.map((p) => [p.id, p.qty]));
  return {
    job,
    rego: r.rego,
    claim_number: r.claim_number,
    parts: r.parts_list.map((p) => ({
      id: p.parts_order_id,
      part_no: p.part_no,
      description: p.description,
      // No code deletes a part row, so every offered part is among the claim's parts read just after.
      qty: qty.get(p.parts_order_id)!,
    })),
    not_ready: all.filter((p) => !offered.has(p.id)).map((p) => ({
      id: p.id,
      part_no: p.part_no,
      description: p.description,
      qty: p.qty,
      status: PART_STATUS_WORDS[p.status],
    })),
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
async function searchRefusal(deps: AppDeps, rego: string, error: DomainError): Promise<ApiRefusal> {
  const regos = error.kind === "invalid" ? await matchingRegos(deps.db, rego) : [];
  if (regos.length > 1) {
    return { message: error.message, regos, next_step: "Tap the vehicle you mean, or type the full rego." };
  }
  const next = SEARCH_NEXT_STEP[error.kind];
  return { message: error.message, ...(next ? { next_step: next } : {}) };
}

/** What the job finds for a rego. "collect" with an open return trip, and "return" without one, say so. */
async function findForJob(
  deps: AppDeps,
  user: User,
  job: JobName,
  rego: string,
): Promise<FoundClaim | ApiRefusal> {
  const movement_type = job === "deliver" ? "direct" : "reverse";
  let r;
  try {
    r = await handlerEvents.Parts_search_details.run(deps, { user }, {
      user_email: user.email,
      details: { rego, movement_type },
    });
  } catch (error) {
    // Nothing to collect and no trip open: for "return" the trip is what is missing.
    if (job === "return" && error instanceof DomainError && error.kind === "nothing_to_move") {
      return { message: "Return trip not found." };
    }
    throw error;
  }
  if (!("stage" in r)) {
    return { ...await claimFound(deps, job, r), repairer_id: r.repairer, repairer_name: r.repairer_name };
  }
  if (r.stage === "dropoff" && job === "collect") {
    return {
      message:
        `${rego.trim()} has a return trip in progress (parts on the truck). Finish it with "${JOBS.return.title}" first.`,
      switch_to: "return",
    };
  }
  if (r.stage === "pickup" && job === "return") return { message: "Return trip not found." };
  return {
    ...await claimFound(deps, job, r),
    ...(r.stage === "dropoff" ? { hq_location: r.hq_location, movement_id: r.parts_movement_id } : {}),
  };
}

/** Each job's submission is one handler event, given the payload the phone would send for it. */
const SUBMIT: Record<
  JobName,
  (deps: AppDeps, user: User, m: MovementRequest) => Promise<{ parts_movement_id: number }>
> = {
  deliver: (deps, user, m) =>
    handlerEvents.parts_drop_off.run(deps, { user }, {
      user_email: user.email,
      details: {
        rego: m.rego,
        movement_type: "direct",
        delivery_location: { id: m.repairer_id },
        parts: m.parts,
      },
    }),
  collect: (deps, user, m) =>
    handlerEvents.parts_pick_up_reverse.run(deps, { user }, {
      user_email: user.email,
      details: { rego: m.rego, movement_type: "reverse", parts: m.parts },
    }),
  return: (deps, user, m) => {
    // The search hands the page the open trip; a return without one has nothing to finish.
    if (m.movement_id === undefined) throw new DomainError("not_found", "Return trip not found.");
    return handlerEvents.parts_drop_off_reverse.run(deps, { user }, {
      user_email: user.email,
      details: { rego: m.rego, movement_type: "reverse", parts_movement_id: m.movement_id, parts: m.parts },
    });
  },
};

/** The JSON endpoints: small bodies. */
function jsonRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.post("/ping", (c) => c.body(null, 204));

  app.post("/search", async (c) => {
    const { job, rego } = parseInput(searchSchema, await readJson(c));
    let found;
    try {
      found = await findForJob(deps, c.var.session!.user, job, rego);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return c.json(await searchRefusal(deps, rego, error), 422);
    }
    return "parts" in found ? c.json(found) : c.json(found, 422);
  });

  app.post("/movements", async (c) => {
    const input = parseInput(movementSchema, await readJson(c));
    const movementId = (await SUBMIT[input.job](deps, c.var.session!.user, input)).parts_movement_id;
    return c.json({ movement_id: movementId, receipt_url: `/tablet/movements/${movementId}` });
  });
  return app;
}

/** The photo endpoint: the body is the photo itself, streamed to storage under the photo cap. */
function photoRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const maxBytes = deps.config.maxPhotoBytes;
  app.use(
    limitStreamedBody(deps, maxBytes, () => {
      throw photoTooLarge(maxBytes);
    }),
    requireTabletUser(),
    // The photo is the body: the token comes in the X-CSRF-Token header only (the body stays unread).
    csrfProtect(deps, { headerOnly: true }),
  );
  app.post("/", async (c) => {
    const { job, rego, part_id } = parseInput(photoQuery, c.req.query());
    // 2a: checks the part may be photographed for this flow and creates the staged row (D17).
    const staged = await handlerEvents.parts_movement_upload_token.run(deps, { user: c.var.session!.user }, {
      Parts_Order: part_id,
      Movement_Stage: FLOWS[JOBS[job].flow].stage,
      rego,
      user_email: c.var.session!.user.email,
    });
    // 2b: stores the bytes (type, size and pixel checks) and attaches them to the staged row (D18).
    const stored = await storeStagedPhoto(deps, {
      recordId: staged.record_id,
      token: staged.token,
      readFile: (sink) => sink(c.req.raw.body ?? ReadableStream.from<Uint8Array>([])),
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
