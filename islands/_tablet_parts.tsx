/**
 * One part's card in the TabletFlow island: the toggle, the quantity, its photo and the photo's upload
 * state. Faults are red; a photo still on its way (waiting for the network, uploading) is amber, never red.
 */
import type { PhotoState } from "./_tablet_photo_state.ts";
import type { PartState } from "./_tablet_store.ts";

/** A photo taken and not yet stored or refused: something to wait for, not a fault. */
export const onItsWay = (photo?: PhotoState) =>
  photo?.status === "preparing" || photo?.status === "queued" || photo?.status === "uploading" ||
  photo?.status === "waiting";

const seconds = (at?: number) => Math.max(0, Math.ceil(((at ?? 0) - Date.now()) / 1000));

export function CameraButton(
  { label, primary, onFile }: { label: string; primary?: boolean; onFile: (file: File) => void },
) {
  return (
    <label
      class={`btn ${
        primary ? "btn-primary" : "btn-secondary"
      } focus-within:outline-4 focus-within:outline-offset-2 focus-within:outline-black`}
    >
      <span aria-hidden="true">{primary ? "Take photo" : "Retake"}</span>
      <input
        type="file"
        accept="image/*"
        capture="environment"
        class="visually-hidden"
        aria-label={label}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = "";
          if (file) onFile(file);
        }}
      />
    </label>
  );
}

export function PhotoStatusLine({ photo }: { photo: PhotoState }) {
  switch (photo.status) {
    case "preparing":
      return <p>Preparing the photo…</p>;
    case "queued":
      return <p>Waiting to upload…</p>;
    case "uploading": {
      const pct = Math.round(photo.progress * 100);
      return (
        <div class="space-y-1">
          <p>Uploading… {pct} %</p>
          <progress class="h-3 w-full max-w-xs" max={100} value={pct} aria-label="Upload progress" />
        </div>
      );
    }
    case "waiting":
      return (
        <p class="font-semibold text-amber-900">
          Not uploaded yet: no connection. Trying again in {seconds(photo.retryAt)} s.
        </p>
      );
    case "done":
      return <p class="font-semibold text-green-800" data-testid="photo-done">✓ Photo uploaded</p>;
    case "failed":
      return <p class="font-semibold text-red-800">{photo.error ?? "Not uploaded."}</p>;
  }
}

export function PartCard(
  { part, qty, toggleLabel, onToggle, onPhoto, onRetry }: {
    part: PartState;
    /** How many of this part the claim ordered (the driver counts them onto the truck). */
    qty?: number;
    toggleLabel: string;
    onToggle: (on: boolean) => void;
    onPhoto: (file: File) => void;
    onRetry: () => void;
  },
) {
  const errorId = `part-error-${part.id}`;
  const border = part.error ? "border-red-800" : part.confirmed ? "border-blue-800" : "";
  return (
    // scroll-my: a part scrolled to (a rule failure names it) stays clear of the sticky header and bar.
    <li
      class={`card scroll-my-40 space-y-3 ${border}`}
      data-testid={`part-${part.part_no}`}
      data-part-id={part.id}
    >
      <label class="flex min-h-14 cursor-pointer items-center gap-4">
        <input
          type="checkbox"
          class="toggle"
          checked={part.confirmed}
          aria-describedby={part.error ? errorId : undefined}
          onChange={(e) => onToggle(e.currentTarget.checked)}
        />
        <span class="grow">
          <span class="sr-only">{toggleLabel}:</span>
          <strong class="block font-mono text-xl">{part.part_no}</strong>
          {part.description}
          {qty !== undefined && (
            <span class="ml-2 font-semibold whitespace-nowrap" data-testid="part-qty">· Qty {qty}</span>
          )}
        </span>
        <span
          aria-hidden="true"
          class={`rounded-full px-3 py-1 text-base font-semibold ${
            part.confirmed ? "bg-blue-800 text-white" : "bg-slate-200 text-slate-900"
          }`}
        >
          {part.confirmed ? toggleLabel : "Tap to select"}
        </span>
      </label>
      {part.error && <p id={errorId} class="msg-error" role="alert" data-testid="part-error">{part.error}</p>}
      {part.confirmed && (
        <div class="flex items-start gap-4 border-t-2 border-slate-200 pt-3">
          {part.photo && (
            <img
              src={part.photo.preview}
              alt={`Photo of ${part.part_no}`}
              class="h-28 w-28 shrink-0 rounded-lg border-2 border-slate-300 object-cover"
            />
          )}
          <div class="flex grow flex-wrap items-center gap-3">
            <div class="grow basis-56">
              {part.photo ? <PhotoStatusLine photo={part.photo} /> : <p>Photograph this part.</p>}
            </div>
            {(part.photo?.status === "waiting" || part.photo?.status === "failed") && (
              <button type="button" class="btn btn-secondary" onClick={onRetry}>
                {part.photo.status === "waiting" ? "Retry now" : "Retry upload"}
              </button>
            )}
            <CameraButton
              label={`${part.photo ? "Retake" : "Take"} photo of ${part.part_no}`}
              primary={!part.photo}
              onFile={onPhoto}
            />
          </div>
        </div>
      )}
    </li>
  );
}
