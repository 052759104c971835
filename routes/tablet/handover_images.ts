/**
 * The handover's images on the tablet (docs/handover.md): `POST /tablet/api/handover-images?kind=signature`
 * (the receiver's signature, a PNG) or `?kind=left` (the photo of where the parts were left). The body is the
 * image itself, streamed to the photo store under the larger of the two caps (each kind's own cap is the
 * store's, lib/handover/images.ts) like /tablet/api/photos; the answer is `{image_id}` for the submission's
 * `handover`. Refusals go through the tablet API's one mapping (routes/tablet/api.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { StoredHandoverImage } from "@/components/tablet_jobs.ts";
import { handoverImageMaxBytes, signatureTooLarge, stageHandoverImage } from "@/lib/handover/images.ts";
import type { HandoverInput } from "@/lib/handover/record.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { photoTooLarge } from "@/lib/photos/checked_image.ts";
import { idField, parseInput } from "@/lib/validation.ts";
import { requireTabletUser } from "@/routes/tablet/guard.ts";
import { limitStreamedBody } from "@/routes/web/body_limits.ts";
import { csrfProtect, type SessionEnv } from "@/routes/web/session.ts";

/** The submission's handover step; the use case checks it against the job's policy. */
export const handoverField = z.object({
  // Checked by the use case (lib/handover/record.ts) so a refusal says what is wrong in the driver's words.
  receiver_name: z.string().max(1000).nullish(),
  signature_image_id: idField.nullish(),
  unsigned_reason: z.string().max(64).nullish(),
  left_image_id: idField.nullish(),
}).nullish().transform((h): HandoverInput | null =>
  h
    ? {
      receiverName: h.receiver_name ?? null,
      signatureImageId: h.signature_image_id ?? null,
      unsignedReason: h.unsigned_reason ?? null,
      leftImageId: h.left_image_id ?? null,
    }
    : null
);

const imageQuery = z.object({ kind: z.enum(["signature", "left"]) });

export function handoverImageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const maxBytes = handoverImageMaxBytes(deps.config);
  app.use(
    limitStreamedBody(deps, maxBytes, (c) => {
      throw c.req.query("kind") === "signature" ? signatureTooLarge() : photoTooLarge(maxBytes);
    }),
    requireTabletUser(),
    // The image is the body: the token comes in the X-CSRF-Token header only.
    csrfProtect(deps, { headerOnly: true }),
  );
  app.post("/", async (c) => {
    const { kind } = parseInput(imageQuery, c.req.query());
    const imageId = await stageHandoverImage(
      deps,
      c.var.session!.user,
      kind,
      (sink) => sink(c.req.raw.body ?? ReadableStream.from<Uint8Array>([])),
    );
    return c.json({ image_id: imageId } satisfies StoredHandoverImage);
  });
  return app;
}
