/**
 * Browser-side networking of the tablet islands (not an island: the leading "_" keeps it out of the
 * island table). Every call goes to the tablet's own routes with the session's CSRF token, reports the
 * session's remaining idle time to the idle watch (a server hit resets it), and tells a network fault
 * (retry later) from an answer (show it).
 */

/** Window events the tablet islands use to talk to each other without sharing state. */
export const EVENTS = {
  /** detail: { expiresInMs: number } — the server saw us; the idle countdown restarts. */
  activity: "pm:activity",
  /** detail: { message?: string } — the server says the session is over, and why (idle, ended, or the
   * tablet removed by HQ). */
  signedOut: "pm:signed-out",
  /** The page is about to sign out on purpose: stop guarding against leaving. */
  leaving: "pm:leaving",
} as const;

export const SIGNED_OUT_MESSAGE = "You were signed out after 10 minutes without activity. Sign in again.";

/** The answer of a tablet API call. `status` 0 means no answer reached us (network fault or timeout). */
export interface ApiAnswer<T = unknown> {
  status: number;
  data: T | null;
  /** The message to show for a refusal (a rule failure, a validation problem…). */
  message?: string;
  /** The part a rule failure is about (DomainError.partId). */
  partId?: number;
  /** A search for the wrong job: the job that applies (e.g. an open return trip). */
  switchTo?: string;
  /** A refused search: the regos it matched (several vehicles) and what to do next. */
  regos?: string[];
  nextStep?: string;
  /** A refusal's whole body, for what only one caller reads (the collect search's return offer). */
  body?: unknown;
}

/** Worth trying again later: no answer, a timeout, or a server that is busy or down. */
export const isRetryable = (status: number) =>
  status === 0 || status === 408 || status === 429 || status >= 500;

/** 1 s, 2 s, 4 s … capped at 30 s, with a little jitter so tablets coming back online do not stampede. */
export function backoffMs(attempt: number): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.85 + Math.random() * 0.3));
}

/**
 * Tells the page what an answer says of the session: the idle time left, or that it is over. A 401 carries
 * the server's own words (routes/web/session.ts endedMessage): "after 10 minutes without activity" only
 * when the session timed out, not when the driver was deactivated or signed out elsewhere; "This tablet was
 * removed by HQ" when HQ revoked the tablet.
 */
function noteSession(getHeader: (name: string) => string | null, status: number, body: unknown): void {
  if (status === 401) {
    const message = (body as { message?: unknown } | null)?.message;
    const detail = { message: typeof message === "string" && message ? message : undefined };
    globalThis.dispatchEvent(new CustomEvent(EVENTS.signedOut, { detail }));
    return;
  }
  const left = Number(getHeader("x-session-expires-in"));
  if (left > 0) globalThis.dispatchEvent(new CustomEvent(EVENTS.activity, { detail: { expiresInMs: left } }));
}

function answerOf<T>(status: number, body: unknown): ApiAnswer<T> {
  if (status >= 200 && status < 300) return { status, data: body as T };
  const b = (body ?? {}) as {
    message?: string;
    part_id?: number;
    switch_to?: string;
    regos?: unknown;
    next_step?: string;
  };
  return {
    status,
    data: null,
    message: typeof body === "string" && body ? body : b.message,
    partId: typeof b.part_id === "number" ? b.part_id : undefined,
    switchTo: typeof b.switch_to === "string" ? b.switch_to : undefined,
    regos: Array.isArray(b.regos) ? b.regos.filter((r): r is string => typeof r === "string") : undefined,
    nextStep: typeof b.next_step === "string" ? b.next_step : undefined,
    body,
  };
}

async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("json")) {
    try {
      return JSON.parse(text);
    } catch { /* fall through */ }
  }
  return text;
}

/** POSTs JSON; never throws for a network fault (status 0 instead). */
/**
 * Marks a request the page makes by itself (a background read, not the driver's doing): it does not count as
 * activity, so a tablet left on a page still signs out when idle (routes/web/session.ts isPassive).
 */
const PASSIVE = { "x-hq-live": "1" };

