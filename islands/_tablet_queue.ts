/**
 * The sender of the tablet's durable queue (islands/_tablet_queue_db.ts). One per page, started by the
 * first island that asks for it with the signed-in driver's id and the page's CSRF token; it sends only
 * that driver's records, oldest first: every photo still on the device, then each confirmed movement
 * whose photos are stored. A record leaves the device only when the server acknowledged it.
 *
 * - Network faults, timeouts and 5xx are retried with backoff (1, 2, 4 … 30 s), and at once when the
 *   browser's `online` event fires or something new is queued.
 * - 401 or 403 (the session ended, or the tablet now belongs to another driver's session, whose CSRF
 *   token this page does not have) stop the sender and keep everything: it resumes on a page of the
 *   driver's next session. The server decides who sends; the client only ever offers its own driver's work.
 * - A refusal of a photo stays on the photo (the driver retries or retakes it); a refusal of a movement
 *   (a part raced away meanwhile) turns it back into a draft with the message next to the part.
 *
 * Tabs: a Web Lock per driver lets one tab send at a time; a BroadcastChannel tells the other tabs to
 * re-read the queue and to look for work.
 */
import type {
  JobName,
  StoredHandoverImage,
  StoredPhoto,
  SubmittedMovement,
} from "@/components/tablet_jobs.ts";
import { backoffMs, isRetryable, postJson, uploadBlob } from "./_tablet_net.ts";
import { handoverBody } from "./_tablet_handover_rules.ts";
import {
  deleteMovement,
  getMovement,
  movementsOf,
  photosOf,
  putMovement,
  queuedBytes,
  type QueuedMovement,
  type QueuedPhoto,
  updatePhoto,
} from "./_tablet_queue_db.ts";

/** What one record is doing right now (kept in memory: progress is not worth a disk write). */
export interface Transfer {
  state: "sending" | "waiting";
  attempts: number;
  progress: number;
  /** When the next automatic try starts (state "waiting"). */
  retryAt?: number;
}

/** What the driver's queue holds, for the always-visible count. */
export interface QueueSummary {
  /** Photos still only on the device (failed ones included). */
  photos: number;
  /** Confirmed movements not yet acknowledged. */
  movements: number;
  /** Jobs with a movement the server refused later: the driver must look at them. */
  refused: JobName[];
  /** The sender stopped: the session ended (or changed). */
  stopped: boolean;
}

export type QueueEvent =
  /** A transfer moved on (in memory only). */
  | { type: "progress" }
  /** What the device holds changed: read it again. */
  | { type: "changed" }
  | { type: "sent"; key: string; movementId: number; receiptUrl: string }
  | { type: "refused"; key: string };

/** The queue's share of the device: beyond it (or the browser's quota) no new photo is stored. */
export const QUEUE_CAP_BYTES = 300 * 1024 * 1024;
/** Below this much room the driver is told before taking more photos (about 40 photos of 0.6 MB). */
export const LOW_ROOM_BYTES = 25 * 1024 * 1024;

/** Room left for photos on this device: the smaller of the browser's quota and the queue's cap. */
export async function storageRoom(): Promise<{ free: number; low: boolean }> {
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  const quotaFree = estimate?.quota !== undefined && estimate.usage !== undefined
    ? estimate.quota - estimate.usage
    : Infinity;
  const free = Math.min(quotaFree, QUEUE_CAP_BYTES - await queuedBytes());
  return { free, low: free < LOW_ROOM_BYTES };
}

const CHANNEL = "pm-tablet-queue";

/** Islands render on the server too: there the queue is inert (no device, nothing to send). */
const inBrowser = () => typeof document !== "undefined" && typeof indexedDB !== "undefined";

