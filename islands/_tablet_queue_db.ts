/**
 * The tablet's durable queue on the device (IndexedDB through `idb`): every photo a driver takes and
 * every movement they are working on or have confirmed, written before anything is sent and removed only
 * when the server has acknowledged it. Each record carries the user id of the driver who made it; every
 * read here filters by it, so a driver never sees (or sends) another driver's work on a shared tablet.
 *
 * Two stores:
 * - `photos`: the downscaled JPEG (`blob`) until the server stored it, then only its ids (`imageId`,
 *   `photoId`) until the movement that uses it is acknowledged; the handover's images (the receiver's
 *   signature, the photo of where the parts were left: `kind`) are kept the same way;
 * - `movements`: a draft (what the driver is doing on a job page: the claim found, the choices, which
 *   photo is whose, the handover), a confirmed submission waiting to be sent (`queued`), or one the
 *   server refused later (`refused`, with the message and the part it names).
 */
import { type DBSchema, type IDBPDatabase, openDB } from "idb";
import type { FoundClaim, JobName } from "@/components/tablet_jobs.ts";
import type { PointGroup } from "signature_pad";
import type { HandoverImageKind } from "@/db/schema.ts";

export interface QueuedPhoto {
  key: string;
  userId: number;
  /** The movement (draft or submission) the photo belongs to. */
  movementKey: string;
  /** The part photographed; absent for a handover image. */
  partId?: number;
  /** A handover image (docs/handover.md): sent to /tablet/api/handover-images instead of /photos. */
  kind?: HandoverImageKind;
  job: JobName;
  rego: string;
  /** The photo itself, until the server has stored it. */
  blob?: Blob;
  bytes: number;
  imageId?: number;
  photoId?: number;
  /** The server refused the photo (not retried until the driver says so). */
  error?: string;
  /** The refusal is about the part itself (it left the status the job needs). */
  partError?: boolean;
  createdAt: number;
}

export type MovementState = "draft" | "queued" | "refused";

/**
 * The handover as the driver is filling it in. The signature is kept as the pad's strokes (so a reload
 * keeps what was drawn) until the confirmation turns it into the PNG record (`kind` "signature").
 */
export interface QueuedHandover {
  receiverName: string;
  /** signature_pad's point groups, in CSS pixels of the pad they were drawn on. */
  strokes: StrokeGroup[];
  /** "Nobody to sign" (optional policy only), with the reason's key; the photo is the "left" record. */
  nobody: boolean;
  reason: string;
}

/** One stroke of the pad: its points and its pen options. */
export type StrokeGroup = PointGroup;

export interface QueuedMovement {
  key: string;
  userId: number;
  job: JobName;
  state: MovementState;
  found: FoundClaim;
  repairerId: string;
  /** Every part offered, whether it is being moved and the key of its photo. */
  parts: { id: number; confirmed: boolean; photoKey?: string }[];
  /** A refusal of the confirmed submission: the message and the part it names. */
  error?: { message: string; partId?: number };
  handover?: QueuedHandover;
  createdAt: number;
  /** When the driver confirmed it (the order submissions are sent in). */
  queuedAt?: number;
}

interface QueueSchema extends DBSchema {
  photos: { key: string; value: QueuedPhoto; indexes: { userId: number } };
  movements: { key: string; value: QueuedMovement; indexes: { userId: number } };
}

const DB_NAME = "pm-tablet-queue";

let opened: Promise<IDBPDatabase<QueueSchema>> | undefined;

function db(): Promise<IDBPDatabase<QueueSchema>> {
  opened ??= openDB<QueueSchema>(DB_NAME, 1, {
    upgrade(database) {
      database.createObjectStore("photos", { keyPath: "key" }).createIndex("userId", "userId");
      database.createObjectStore("movements", { keyPath: "key" }).createIndex("userId", "userId");
    },
  });
  return opened;
}

const byAge = <T extends { createdAt: number }>(rows: T[]) => rows.sort((a, b) => a.createdAt - b.createdAt);

export const newKey = () => crypto.randomUUID();

export async function photosOf(userId: number): Promise<QueuedPhoto[]> {
  return byAge(await (await db()).getAllFromIndex("photos", "userId", userId));
}

export async function movementsOf(userId: number): Promise<QueuedMovement[]> {
  return byAge(await (await db()).getAllFromIndex("movements", "userId", userId));
}

export async function getMovement(userId: number, key: string): Promise<QueuedMovement | undefined> {
  const movement = await (await db()).get("movements", key);
  return movement?.userId === userId ? movement : undefined;
}

export async function putPhoto(photo: QueuedPhoto): Promise<void> {
  await (await db()).put("photos", photo);
}

export async function putMovement(movement: QueuedMovement): Promise<void> {
  await (await db()).put("movements", movement);
}

/** Records what the server answered for a photo, unless it was retaken or dropped meanwhile. */
export async function updatePhoto(key: string, change: (p: QueuedPhoto) => QueuedPhoto): Promise<boolean> {
  const tx = (await db()).transaction("photos", "readwrite");
  const photo = await tx.store.get(key);
  if (photo) await tx.store.put(change(photo));
  await tx.done;
  return photo !== undefined;
}

export async function deletePhotos(keys: string[]): Promise<void> {
  const tx = (await db()).transaction("photos", "readwrite");
  await Promise.all([...keys.map((k) => tx.store.delete(k)), tx.done]);
}

/** Removes a movement and its photos in one transaction (acknowledged, or dropped by the driver). */
export async function deleteMovement(key: string): Promise<void> {
  const tx = (await db()).transaction(["movements", "photos"], "readwrite");
  const photos = tx.objectStore("photos");
  const mine = (await photos.getAll()).filter((p) => p.movementKey === key);
  await Promise.all([
    tx.objectStore("movements").delete(key),
    ...mine.map((p) => photos.delete(p.key)),
    tx.done,
  ]);
}

/** Bytes of photos the queue holds on this device, every driver's (the storage is the tablet's). */
export async function queuedBytes(): Promise<number> {
  return (await (await db()).getAll("photos")).reduce((sum, p) => sum + (p.blob ? p.bytes : 0), 0);
}
