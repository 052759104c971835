/**
 * The state of one movement on the tablet, kept outside Preact and mirrored on the device: every change
 * the driver makes (the claim found, each selection, the shop, each photo) is written to the durable
 * queue (islands/_tablet_queue_db.ts) as the movement's draft, so a reload, a crash or an idle sign-out
 * loses nothing; the queue's sender (islands/_tablet_queue.ts) uploads the photos and, once confirmed,
 * the submission. Nothing the driver entered is dropped on a failure: rule failures only add a message to
 * the part they name.
 */
import { prepareJpeg } from "./_tablet_net.ts";
import { sameRego } from "./_run_sheet.ts";
import type { FoundClaim, JobName } from "@/components/tablet_jobs.ts";
import { type Queue, storageRoom } from "./_tablet_queue.ts";
import {
  deleteMovement,
  deletePhotos,
  movementsOf,
  newKey,
  photosOf,
  putMovement,
  putPhoto,
  type QueuedMovement,
  type QueuedPhoto,
  updatePhoto,
} from "./_tablet_queue_db.ts";

export type PhotoStatus = "preparing" | "queued" | "uploading" | "waiting" | "done" | "failed";

export interface PhotoState {
  /** The photo's record in the queue. */
  key: string;
  preview: string;
  status: PhotoStatus;
  progress: number;
  /** When the next automatic try starts (status "waiting"). */
  retryAt?: number;
  error?: string;
}

export interface PartState {
  id: number;
  part_no: string;
  description: string;
  confirmed: boolean;
  photo?: PhotoState;
  /** A rule failure or a check about this part, shown next to it. */
  error?: string;
}

/** Shown before the camera opens when the device is nearly out of room for photos. */
export const STORAGE_LOW =
  "This tablet is nearly out of room for photos. Connect to Wi-Fi so the waiting photos can be sent before you take more.";
const STORAGE_FULL =
  "Not saved: this tablet has no room for more photos. Connect to Wi-Fi so the waiting photos can be sent, then take it again.";

/**
 * The store of one flow page. A closure rather than a class: esbuild lowers class fields for the es2020
 * target with runtime helpers, which the island build refuses as non-island imports.
 */
