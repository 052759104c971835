/**
 * The handover's rules on the tablet (islands/_tablet_handover_rules.ts, docs/tablet.md "Handover"): when
 * each policy is met, the submission's `handover` built from the queued records alone, and the pad's
 * strokes fitted to a smaller box (islands/_tablet_signature.tsx).
 */
import assert from "node:assert/strict";
import type { HandoverStep } from "@/components/tablet_jobs.ts";
import { emptyHandover, handoverBody, handoverMissing } from "@/islands/_tablet_handover_rules.ts";
import { fitStrokes } from "@/islands/_tablet_signature.tsx";
import type { QueuedHandover, QueuedPhoto, StrokeGroup } from "@/islands/_tablet_queue_db.ts";

const reasons = [{ key: "shop_closed", label: "Shop closed" }];
const offer = (policy: HandoverStep["policy"]): HandoverStep => ({ policy, reasons });

function stroke(...points: [number, number][]): StrokeGroup {
  return {
    points: points.map(([x, y], i) => ({ x, y, pressure: 0.5, time: i })),
    dotSize: 0,
    minWidth: 1.5,
    maxWidth: 4,
    penColor: "#000",
    velocityFilterWeight: 0.7,
    compositeOperation: "source-over",
  };
}

const signed: QueuedHandover = {
  ...emptyHandover(),
  receiverName: " Pat ",
  strokes: [stroke([1, 1], [9, 9])],
};
const nobody: QueuedHandover = { ...emptyHandover(), nobody: true, reason: "shop_closed" };

function image(kind: "signature" | "left", over: Partial<QueuedPhoto> = {}): QueuedPhoto {
  return {
    key: kind,
    userId: 1,
    movementKey: "m",
    kind,
    job: "deliver",
    rego: "ABC123",
    bytes: 1,
    createdAt: 0,
    ...over,
  };
}

Deno.test("handover rules: what each policy needs before the driver may confirm", () => {
  assert.equal(handoverMissing(offer("required"), emptyHandover(), false), "Type the receiver's name.");
  assert.equal(
    handoverMissing(offer("required"), { ...signed, strokes: [] }, false),
    "Ask the receiver to sign in the box.",
  );
  assert.equal(
    handoverMissing(offer("required"), { ...signed, receiverName: "  " }, false),
    "Type the receiver's name.",
  );
  assert.equal(handoverMissing(offer("required"), signed, false), null);
  // "Nobody to sign" counts only where the policy allows it.
  assert.equal(handoverMissing(offer("required"), nobody, true), "Type the receiver's name.");
  assert.equal(
    handoverMissing(offer("optional"), { ...nobody, reason: "" }, true),
    "Choose why nobody signs.",
  );
  assert.equal(
    handoverMissing(offer("optional"), nobody, false),
    "Take a photo of where the parts were left.",
  );
  assert.equal(handoverMissing(offer("optional"), nobody, true), null);
  assert.equal(handoverMissing(offer("optional"), signed, false), null);
  assert.equal(handoverMissing(offer("off"), emptyHandover(), false), null);
  // A claim found before the policy existed asks for nothing.
  assert.equal(handoverMissing(undefined, emptyHandover(), false), null);
});

Deno.test("handover rules: the submission's handover comes from the stored records alone", () => {
  const sent = [image("signature", { imageId: 7 }), image("left", { imageId: 8 })];
  assert.deepEqual(handoverBody(offer("required"), signed, sent), {
    body: { receiver_name: "Pat", signature_image_id: 7 },
  });
  assert.deepEqual(handoverBody(offer("optional"), nobody, sent), {
    body: { unsigned_reason: "shop_closed", left_image_id: 8 },
  });
  assert.deepEqual(handoverBody(offer("off"), signed, sent), {});
  assert.deepEqual(handoverBody(undefined, signed, sent), {});
  // A refused image stops the movement with the server's words; a missing one says what to do.
  assert.deepEqual(
    handoverBody(offer("required"), signed, [image("signature", { error: "The signature is blank." })]),
    { refusal: "The signature is blank." },
  );
  assert.deepEqual(handoverBody(offer("optional"), nobody, []), {
    refusal: "Take a photo of where the parts were left.",
  });
});

Deno.test("signature pad: strokes are kept, shrunk to fit a smaller box, or dropped when too small to read", () => {
  const strokes = [stroke([10, 20], [600, 150]), stroke([700, 40])];
  assert.equal(fitStrokes(strokes, 1200, 224), strokes, "fits: unchanged");
  const fitted = fitStrokes(strokes, 600, 224)!;
  const xs = fitted.flatMap((s) => s.points.map((p) => p.x));
  assert.ok(Math.max(...xs) <= 598, `shrunk into the box: ${Math.max(...xs)}`);
  assert.equal(fitted[0].points[1].x / fitted[0].points[1].y, 600 / 150, "the same shape");
  assert.equal(fitStrokes(strokes, 200, 224), null, "a fifth of its size is not a signature");
});
