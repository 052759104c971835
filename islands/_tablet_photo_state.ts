/**
 * A photo on a job page as the driver sees it (preview, upload state) from its record in the device's
 * queue (islands/_tablet_queue_db.ts) and what the sender is doing with it (islands/_tablet_queue.ts):
 * a part's photo, or the handover's photo of where the parts were left.
 */
import type { Transfer } from "./_tablet_queue.ts";
import type { QueuedPhoto } from "./_tablet_queue_db.ts";

export type PhotoStatus = "preparing" | "queued" | "uploading" | "waiting" | "done" | "failed";

export interface PhotoState {
  /** The photo's record in the queue. */
  key: string;
  /** An object URL of the bytes on the device, the server's thumbnail, or "" (none to show). */
  preview: string;
  status: PhotoStatus;
  progress: number;
  /** When the next automatic try starts (status "waiting"). */
  retryAt?: number;
  error?: string;
}

/**
 * The state of a photo kept on the device. `previews` holds the object URLs made so far, by record key
 * (made here when missing; the caller revokes them). A stored part photo shows its server thumbnail; a
 * handover image's answer names no photo, so once sent it shows none.
 */
export function photoStateOf(
  record: QueuedPhoto,
  previews: Map<string, string>,
  transfer: Transfer | undefined,
): PhotoState {
  let preview = previews.get(record.key);
  if (!preview) {
    preview = record.blob
      ? URL.createObjectURL(record.blob)
      : record.photoId === undefined
      ? ""
      : `/photos/${record.photoId}/thumb`;
    if (record.blob) previews.set(record.key, preview);
  }
  const base = { key: record.key, preview, progress: 0 };
  if (record.imageId !== undefined) return { ...base, status: "done", progress: 1 };
  if (record.error) {
    return { ...base, status: "failed", error: record.partError ? undefined : record.error };
  }
  if (!transfer) return { ...base, status: "queued" };
  return transfer.state === "sending"
    ? { ...base, status: "uploading", progress: transfer.progress }
    : { ...base, status: "waiting", retryAt: transfer.retryAt };
}
