/**
 * The tablet islands' JSON endpoints (`/tablet/api/…`): session-authenticated, CSRF-protected with the
 * X-CSRF-Token header. Each calls the same lib/ use case as the mobile handler, so rules and messages are
 * the same; a rule failure answers 422 `{message, part_id?}` so the page can put it next to its part.
 *
 *   POST /search      {job, rego}                                → FoundClaim
 *   POST /photos?job=&rego=&part_id=   body: the photo bytes      → {image_id, photo_id} (calls 2a + 2b)
 *   POST /movements   {job, rego, repairer_id?, movement_id?, parts[]} → {movement_id, receipt_url}
 *   POST /ping        keeps the session alive (the idle warning's "Stay signed in")
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import { type ApiRefusal, type FoundClaim, JOB_NAMES, type JobName, JOBS } from "@/islands/_tablet_jobs.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";
import { FLOWS } from "@/lib/flows.ts";
import { dropOff } from "@/lib/movements/drop_off.ts";
import { dropOffReverse } from "@/lib/movements/drop_off_reverse.ts";
import { repairShopIdField, submittedPartsField } from "@/lib/movements/input.ts";
import { pickUpReverse } from "@/lib/movements/pick_up_reverse.ts";
import { uploadPhoto, UploadRefused } from "@/lib/photos/upload.ts";
import { searchDirect, searchReverse } from "@/lib/search.ts";
import { createUploadToken, UPLOAD_FIELD_NAME } from "@/lib/photos/upload_tokens.ts";
import { idField, parseInput, regoField } from "@/lib/validation.ts";
import { requireTabletUser } from "@/routes/tablet/guard.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

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

const UPLOAD_STATUS: Record<UploadRefused["reason"], 400 | 401 | 413 | 415 | 422> = {
  bad_path: 400,
  unknown_address: 400,
  environment: 400,
  unauthorized: 401,
  not_multipart: 400,
  no_file: 400,
  empty: 400,
  too_large: 413,
  not_image: 415,
  too_many_pixels: 422,
};

const refuse = (c: Context, body: ApiRefusal, status: 400 | 401 | 409 | 413 | 415 | 422 = 422) =>
  c.json(body, status);

async function readJson(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new DomainError("invalid", "Request body must be JSON.");
  }
}

/** What every job's answer says of the claim a search found: its rego, number and the parts offered. */
function claimFound(
  job: JobName,
  r: {
    rego: string;
    claim_number: string;
    parts_list: { parts_order_id: number; part_no: string; description: string }[];
  },
): FoundClaim {
  return {
    job,
    rego: r.rego,
    claim_number: r.claim_number,
    parts: r.parts_list.map((p) => ({
      id: p.parts_order_id,
      part_no: p.part_no,
      description: p.description,
    })),
  };
}

/** What the job finds for a rego. "collect" with an open return trip, and "return" without one, say so. */
async function findForJob(deps: AppDeps, job: JobName, rego: string): Promise<FoundClaim | ApiRefusal> {
  if (job === "deliver") {
    const r = await searchDirect(deps.db, rego);
    return { ...claimFound(job, r), repairer_id: r.repairer, repairer_name: r.repairer_name };
  }
  let r;
  try {
    r = await searchReverse(deps.db, rego);
  } catch (error) {
    // Nothing to collect and no trip open: for "return" the trip is what is missing.
    if (job === "return" && error instanceof DomainError && error.kind === "nothing_to_move") {
      return { message: "Return trip not found." };
    }
    throw error;
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
    ...claimFound(job, r),
    ...(r.stage === "dropoff" ? { hq_location: r.hq_location, movement_id: r.parts_movement_id } : {}),
  };
}

export function apiRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.use("*", requireTabletUser());
  app.onError(async (error, c) => {
    if (!(error instanceof DomainError)) throw error;
    // A refused photo is not read to the end (a no-op when the body was already read).
    await c.req.raw.body?.cancel().catch(() => {});
    return refuse(c, { message: error.message, part_id: error.partId });
  });

  app.post("/ping", (c) => c.body(null, 204));

  app.post("/search", async (c) => {
    const { job, rego } = parseInput(searchSchema, await readJson(c));
    const found = await findForJob(deps, job, rego);
    return "parts" in found ? c.json(found) : refuse(c, found);
  });

  app.post("/photos", async (c) => {
    const { job, rego, part_id } = parseInput(photoQuery, c.req.query());
    const user = c.var.session!.user;
    // 2a: checks the part may be photographed for this flow and creates the staged row (D17).
    const token = await createUploadToken(deps, user, {
      partId: part_id,
      stage: FLOWS[JOBS[job].flow].stage,
      rego,
    });
    try {
      // 2b: stores the bytes (type, size and pixel checks) and attaches them to the staged row (D18).
      const stored = await uploadPhoto(deps, {
        recordId: token.record_id,
        fieldName: UPLOAD_FIELD_NAME,
        authorization: `Tablet-oauthtoken ${token.token}`,
        readFile: (sink) => sink(c.req.raw.body ?? ReadableStream.from<Uint8Array>([])),
      });
      return c.json({ image_id: token.record_id, photo_id: stored.photoId });
    } catch (error) {
      if (error instanceof UploadRefused) {
        await c.req.raw.body?.cancel().catch(() => {});
        return refuse(c, { message: error.message, part_id }, UPLOAD_STATUS[error.reason]);
      }
      throw error;
    }
  });

  app.post("/movements", async (c) => {
    const input = parseInput(movementSchema, await readJson(c));
    const user = c.var.session!.user;
    let movementId: number;
    if (input.job === "deliver") {
      const r = await dropOff(deps, user, {
        rego: input.rego,
        repairShopId: input.repairer_id,
        parts: input.parts,
      });
      movementId = r.parts_movement_id;
    } else if (input.job === "collect") {
      movementId =
        (await pickUpReverse(deps, user, { rego: input.rego, parts: input.parts })).parts_movement_id;
    } else {
      if (input.movement_id === undefined) throw new DomainError("not_found", "Return trip not found.");
      const r = await dropOffReverse(deps, user, {
        rego: input.rego,
        movementId: input.movement_id,
        parts: input.parts,
      });
      movementId = r.parts_movement_id;
    }
    return c.json({ movement_id: movementId, receipt_url: `/tablet/movements/${movementId}` });
  });

  return app;
}