function createQueue(userId: number, csrf: string) {
  const live = inBrowser();
  const listeners = new Set<(e: QueueEvent) => void>();
  const wakers = new Set<() => void>();
  const channel = live && typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL) : undefined;
  let running = false;
  let again = false;

  const queue = {
    userId,
    transfers: new Map<string, Transfer>(),
    summary: { photos: 0, movements: 0, refused: [], stopped: false } as QueueSummary,

    /** Listens to the queue; returns the way to stop listening. */
    subscribe(fn: (e: QueueEvent) => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },

    /** Something was queued or should be tried again now. */
    kick(): void {
      again = true;
      for (const wake of wakers) wake();
      if (live && !running && !queue.summary.stopped) void run();
    },

    /** Re-reads the counts and tells every listener (and the other tabs) that the queue changed. */
    async changed(broadcast = true): Promise<void> {
      if (!live) return;
      await refresh();
      if (broadcast) channel?.postMessage({ userId, event: { type: "changed" } });
    },
  };

  function emit(event: QueueEvent, broadcast = true): void {
    for (const fn of listeners) fn(event);
    if (broadcast) channel?.postMessage({ userId, event });
  }

  async function refresh(): Promise<void> {
    const [photos, movements] = await Promise.all([photosOf(userId), movementsOf(userId)]);
    queue.summary = {
      // A signature goes with its movement (counted there); the photo of where parts were left is a photo.
      photos: photos.filter((p) => p.blob && p.kind !== "signature").length,
      movements: movements.filter((m) => m.state === "queued").length,
      refused: movements.filter((m) => m.state === "refused").map((m) => m.job),
      stopped: queue.summary.stopped,
    };
    emit({ type: "changed" }, false);
  }

  channel?.addEventListener("message", (e: MessageEvent<{ userId: number; event: QueueEvent }>) => {
    if (e.data?.userId !== userId) return;
    if (e.data.event.type === "sent" || e.data.event.type === "refused") emit(e.data.event, false);
    void refresh();
    queue.kick();
  });
  if (live) globalThis.addEventListener("online", () => queue.kick());

  /** Sleeps `ms`, or less when the network returns or new work arrives. */
  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakers.add(done);
    });
  }

  async function run(): Promise<void> {
    running = true;
    try {
      const locks = navigator.locks;
      if (locks) await locks.request(`${CHANNEL}-${userId}`, loop);
      else await loop();
    } finally {
      running = false;
    }
  }

  async function loop(): Promise<void> {
    await refresh();
    while (!queue.summary.stopped) {
      again = false;
      const photos = await photosOf(userId);
      const photo = photos.find((p) => p.blob && !p.error);
      const movement = photo ? undefined : (await movementsOf(userId))
        .filter((m) => m.state === "queued")
        .sort((a, b) => (a.queuedAt ?? 0) - (b.queuedAt ?? 0))[0];
      if (!photo && !movement) {
        if (again) continue;
        return;
      }
      const key = photo?.key ?? movement!.key;
      const transfer = queue.transfers.get(key) ?? { state: "sending", attempts: 0, progress: 0 };
      transfer.state = "sending";
      transfer.attempts++;
      transfer.progress = 0;
      queue.transfers.set(key, transfer);
      emit({ type: "progress" }, false);
      const status = photo ? await sendPhoto(photo, transfer) : await sendMovement(movement!, photos);
      if (status === "retry") {
        transfer.state = "waiting";
        const delay = backoffMs(transfer.attempts);
        transfer.retryAt = Date.now() + delay;
        emit({ type: "progress" }, false);
        await pause(delay);
        continue;
      }
      queue.transfers.delete(key);
      if (status === "stop") queue.summary.stopped = true;
      await queue.changed();
    }
  }

  type Outcome = "done" | "retry" | "stop";

  const outcomeOf = (status: number): Outcome | undefined =>
    status === 401 || status === 403 ? "stop" : isRetryable(status) ? "retry" : undefined;

  async function sendPhoto(photo: QueuedPhoto, transfer: Transfer): Promise<Outcome> {
    const url = photo.kind
      ? `/tablet/api/handover-images?kind=${photo.kind}`
      : `/tablet/api/photos?${new URLSearchParams({
        job: photo.job,
        rego: photo.rego,
        part_id: `${photo.partId}`,
      })}`;
    const answer = await uploadBlob<StoredPhoto | StoredHandoverImage>(url, photo.blob!, csrf, (f) => {
      transfer.progress = f;
      emit({ type: "progress" }, false);
    });
    const stored = answer.data;
    if (stored) {
      // The server has the photo: only its ids stay, for the submission that will name it.
      await updatePhoto(photo.key, (p) => ({
        ...p,
        blob: undefined,
        imageId: stored.image_id,
        photoId: "photo_id" in stored ? stored.photo_id : undefined,
      }));
      return "done";
    }
    const outcome = outcomeOf(answer.status);
    if (outcome) return outcome;
    await updatePhoto(photo.key, (p) => ({
      ...p,
      error: answer.message || `The photo was refused (${answer.status}).`,
      partError: p.partId !== undefined && answer.partId === p.partId,
    }));
    return "done";
  }

  async function sendMovement(m: QueuedMovement, photos: QueuedPhoto[]): Promise<Outcome> {
    const byKey = new Map(photos.map((p) => [p.key, p]));
    const parts = [];
    for (const part of m.parts) {
      const photo = part.photoKey ? byKey.get(part.photoKey) : undefined;
      if (part.confirmed && photo?.imageId === undefined) {
        // Its photo was refused: the movement cannot go; the driver sees why next to the part.
        await refuse(m, { message: photo?.error ?? "Take a photo of this part.", partId: part.id });
        return "done";
      }
      parts.push({
        parts_order_id: part.id,
        confirm: part.confirmed,
        image_id: part.confirmed ? photo!.imageId! : null,
      });
    }
    const handover = handoverBody(
      m.found.handover,
      m.handover,
      photos.filter((p) => p.movementKey === m.key),
    );
    if (handover.refusal) {
      // Its handover image was refused (a blank signature…): the driver sees why and does it again.
      await refuse(m, { message: handover.refusal });
      return "done";
    }
    // Built from the stored record alone, so every resend is the same submission: the server answers a
    // repeat of an applied one with its original success (D16) and records nothing twice.
    const body = {
      job: m.job,
      rego: m.found.rego,
      repairer_id: m.job === "deliver" ? Number(m.repairerId) : undefined,
      movement_id: m.found.movement_id,
      parts,
      handover: handover.body,
    };
    const answer = await postJson<SubmittedMovement>("/tablet/api/movements", body, csrf, {
      timeoutMs: 30_000,
    });
    if (answer.data) {
      await deleteMovement(m.key);
      emit({
        type: "sent",
        key: m.key,
        movementId: answer.data.movement_id,
        receiptUrl: answer.data.receipt_url,
      });
      return "done";
    }
    const outcome = outcomeOf(answer.status);
    if (outcome) return outcome;
    await refuse(m, { message: answer.message ?? `Not saved (${answer.status}).`, partId: answer.partId });
    return "done";
  }

  async function refuse(m: QueuedMovement, error: QueuedMovement["error"]): Promise<void> {
    const current = await getMovement(userId, m.key);
    if (!current) return;
    await putMovement({ ...current, state: "refused", error });
    emit({ type: "refused", key: m.key });
  }

  return queue;
}

export type Queue = ReturnType<typeof createQueue>;

let pageQueue: Queue | undefined;

/** The page's sender for the signed-in driver (the same one for every island of the page). */
export function queueFor(userId: number, csrf: string): Queue {
  if (!inBrowser()) return createQueue(userId, csrf);
  if (pageQueue?.userId !== userId) {
    pageQueue = createQueue(userId, csrf);
    pageQueue.kick();
  }
  return pageQueue;
}
