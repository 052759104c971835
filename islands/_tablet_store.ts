/**
 * The state of one movement on the tablet, kept outside Preact so the upload queue and the submission
 * retry loop (long-running async work) can change it and ask for a re-render. Nothing the driver entered
 * is dropped on a failure: rule failures only add a message to the part they name.
 */
import {
  type ApiAnswer,
  backoffMs,
  isRetryable,
  prepareJpeg,
  uploadBlob,
  waitOrOnline,
} from "./_tablet_net.ts";
import type { FoundClaim, StoredPhoto } from "./_tablet_jobs.ts";

export type PhotoStatus = "preparing" | "queued" | "uploading" | "waiting" | "done" | "failed";

export interface PhotoState {
  /** Changes on every retake, so answers for an older photo are ignored. */
  key: number;
  preview: string;
  blob?: Blob;
  status: PhotoStatus;
  progress: number;
  attempts: number;
  /** When the next automatic try starts (status "waiting"). */
  retryAt?: number;
  imageId?: number;
  photoId?: number;
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

let nextKey = 1;

/**
 * The store of one flow page. A closure rather than a class: esbuild lowers class fields for the es2020
 * target with runtime helpers, which the island build refuses as non-island imports.
 */
export function createFlowStore(csrf: string, job: string, onChange: () => void) {
  let pumping = false;

  const store = {
    parts: [] as PartState[],
    signedOut: false,

    load(found: FoundClaim): void {
      for (const p of store.parts) if (p.photo) URL.revokeObjectURL(p.photo.preview);
      store.parts = found.parts.map((p) => ({ ...p, confirmed: false }));
    },

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

    /** Photos taken but not yet sent with a movement (leaving the page would lose them). */
    get hasWork(): boolean {
      return store.parts.some((p) => p.photo);
    },

    /** A new photo (or a retake) for a part: shrink it, show it, queue it. */
    async takePhoto(id: number, file: File, rego: string): Promise<void> {
      const part = store.part(id);
      if (!part) return;
      if (part.photo) URL.revokeObjectURL(part.photo.preview);
      const key = nextKey++;
      part.error = undefined;
      part.photo = { key, preview: URL.createObjectURL(file), status: "preparing", progress: 0, attempts: 0 };
      onChange();
      const blob = await prepareJpeg(file);
      if (part.photo?.key !== key) return;
      URL.revokeObjectURL(part.photo.preview);
      part.photo = { ...part.photo, blob, preview: URL.createObjectURL(blob), status: "queued" };
      onChange();
      pump(rego);
    },

    /** Tries a failed or waiting upload again now. */
    retry(id: number, rego: string): void {
      const photo = store.part(id)?.photo;
      if (!photo || photo.status === "done" || photo.status === "uploading" || !photo.blob) return;
      photo.status = "queued";
      photo.error = undefined;
      onChange();
      pump(rego);
    },
  };

  /** Uploads queued photos one at a time (patchy Wi-Fi: one transfer gets the bandwidth). */
  async function pump(rego: string): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      let part: PartState | undefined;
      while (!store.signedOut && (part = store.parts.find((p) => p.photo?.status === "queued"))) {
        await uploadPhoto(part, rego, { csrf, job, onChange, store });
      }
    } finally {
      pumping = false;
    }
  }

  return store;
}

export type FlowStore = ReturnType<typeof createFlowStore>;

/** What one upload needs from its store: the session, the flow, and the way to ask for a re-render. */
interface UploadContext {
  csrf: string;
  job: string;
  onChange: () => void;
  store: { signedOut: boolean; retry(id: number, rego: string): void };
}

/**
 * Sends one queued photo and records the answer on it: stored, signed out, waiting to retry (network or
 * server trouble, with backoff) or refused (a rule about the part is shown on the part itself).
 */
async function uploadPhoto(part: PartState, rego: string, ctx: UploadContext): Promise<void> {
  const { csrf, job, onChange, store } = ctx;
  const photo = part.photo!;
  const key = photo.key;
  photo.status = "uploading";
  photo.progress = 0;
  photo.attempts++;
  onChange();
  const query = new URLSearchParams({ job, rego, part_id: String(part.id) });
  const answer: ApiAnswer<StoredPhoto> = await uploadBlob<StoredPhoto>(
    `/tablet/api/photos?${query}`,
    photo.blob!,
    csrf,
    (f) => {
      if (part.photo?.key === key) {
        photo.progress = f;
        onChange();
      }
    },
  );
  if (part.photo?.key !== key) return; // retaken meanwhile: this answer is for an old photo
  if (answer.data) {
    photo.status = "done";
    photo.progress = 1;
    photo.imageId = answer.data.image_id;
    photo.photoId = answer.data.photo_id;
    photo.blob = undefined;
  } else if (answer.status === 401) {
    store.signedOut = true;
    photo.status = "failed";
    photo.error = "Not sent: signed out.";
  } else if (isRetryable(answer.status)) {
    const delay = backoffMs(photo.attempts);
    photo.status = "waiting";
    photo.retryAt = Date.now() + delay;
    waitOrOnline(delay).then(() => {
      if (part.photo?.key === key && photo.status === "waiting") store.retry(part.id, rego);
    });
  } else {
    const message = answer.message || `The photo was refused (${answer.status}).`;
    photo.status = "failed";
    // A rule about the part itself ("… is no longer available …") is shown on the part, once.
    if (answer.partId === part.id) part.error = message;
    else photo.error = message;
  }
  onChange();
}
