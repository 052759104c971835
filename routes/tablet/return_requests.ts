/**
 * The tablet's side of return requests (docs/return-requests.md), mounted by routes/tablet/api.ts behind
 * the same body limit, driver check and X-CSRF-Token header as the other JSON endpoints; refusals go
 * through the API's one mapping (`{message, part_id}`, 422; an unknown request: 404).
 *
 *   POST /return-requests      {rego, parts: [id…], note?, client_key} → ReturnRequestAnswer (+ joined)
 *   GET  /return-requests/:id  → ReturnRequestAnswer (the tablet polls it while the claim is open)
 *   POST /return-requests/:id/photo  (the photo as the body, returnRequestPhotoRoutes) → ReturnRequestAnswer
 */
import { Hono } from "hono";
import { z } from "zod";
import type { ReturnOffer as OfferAnswer, ReturnRequestAnswer } from "@/components/tablet_jobs.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { attachReturnRequestPhoto } from "@/lib/return_request_photo.ts";
import {
  loadReturnRequest,
  requestReturn,
  RETURN_MAX_PARTS,
  RETURN_TEXT_MAX,
  type ReturnRequest,
} from "@/lib/return_requests.ts";
import type { ReturnOffer } from "@/lib/return_request_offer.ts";
import { idField, parseId, parseInput, regoField } from "@/lib/validation.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { readJson } from "@/routes/tablet/json_body.ts";
import { photoBodyApp, rawBody } from "@/routes/tablet/photo_body.ts";

const NOT_FOUND = "Return request not found.";

const requestSchema = z.object({
  rego: regoField,
  parts: z.array(idField).min(1).max(RETURN_MAX_PARTS),
  // The use case trims and checks the text; the cap here only bounds what is read.
  note: z.string().max(RETURN_TEXT_MAX * 2).nullish(),
  client_key: z.string().uuid(),
});

/** A request in the tablet's words. */
export function requestAnswer(r: ReturnRequest): ReturnRequestAnswer {
  return {
    id: r.id,
    state: r.state,
    requested_by: r.requestedBy.name,
    requested_at: r.requestedAt.toISOString(),
    note: r.note,
    decline_reason: r.declineReason,
    decided_by: r.decidedBy,
    photo_id: r.photoId,
    parts: r.parts.map((p) => ({
      id: p.id,
      part_no: p.partNo,
      description: p.description,
      flagged: p.flagged,
    })),
  };
}

export function offerAnswer(rego: string, o: ReturnOffer): OfferAnswer {
  return {
    rego,
    claim_number: o.claimNumber,
    repairer_name: o.repairerName,
    parts: o.parts.map(({ id, part_no, description, qty }) => ({ id, part_no, description, qty })),
    request: o.request ? requestAnswer(o.request) : null,
  };
}

export function returnRequestRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.post("/", async (c) => {
    const input = parseInput(requestSchema, await readJson(c));
    const { request, joined } = await requestReturn(deps, c.var.session!.user, {
      rego: input.rego,
      partIds: input.parts,
      note: input.note,
      clientKey: input.client_key,
    });
    return c.json({ ...requestAnswer(request), joined });
  });
  app.get("/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    const request = id === null ? null : await loadReturnRequest(deps.db, id);
    if (!request) {
      await c.req.raw.body?.cancel().catch(() => {}); // not read: nothing of it is wanted
      return c.json({ message: NOT_FOUND }, 404);
    }
    return c.json(requestAnswer(request));
  });
  return app;
}

/**
 * The requesting driver's photo of the parts, after the request (docs/return-requests.md "Photo"), behind the
 * photo cap (mounted by routes/tablet/api.ts beside the part photos). An unknown request, or one of another
 * driver, is 404 like the GET.
 */
export function returnRequestPhotoRoutes(deps: AppDeps) {
  const app = photoBodyApp(deps);
  app.post("/:id/photo", async (c) => {
    const id = parseId(c.req.param("id"));
    const request = id === null
      ? null
      : await attachReturnRequestPhoto(deps, c.var.session!.user, id, rawBody(c));
    if (!request) {
      await c.req.raw.body?.cancel().catch(() => {}); // not read: nothing of it is wanted
      return c.json({ message: NOT_FOUND }, 404);
    }
    return c.json(requestAnswer(request));
  });
  return app;
}
