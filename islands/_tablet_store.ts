/**
 * The state of one movement on the tablet, kept outside Preact and mirrored on the device: every change
 * the driver makes (the claim found, each selection, the shop, each photo) is written to the durable
 * queue (islands/_tablet_queue_db.ts) as the movement's draft, so a reload, a crash or an idle sign-out
 * loses nothing; the queue's sender (islands/_tablet_queue.ts) uploads the photos and, once confirmed,
 * the submission. Nothing the driver entered is dropped on a failure: rule failures only add a message to
 * the part they name.
 */
import { preparePhoto } from "./_tablet_net.ts";
import { sameRego } from "./_run_sheet.ts";
import type { FoundClaim, JobName } from "@/components/tablet_jobs.ts";
import { type Queue, storageRoom } from "./_tablet_queue.ts";
import { emptyHandover, imageKindOf } from "./_tablet_handover_rules.ts";
import { type PhotoState, photoStateOf, type PhotoStatus } from "./_tablet_photo_state.ts";
import {
  deleteMovement,
  deletePhotos,
  movementsOf,
  newKey,
  photosOf,
  putMovement,
  putPhoto,
  type QueuedHandover,
  type QueuedMovement,
  type QueuedPhoto,
  updatePhoto,
} from "./_tablet_queue_db.ts";

export interface PartState {
  id: number;
  part_no: string;
  description: string;
  confirmed: boolean;
  photo?: PhotoState;
  /** A rule failure or a check about this part, shown next to it. */
  error?: string;
}

/** A photo of a part (its id), or of where the parts were left when nobody signs (the handover). */
export type PhotoTarget = number | "left";

/** Shown before the camera opens when the device is nearly out of room for photos. */
export const STORAGE_LOW =
  "This tablet is nearly out of room for photos. Connect to Wi-Fi so the waiting photos can be sent before you take more.";
const STORAGE_FULL =
  "Not saved: this tablet has no room for more photos. Connect to Wi-Fi so the waiting photos can be sent, then take it again.";

/**
 * The store of one flow page. A closure rather than a class: esbuild lowers class fields for the es2020
 * target with runtime helpers, bytes every job page would load.
 */
export function createFlowStore(queue: Queue, job: JobName, onChange: () => void) {
  /** Photo records of the current movement, as last read from the device. */
  let records = new Map<string, QueuedPhoto>();
  /** Object URLs of the photos shown, by record key (a stored photo shows its server thumbnail). */
  const previews = new Map<string, string>();
  const preparing = new Map<PhotoTarget, string>();

  const store = {
    /** The current movement's record key (a draft until confirmed). */
    key: "",
    state: "draft" as QueuedMovement["state"],
    found: null as FoundClaim | null,
    repairerId: "",
    parts: [] as PartState[],
    /** The receiver's name and signature, or why nobody signed (docs/handover.md). */
    handover: emptyHandover(),
    /** The photo of where the parts were left (nobody to sign). */
    left: {} as { photo?: PhotoState; error?: string },
    /** The server's message when it refused the movement for no part in particular. */
    refusal: undefined as string | undefined,
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
      return store.parts.some((p) => p.photo) || store.left.photo !== undefined;
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
      store.handover = emptyHandover();
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

    /** The driver changed the handover (kept on the device at once, strokes included). */
    async setHandover(change: Partial<QueuedHandover>): Promise<void> {
      store.handover = { ...store.handover, ...change };
      onChange();
      await save();
    },

    /** A new photo (or a retake): shrink it, keep it on the device, then queue its upload. */
    async takePhoto(target: PhotoTarget, file: File): Promise<void> {
      const slot = slotOf(target);
      if (!slot || !store.found) return;
      const temporary = URL.createObjectURL(file);
      const mark = newKey();
      preparing.set(target, mark);
      slot.error = undefined;
      slot.photo = { key: mark, preview: temporary, status: "preparing", progress: 0 };
      onChange();
      const blob = await preparePhoto(file);
      URL.revokeObjectURL(temporary);
      if (preparing.get(target) !== mark) return; // retaken meanwhile
      const { free } = await storageRoom();
      const photo: QueuedPhoto = {
        key: mark,
        userId: queue.userId,
        movementKey: store.key,
        ...(target === "left" ? { kind: "left" } : { partId: target }),
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
        if (preparing.get(target) === mark) preparing.delete(target);
        slot.photo = undefined;
        slot.error = STORAGE_FULL;
        onChange();
        return;
      }
      const old = recordOf(target, mark)?.key;
      records.set(mark, photo);
      previews.set(mark, URL.createObjectURL(blob));
      // "Preparing" until its record is here: a redraw in between (an upload's progress, another tab)
      // would show the part without a photo, and a Review waiting for it would refuse the part.
      if (preparing.get(target) === mark) {
        preparing.delete(target);
        slot.photo = photoStateOf(photo, previews, queue.transfers.get(mark));
        onChange();
      }
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

    /**
     * The driver confirmed: the draft becomes a submission in the queue (sent when it can be), with the
     * receiver's signature as drawn now (`signature`, a PNG) when the handover is signed.
     */
    async confirm(signature?: Blob): Promise<void> {
      if (store.state !== "draft") return; // a second tap while the first is being saved
      store.state = "queued";
      const unused = store.parts.filter((p) => !p.confirmed && p.photo).map((p) => p.photo!.key);
      for (const p of store.parts) if (!p.confirmed) p.photo = undefined;
      // Only the handover image the submission names stays; a signature is made again at each confirm.
      const kind = imageKindOf(store.found?.handover, store.handover);
      for (const r of records.values()) {
        if (r.kind && (r.kind !== kind || r.kind === "signature")) unused.push(r.key);
      }
      if (kind === "signature" && signature) {
        // On the device before the movement is queued: the sender never sees one without the other.
        const bytes = signature.size;
        const base = { userId: queue.userId, movementKey: store.key, job, rego: store.found!.rego };
        await putPhoto({ ...base, key: newKey(), kind, blob: signature, bytes, createdAt: Date.now() });
      }
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
    store.handover = m.handover ?? emptyHandover();
    const chosen = new Map(m.parts.map((p) => [p.id, p]));
    store.parts = m.found.parts.map((p) => ({ ...p, confirmed: chosen.get(p.id)?.confirmed ?? false }));
    if (m.state === "refused") {
      // Back to the driver: a draft again, the server's message next to the part it names (or above all).
      store.state = "draft";
      const part = m.error?.partId === undefined ? undefined : store.part(m.error.partId);
      if (part) part.error = m.error!.message;
      else store.refusal = m.error?.message;
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
    store.left = {};
    store.refusal = undefined;
  }

  const slotOf = (t: PhotoTarget) => t === "left" ? store.left : store.part(t);
  /** The target's photo record (other than `except`: a refresh may have read a new one already). */
  const recordOf = (t: PhotoTarget, except?: string) =>
    [...records.values()].find((r) =>
      r.key !== except && (t === "left" ? r.kind === "left" : r.partId === t)
    );

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
      handover: store.handover,
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
    for (const target of [...store.parts.map((p) => p.id), "left" as const]) {
      const slot = slotOf(target)!;
      if (preparing.has(target)) continue;
      const record = recordOf(target);
      slot.photo = record ? photoStateOf(record, previews, queue.transfers.get(record.key)) : undefined;
      if (record?.partError && record.error) slot.error = record.error;
    }
    onChange();
  }

  async function checkRoom(): Promise<void> {
    store.storageLow = (await storageRoom()).low;
  }

  return store;
}

export type FlowStore = ReturnType<typeof createFlowStore>;
