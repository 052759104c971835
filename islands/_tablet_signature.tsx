/**
 * The receiver's signature pad on the tablet (docs/handover.md), drawn with a finger, a gloved finger or a
 * stylus through `signature_pad`. Part of the handover step's chunk, which the review loads when it opens
 * (islands/_tablet_review.tsx).
 *
 * The canvas follows its box and the screen's pixel ratio: on a resize (a turned tablet) the strokes are
 * drawn again, shrunk to fit when they would fall outside; a signature that would have to shrink too much to
 * stay legible is cleared instead, and the pad says so.
 */
import type { RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import SignaturePad from "signature_pad";
import type { StrokeGroup } from "./_tablet_queue_db.ts";

/** What the handover step asks of the pad at confirmation. */
export interface PadHandle {
  /** The signature as a PNG, or null when nothing is drawn. */
  toPng(): Promise<Blob | null>;
}

/** Past this the canvas's pixels grow without a sharper signature, only a larger PNG (max 256 KiB). */
const MAX_RATIO = 2;
/** A signature shrunk below this share of its size to fit is no longer the receiver's mark. */
const MIN_SCALE = 0.4;

export const PAD_CLEARED =
  "The screen changed size and the signature no longer fitted: ask the receiver to sign again.";

/** The strokes scaled to fit a box of `width`×`height` CSS px, or null when they would shrink too far. */
export function fitStrokes(strokes: StrokeGroup[], width: number, height: number): StrokeGroup[] | null {
  let maxX = 0;
  let maxY = 0;
  for (const s of strokes) {
    for (const p of s.points) {
      maxX = Math.max(maxX, p.x);
      maxY = Math.max(maxY, p.y);
    }
  }
  const scale = Math.min(1, (width - 2) / Math.max(maxX, 1), (height - 2) / Math.max(maxY, 1));
  if (scale >= 1) return strokes;
  if (scale < MIN_SCALE) return null;
  return strokes.map((s) => ({
    ...s,
    points: s.points.map((p) => ({ ...p, x: p.x * scale, y: p.y * scale })),
  }));
}

export function SignatureField(props: {
  /** The strokes kept on the device (a reload shows them again). */
  strokes: StrokeGroup[];
  onStrokes: (strokes: StrokeGroup[]) => void;
  handle: RefObject<PadHandle | null>;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const pad = useRef<SignaturePad | null>(null);
  const onStrokes = useRef(props.onStrokes);
  onStrokes.current = props.onStrokes;
  const [ready, setReady] = useState(false);
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    // The element itself, not the ref: a resize may still be reported after the pad left the page (a
    // detached canvas has no size, so it is ignored).
    const c = canvas.current!;
    let size = "";
    /** Sizes the canvas to its box at the screen's ratio and draws the strokes again. */
    const fit = (strokes: StrokeGroup[]) => {
      const p = pad.current!;
      const ratio = Math.min(MAX_RATIO, Math.max(1, globalThis.devicePixelRatio || 1));
      const [w, h] = [c.offsetWidth, c.offsetHeight];
      if (!w || !h || size === `${w}x${h}@${ratio}`) return;
      size = `${w}x${h}@${ratio}`;
      c.width = Math.round(w * ratio);
      c.height = Math.round(h * ratio);
      c.getContext("2d")!.scale(ratio, ratio);
      p.clear();
      if (strokes.length === 0) return;
      const fitted = fitStrokes(strokes, w, h);
      if (fitted) p.fromData(fitted);
      else setNote(PAD_CLEARED);
      if (fitted !== strokes) onStrokes.current(fitted ?? []);
    };
    // Thick enough to read when drawn with a gloved finger.
    pad.current = new SignaturePad(c, { minWidth: 1.5, maxWidth: 4, penColor: "#000" });
    pad.current.addEventListener("endStroke", () => {
      setNote(null);
      onStrokes.current(pad.current!.toData());
    });
    fit(props.strokes);
    const observer = new ResizeObserver(() => fit(pad.current!.toData()));
    try {
      // In device pixels, so a new pixel ratio (zoom, another screen) resizes the canvas too.
      observer.observe(c, { box: "device-pixel-content-box" });
    } catch {
      observer.observe(c); // a browser without that box: CSS size changes only
    }
    props.handle.current = {
      toPng: () =>
        pad.current!.isEmpty()
          ? Promise.resolve(null)
          : new Promise((resolve) => c.toBlob(resolve, "image/png")),
    };
    setReady(true);
    return () => {
      observer.disconnect();
      pad.current?.off();
      props.handle.current = null;
    };
  }, []);

  const clear = () => {
    pad.current?.clear();
    setNote(null);
    onStrokes.current([]);
  };

  return (
    <div class="space-y-2">
      <div class="flex items-end justify-between gap-3">
        <p class="field-label" aria-hidden="true">Signature (sign in the box)</p>
        <button type="button" class="btn btn-secondary" onClick={clear}>
          Clear
        </button>
      </div>
      <canvas
        ref={canvas}
        aria-label="Signature"
        data-testid="signature-pad"
        data-ready={ready ? "" : undefined}
        class="block h-56 w-full touch-none rounded-xl border-2 border-slate-700 bg-white"
      />
      {note && <p class="msg-info" role="status" data-testid="pad-cleared">{note}</p>}
    </div>
  );
}
