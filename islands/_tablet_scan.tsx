/**
 * Scanning a part's label on the tablet's rego and parts steps (docs/tablet.md "Scanning"): one field,
 * "Scan or type a code", that a keyboard-wedge scanner types into (the code, then Enter), and the camera
 * (islands/_tablet_camera.tsx, loaded only when the driver presses Scan) reading into the same path. The
 * server decides what a code names (`POST /tablet/api/scan`, docs/labels.md "The scan endpoint"); this
 * module shows its refusal word for word and ticks nothing, or hands the part to the step, with a beep and
 * a buzz. The field keeps focus after each read, so a scanner can read part after part.
 */
import { useRef, useState } from "preact/hooks";
import type { CameraPanel } from "./_tablet_camera.tsx";
import type { JobName, ScanAnswer } from "@/components/tablet_jobs.ts";
import { postJson } from "./_tablet_net.ts";

export const SCAN_FIELD_ID = "scan-code";
const SCAN_OFFLINE = "Scanning needs the network; tick the part by hand.";

/**
 * What a step does with the part a code named: `true` once ticked, a message when it cannot (shown like
 * the server's refusals), `false` when the step shows its own message (the rego step's search).
 */
export type OnPart = (answer: ScanAnswer) => Promise<true | false | string>;

/** Where a read goes, decided when its turn comes: the claim on screen (`rego`, the parts step) and the step. */
export type ScanTarget = () => { rego?: string; onPart: OnPart };

interface Note {
  kind: "error" | "ok";
  text: string;
}

let audio: AudioContext | undefined;

/** A short beep and a buzz: the driver hears or feels each read without looking (no-ops where missing). */
function signalRead(): void {
  navigator.vibrate?.(80);
  try {
    audio ??= new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 1200;
    gain.gain.value = 0.2;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.1);
  } catch { /* no sound on this device: the message on screen still says it */ }
}

type Camera = typeof CameraPanel;
let cameraModule: Promise<{ CameraPanel: Camera }> | undefined;

/**
 * The scan state of the flow page, kept across its steps: a read on the rego step is told on the parts
 * step, and the camera stays open from one to the other.
 */
export function useScanner(job: JobName, csrf: string, doneWord = "ticked") {
  const [note, setNote] = useState<Note | null>(null);
  const [camera, setCamera] = useState<Camera | null>(null);
  // Reads take turns: a scanner may read the next label before the server has answered the last one.
  const turn = useRef(Promise.resolve());

  /** Scan: the camera's chunk (and, on a browser without a QR reader, the decoder) is fetched now. */
  async function openCamera(): Promise<void> {
    if (!navigator.onLine) return setNote({ kind: "error", text: SCAN_OFFLINE });
    cameraModule ??= import("./_tablet_camera.tsx");
    try {
      const { CameraPanel } = await cameraModule;
      setCamera(() => CameraPanel);
    } catch {
      cameraModule = undefined;
      setNote({ kind: "error", text: SCAN_OFFLINE });
    }
  }

  /** Reads one code, after the reads before it; `target` says where it goes once its turn comes. */
  function read(code: string, target: ScanTarget): Promise<void> {
    const text = code.trim();
    if (text) turn.current = turn.current.then(() => readNow(text, target)).catch(() => {});
    return turn.current;
  }

  async function readNow(text: string, target: ScanTarget): Promise<void> {
    if (!navigator.onLine) return setNote({ kind: "error", text: SCAN_OFFLINE });
    const { rego, onPart } = target();
    const answer = await postJson<ScanAnswer>("/tablet/api/scan", { code: text, job, rego }, csrf);
    if (answer.status === 0) setNote({ kind: "error", text: SCAN_OFFLINE });
    else if (answer.data) {
      signalRead();
      const done = await onPart(answer.data);
      if (done === true) setNote({ kind: "ok", text: `✓ ${answer.data.part_no} ${doneWord}` });
      else setNote(done === false ? null : { kind: "error", text: done });
    } else if (answer.status !== 401) {
      setNote({ kind: "error", text: answer.message ?? `Scan failed (${answer.status}). Try again.` });
    }
  }

  return { note, read, camera, openCamera, closeCamera: () => setCamera(null) };
}

export type Scanner = ReturnType<typeof useScanner>;

/** The field (and what the last read did); `onCode` gets each code typed or scanned, with Enter. */
export function ScanField({ scanner, onCode }: { scanner: Scanner; onCode: (code: string) => void }) {
  const [value, setValue] = useState("");
  const { note, camera: Camera } = scanner;
  return (
    <form
      class="card space-y-3"
      data-testid="scan"
      onSubmit={(e) => {
        e.preventDefault();
        // Cleared at once and never disabled: the field keeps focus for the next label.
        onCode(value);
        setValue("");
      }}
    >
      <label for={SCAN_FIELD_ID} class="field-label">Scan or type a code</label>
      <div class="flex flex-wrap gap-3">
        <input
          id={SCAN_FIELD_ID}
          class="field grow basis-64 font-mono text-2xl uppercase"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          autoComplete="off"
          autoCapitalize="characters"
          spellcheck={false}
          enterKeyHint="go"
          maxLength={64}
          aria-describedby={note ? "scan-note" : undefined}
        />
        {!Camera && (
          <button type="button" class="btn btn-secondary" onClick={scanner.openCamera}>
            Scan
          </button>
        )}
      </div>
      {Camera && <Camera onCode={onCode} onClose={scanner.closeCamera} />}
      {note && (
        <p
          id="scan-note"
          class={note.kind === "error" ? "msg-error" : "msg-ok"}
          role={note.kind === "error" ? "alert" : "status"}
          data-testid={note.kind === "error" ? "scan-error" : "scan-ok"}
        >
          {note.text}
        </p>
      )}
    </form>
  );
}
