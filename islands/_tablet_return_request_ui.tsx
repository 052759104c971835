/**
 * The parts of the "Ask HQ to return parts" panel (islands/_tablet_return_request.tsx) that only show or read:
 * the request's state as the driver reads it, the optional photo's picker, and the passive read of the
 * request's state.
 */
import type { ReturnRequestAnswer } from "@/components/tablet_jobs.ts";

/** A passive GET of the request's state (`X-HQ-Live`: made by the page itself, routes/web/session.ts). */
export async function readRequest(id: number, csrf: string): Promise<ReturnRequestAnswer | null | "gone"> {
  try {
    const res = await fetch(`/tablet/api/return-requests/${id}`, {
      headers: { accept: "application/json", "x-csrf-token": csrf, "x-hq-live": "1" },
      credentials: "same-origin",
    });
    if (res.status === 404) return "gone";
    if (!res.ok) return null;
    return await res.json() as ReturnRequestAnswer;
  } catch {
    return null;
  }
}

const time = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** The optional photo for HQ: the rear camera, a preview, and a way to take it back. */
export function RequestPhotoPicker(
  { photo, onFile, onRemove }: {
    photo: { url: string } | null;
    onFile: (file: File) => void;
    onRemove: () => void;
  },
) {
  return (
    <div class="flex flex-wrap items-center gap-4">
      <label class="btn btn-secondary focus-within:outline-4 focus-within:outline-offset-2 focus-within:outline-black">
        <span aria-hidden="true">{photo ? "Retake photo" : "Add a photo (optional)"}</span>
        <input
          type="file"
          accept="image/*"
          capture="environment"
          class="visually-hidden"
          aria-label="Photo for HQ (optional)"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = "";
            if (file) onFile(file);
          }}
        />
      </label>
      {photo && (
        <>
          <img src={photo.url} alt="Photo for HQ" class="h-20 w-20 rounded object-cover" />
          <button
            type="button"
            class="btn btn-secondary"
            onClick={onRemove}
          >
            Remove photo
          </button>
        </>
      )}
    </div>
  );
}

export function RequestState({ request }: { request: ReturnRequestAnswer }) {
  const parts = request.parts.map((p) => p.part_no).join(", ");
  switch (request.state) {
    case "open":
      return (
        <p class="msg-info" role="status" data-testid="return-request-state" data-state="open">
          Asked HQ at {time(request.requested_at)} ({request.requested_by}) to return {parts}
          {request.photo_id ? ", with a photo" : ""}. Waiting for a dispatcher: this screen updates when HQ
          decides.
        </p>
      );
    case "approved":
      return (
        <p class="msg-ok" role="status" data-testid="return-request-state" data-state="approved">
          HQ approved the return of {parts}: they are flagged for pickup.
        </p>
      );
    case "declined":
      return (
        <div
          class="msg-error space-y-1"
          role="alert"
          data-testid="return-request-state"
          data-state="declined"
        >
          <p>HQ declined the return of {parts}{request.decided_by ? ` (${request.decided_by})` : ""}:</p>
          <p class="font-normal" data-testid="decline-reason">{request.decline_reason}</p>
        </div>
      );
  }
}