export async function postJson<T>(
  url: string,
  body: unknown,
  csrf: string,
  opts: { timeoutMs?: number; passive?: boolean } = {},
): Promise<ApiAnswer<T>> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs ?? 20_000);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-csrf-token": csrf,
        accept: "application/json",
        ...(opts.passive ? PASSIVE : {}),
      },
      body: JSON.stringify(body),
      signal: abort.signal,
      credentials: "same-origin",
    });
    const parsed = await bodyOf(res);
    noteSession((n) => res.headers.get(n), res.status, parsed);
    return answerOf<T>(res.status, parsed);
  } catch {
    return { status: 0, data: null };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GETs JSON from a tablet route, as a passive read (the page's own, e.g. the run sheet's refresh); never
 * throws for a network fault (status 0 instead).
 */
export async function getJson<T>(url: string, csrf: string, timeoutMs = 20_000): Promise<ApiAnswer<T>> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const res = await fetch(url, {
      headers: { "x-csrf-token": csrf, accept: "application/json", ...PASSIVE },
      signal: abort.signal,
      credentials: "same-origin",
      cache: "no-store",
    });
    const parsed = await bodyOf(res);
    noteSession((n) => res.headers.get(n), res.status, parsed);
    return answerOf<T>(res.status, parsed);
  } catch {
    return { status: 0, data: null };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sends a photo as the raw request body with upload progress (fetch cannot report it, XMLHttpRequest
 * can). Resolves with status 0 on a network fault or timeout; never rejects.
 */
export function uploadBlob<T>(
  url: string,
  blob: Blob,
  csrf: string,
  onProgress: (fraction: number) => void,
  timeoutMs = 90_000,
): Promise<ApiAnswer<T>> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.timeout = timeoutMs;
    xhr.setRequestHeader("x-csrf-token", csrf);
    xhr.setRequestHeader("content-type", blob.type || "application/octet-stream");
    xhr.setRequestHeader("accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      if ((xhr.getResponseHeader("content-type") ?? "").includes("json")) {
        try {
          body = JSON.parse(xhr.responseText);
        } catch { /* keep the text */ }
      }
      noteSession((n) => xhr.getResponseHeader(n), xhr.status, body);
      resolve(answerOf<T>(xhr.status, body));
    };
    xhr.onerror = xhr.ontimeout = xhr.onabort = () => resolve({ status: 0, data: null });
    xhr.send(blob);
  });
}

/** The longest edge a photo is sent with; phones take 4000+ px, which is slow over depot Wi-Fi. */
export const MAX_PHOTO_EDGE = 2048;

/**
 * What the tablet sends a photo as (docs/uplink.md "Photo encoding": chosen by bytes against SSIM in
 * `deno task bench --only uplink`). Every type here is one the server probes, stores and thumbnails.
 */
export const PHOTO_TYPE: "image/jpeg" | "image/webp" = "image/webp";
export const PHOTO_QUALITY = 0.78;
/** A browser that cannot encode PHOTO_TYPE (its canvas makes a PNG instead) sends JPEG at this quality. */
export const FALLBACK_JPEG_QUALITY = 0.85;

const encode = (canvas: HTMLCanvasElement, type: string, quality: number) =>
  new Promise<Blob | null>((r) => canvas.toBlob(r, type, quality));

let encodes: Promise<boolean> | undefined;
/**
 * Whether this browser's canvas encodes PHOTO_TYPE, asked once of a 1 px canvas: one that cannot makes a PNG
 * instead (Safari before 17), and encoding each photo as a PNG before the JPEG took seconds.
 */
function encodesPhotoType(): Promise<boolean> {
  if (!encodes) {
    const probe = document.createElement("canvas");
    probe.width = probe.height = 1;
    encodes = encode(probe, PHOTO_TYPE, PHOTO_QUALITY).then((b) => b?.type === PHOTO_TYPE);
  }
  return encodes;
}

/**
 * A camera photo scaled down to at most MAX_PHOTO_EDGE px on its long edge and re-encoded as PHOTO_TYPE,
 * else JPEG (which also drops EXIF, location included). A photo the browser cannot decode (HEIC on most
 * browsers) is sent as it is: the server accepts HEIC.
 */
export async function preparePhoto(file: Blob): Promise<Blob> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return file;
  }
  try {
    const scale = Math.min(1, MAX_PHOTO_EDGE / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    const ctx = canvas.getContext("2d");
    if (!ctx) return file;
    // Neither JPEG nor lossy WebP here keeps alpha: paint transparent areas white rather than black.
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const ours = await encodesPhotoType();
    return await encode(
      canvas,
      ours ? PHOTO_TYPE : "image/jpeg",
      ours ? PHOTO_QUALITY : FALLBACK_JPEG_QUALITY,
    ) ?? file;
  } finally {
    bitmap.close();
  }
}