export function createFlowStore(queue: Queue, job: JobName, onChange: () => void) {
  /** Photo records of the current movement, as last read from the device. */
  let records = new Map<string, QueuedPhoto>();
  /** Object URLs of the photos shown, by record key (a stored photo shows its server thumbnail). */
  const previews = new Map<string, string>();
  const preparing = new Map<number, string>();

  const store = {
    /** The current movement's record key (a draft until confirmed). */
    key: "",
    state: "draft" as QueuedMovement["state"],
    found: null as FoundClaim | null,
    repairerId: "",
    parts: [] as PartState[],
    /** The device is nearly out of room for photos. */
    storageLow: false,

    part(id: number): PartState | undefined {
      return store.parts.find((p) => p.id === id);
    },

    /** Confirmed parts, each with its photo state. */
    get confirmed(): PartState[] {
      return store.parts.filter((p) => p.confirmed);
    },

    /** What is still on its way: photos not yet stored, by reason. */
    get pending(): { uploading: number; waiting: number; failed: number; preparing: number } {
      const count = (s: PhotoStatus) => store.confirmed.filter((p) => p.photo?.status === s).length;
      return {
        uploading: count("uploading") + count("queued"),
        waiting: count("waiting"),
        failed: count("failed"),
        preparing: count("preparing"),
      };
    },

    /** Photos taken for this vehicle (starting again drops them). */
    get hasWork(): boolean {
      return store.parts.some((p) => p.photo);
    },

    /** A photo is being shrunk and is not on the device yet. */
    get busy(): boolean {
      return preparing.size > 0;
    },

    /**
     * Picks up where this driver left this job on this tablet: a movement the server refused first, else
     * the latest draft or confirmed one (of `rego`, when given). Returns it, or undefined when there is
     * nothing to resume.
     */
    async resume(rego?: string): Promise<QueuedMovement | undefined> {
      const mine = (await movementsOf(queue.userId)).filter((m) => m.job === job);
      const refused = mine.find((m) => m.state === "refused");
      // A page opened for a rego (a claim on the run sheet) resumes that claim's work only: the stop's
      // previous claim, saved and waiting for the network, must not stand in front of the next one.
      const movement = refused ??
        mine.filter((m) => m.state !== "refused" && (!rego || sameRego(m.found.rego, rego))).at(-1);
      if (movement) await show(movement);
      return movement;
    },

    /** A claim found by a search: a new draft, written to the device at once. */
    async load(found: FoundClaim, repairerId: string): Promise<void> {
      clear();
      store.key = newKey();
      store.state = "draft";
      store.found = found;
      store.repairerId = repairerId;
      store.parts = found.parts.map((p) => ({ ...p, confirmed: false }));
      await save();
    },

    /** Starting over: the draft and its photos leave the device (a confirmed movement stays queued). */
    async drop(): Promise<void> {
      if (store.key && store.state !== "queued") await deleteMovement(store.key);
      clear();
      store.key = "";
      store.found = null;
      store.parts = [];
      await queue.changed();
    },

    async toggle(id: number, on: boolean): Promise<void> {
      const part = store.part(id);
      if (!part) return;
      part.confirmed = on;
      part.error = undefined;
      onChange();
      await save();
    },

    async setRepairer(id: string): Promise<void> {
      store.repairerId = id;
      await save();
    },

    /** A new photo (or a retake) for a part: shrink it, keep it on the device, then queue its upload. */
    async takePhoto(id: number, file: File): Promise<void> {
      const part = store.part(id);
      if (!part || !store.found) return;
      const temporary = URL.createObjectURL(file);
      const mark = newKey();
      preparing.set(id, mark);
      part.error = undefined;
      part.photo = { key: mark, preview: temporary, status: "preparing", progress: 0 };
      onChange();
      const blob = await prepareJpeg(file);
      URL.revokeObjectURL(temporary);
      if (preparing.get(id) !== mark) return; // retaken meanwhile
      preparing.delete(id);
      const { free } = await storageRoom();
      const photo: QueuedPhoto = {
        key: mark,
        userId: queue.userId,
        movementKey: store.key,
        partId: id,
        job,
        rego: store.found.rego,
        blob,
        bytes: blob.size,
        createdAt: Date.now(),
      };
      try {
        if (free < blob.size) throw new DOMException(STORAGE_FULL, "QuotaExceededError");
        await putPhoto(photo);
      } catch {
        part.photo = undefined;
        part.error = STORAGE_FULL;
        onChange();
        return;
      }
      const old = partRecord(id)?.key;
      records.set(mark, photo);
      previews.set(mark, URL.createObjectURL(blob));
      await save();
      if (old) await forget([old]);
      await checkRoom();
      queue.kick();
      await queue.changed();
    },

    /** Tries a refused or waiting upload again now. */
    async retry(id: number): Promise<void> {
      const key = store.part(id)?.photo?.key;
      if (key) await updatePhoto(key, (p) => ({ ...p, error: undefined, partError: undefined }));
      await refresh();
      queue.kick();
    },

    /** The driver confirmed: the draft becomes a submission in the queue (sent when it can be). */
    async confirm(): Promise<void> {
      const unused = store.parts.filter((p) => !p.confirmed && p.photo).map((p) => p.photo!.key);
      for (const p of store.parts) if (!p.confirmed) p.photo = undefined;
      store.state = "queued";
      await save(Date.now());
      await forget(unused);
      queue.kick();
      await queue.changed();
    },

    /** Re-reads the current movement's photos from the device (after the queue changed). */
    refresh,
    /** Shows the sender's progress (in memory; after a queue progress event). */
    recompute,
  };

  async function show(m: QueuedMovement): Promise<void> {
    clear();
    store.key = m.key;
    store.found = m.found;
    store.repairerId = m.repairerId;
    const chosen = new Map(m.parts.map((p) => [p.id, p]));
    store.parts = m.found.parts.map((p) => ({ ...p, confirmed: chosen.get(p.id)?.confirmed ?? false }));
    if (m.state === "refused") {
      // Back to the driver: a draft again, the server's message next to the part it names.
      store.state = "draft";
      const part = m.error?.partId === undefined ? undefined : store.part(m.error.partId);
      if (part) part.error = m.error!.message;
      await putMovement({ ...m, state: "draft", error: undefined });
      await queue.changed();
    } else store.state = m.state;
    await refresh();
  }

  function clear(): void {
    for (const url of previews.values()) URL.revokeObjectURL(url);
    previews.clear();
    preparing.clear();
    records = new Map();
  }

  const partRecord = (id: number) => [...records.values()].find((r) => r.partId === id);

  async function forget(keys: string[]): Promise<void> {
    for (const k of keys) {
      const url = previews.get(k);
      if (url) URL.revokeObjectURL(url);
      previews.delete(k);
      records.delete(k);
    }
    await deletePhotos(keys);
  }

  async function save(queuedAt?: number): Promise<void> {
    if (!store.found || !store.key) return;
    await putMovement({
      key: store.key,
      userId: queue.userId,
      job,
      state: store.state,
      found: store.found,
      repairerId: store.repairerId,
      parts: store.parts.map((p) => ({
        id: p.id,
        confirmed: p.confirmed,
        photoKey: p.photo?.status === "preparing" ? undefined : p.photo?.key,
      })),
      createdAt: Date.now(),
      queuedAt,
    });
  }

  async function refresh(): Promise<void> {
    if (store.key) {
      const mine = (await photosOf(queue.userId)).filter((p) => p.movementKey === store.key);
      records = new Map(mine.map((p) => [p.key, p]));
    }
    await checkRoom();
    recompute();
  }

  function recompute(): void {
    for (const part of store.parts) {
      if (preparing.has(part.id)) continue;
      const record = partRecord(part.id);
      part.photo = record ? photoState(record) : undefined;
      if (record?.partError && record.error) part.error = record.error;
    }
    onChange();
  }

  function photoState(record: QueuedPhoto): PhotoState {
    let preview = previews.get(record.key);
    if (!preview) {
      preview = record.blob ? URL.createObjectURL(record.blob) : `/photos/${record.photoId}/thumb`;
      if (record.blob) previews.set(record.key, preview);
    }
    const base = { key: record.key, preview, progress: 0 };
    if (record.imageId !== undefined) return { ...base, status: "done", progress: 1 };
    if (record.error) {
      return { ...base, status: "failed", error: record.partError ? undefined : record.error };
    }
    const transfer = queue.transfers.get(record.key);
    if (!transfer) return { ...base, status: "queued" };
    return transfer.state === "sending"
      ? { ...base, status: "uploading", progress: transfer.progress }
      : { ...base, status: "waiting", retryAt: transfer.retryAt };
  }

  async function checkRoom(): Promise<void> {
    store.storageLow = (await storageRoom()).low;
  }

  return store;
}

export type FlowStore = ReturnType<typeof createFlowStore>;
