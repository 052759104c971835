/**
 * The tablet's camera scan (docs/tablet.md "Scanning"): a chunk of its own, fetched when the driver presses
 * Scan. It opens the rear camera and reads QR codes from the video continuously, with the browser's
 * `BarcodeDetector` where it reads QR codes, else the `barcode-detector` polyfill (zxing-wasm), itself a
 * further chunk fetched only then, whose WebAssembly comes from this server (render/assets/decoder.ts), never
 * a CDN. Each code goes the wedge's way (islands/_tablet_scan.tsx); a label held in view counts once.
 */
import { useEffect, useRef, useState } from "preact/hooks";

/** Where the build serves the decoder's WebAssembly (render/assets/decoder.ts). */
declare const ZXING_WASM_URL: string;

interface Detector {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
}

interface NativeDetector {
  new (options: { formats: string[] }): Detector;
  getSupportedFormats(): Promise<string[]>;
}

/** A code seen again within this time of its last sighting is the same label still in view. */
const SAME_READ_MS = 2000;
/** The pause between two looks at the video: a few reads a second, without keeping the CPU busy. */
const LOOK_EVERY_MS = 150;

let detector: Promise<Detector> | undefined;
/** The last code read and when it was last seen: kept across panels (the rego step's, then the parts'). */
const last = { code: "", at: 0 };

async function qrDetector(): Promise<Detector> {
  const native = (globalThis as { BarcodeDetector?: NativeDetector }).BarcodeDetector;
  if (native && (await native.getSupportedFormats().catch((): string[] => [])).includes("qr_code")) {
    return new native({ formats: ["qr_code"] });
  }
  const { BarcodeDetector, prepareZXingModule } = await import("barcode-detector/ponyfill");
  prepareZXingModule({
    overrides: {
      locateFile: (path: string, prefix: string) => path.endsWith(".wasm") ? ZXING_WASM_URL : prefix + path,
    },
  });
  return new BarcodeDetector({ formats: ["qr_code"] });
}

/** Whether a code read now is a new read (not the label still in front of the camera). */
function isNewRead(code: string, now: number): boolean {
  const fresh = code !== last.code || now - last.at > SAME_READ_MS;
  last.code = code;
  last.at = now;
  return fresh;
}

/** The camera's video and **Stop**; `onCode` gets each new code read. */
export function CameraPanel({ onCode, onClose }: { onCode: (code: string) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [state, setState] = useState<"starting" | "reading" | string>("starting");
  const read = useRef(onCode);
  read.current = onCode;

  useEffect(() => {
    let stream: MediaStream | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const look = async (d: Detector) => {
      if (stopped) return;
      const el = video.current;
      if (el && el.readyState >= 2) {
        try {
          const now = Date.now();
          for (const { rawValue } of await d.detect(el)) if (isNewRead(rawValue, now)) read.current(rawValue);
        } catch { /* a frame the decoder could not take: the next one */ }
      }
      timer = setTimeout(() => look(d), LOOK_EVERY_MS);
    };
    (async () => {
      try {
        detector ??= qrDetector();
        stream = await navigator.mediaDevices.getUserMedia({
          video: { facingMode: "environment" },
          audio: false,
        });
        if (stopped) return;
        video.current!.srcObject = stream;
        await video.current!.play();
        const d = await detector;
        if (stopped) return;
        setState("reading");
        void look(d);
      } catch (error) {
        detector = undefined;
        if (!stopped) {
          const why = error instanceof DOMException && error.name === "NotAllowedError"
            ? "the camera is not allowed for this page"
            : "no camera or no decoder";
          setState(`The camera could not scan (${why}): type the code or use a hand scanner.`);
        }
      }
    })();
    return () => {
      stopped = true;
      clearTimeout(timer);
      for (const track of stream?.getTracks() ?? []) track.stop();
    };
  }, []);

  const problem = state !== "starting" && state !== "reading";
  return (
    <div class="space-y-3" data-testid="camera" data-state={problem ? "failed" : state}>
      <video
        ref={video}
        class="aspect-video w-full max-w-xl rounded-xl bg-slate-900 object-cover"
        aria-label="Camera"
        muted
        playsInline
      />
      <div class="flex flex-wrap items-center gap-3">
        <p class={problem ? "msg-error grow" : "grow"} role={problem ? "alert" : "status"}>
          {state === "starting"
            ? "Starting the camera…"
            : state === "reading"
            ? "Point the camera at a label."
            : state}
        </p>
        <button type="button" class="btn btn-secondary" onClick={onClose}>Stop</button>
      </div>
    </div>
  );
}
