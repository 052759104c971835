/**
 * Posts one announcement body to one chat incoming webhook and says what the worker should do
 * next (D22): it was delivered, or it should be retried (with the chat's own wait, if it gave one).
 *
 * Nothing here throws for a chat problem: every failure becomes a `retry` result whose `error` is
 * short and safe for the dashboard. The webhook URL is never part of it: the URL is the secret.
 */
import { concatBytes } from "@/io/concat_bytes.ts";

export type WebhookResult =
  | { outcome: "delivered"; status: number }
  | {
    outcome: "retry";
    /** For the dashboard: status and the start of the answer, or the network failure. */
    error: string;
    /** The chat asked (or its throttle implies) not to come back sooner than this. */
    retryAfterMs?: number;
    /** The chat said "too many": a worker may hold back the whole channel, not only this message. */
    throttled: boolean;
    /** Absent when no HTTP answer arrived (refused, reset, timed out). */
    status?: number;
  };

export interface PostOptions {
  /** The announcement's stable id: sent as Idempotency-Key and X-Message-Id on every attempt. */
  messageId: string;
  /** Whole exchange, headers and body; default 10 s. */
  timeoutMs?: number;
  /** The clock, for turning a Retry-After HTTP-date into a wait. */
  now: () => Date;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * A throttle answer without Retry-After still means "not now". Zoho Cliq counts requests per
 * minute, and Microsoft asks Teams webhooks to wait 10–15 s, so a minute covers both.
 */
export const THROTTLE_DEFAULT_RETRY_MS = 60_000;
/** Enough of an answer to classify it and show its start; chats answer with a few hundred bytes. */
const MAX_BODY_BYTES = 16 * 1024;
const SNIPPET_CHARS = 200;

/** POSTs `body` as JSON to `url`; see WebhookResult for the outcomes. */
export async function postAnnouncement(
  url: string,
  body: unknown,
  opts: PostOptions,
): Promise<WebhookResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  // A plain timer (not AbortSignal.timeout) so it is cleared the moment the exchange ends and
  // leaves nothing pending behind it.
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "accept": "application/json, text/plain;q=0.9, */*;q=0.5",
          "user-agent": "parts-movement-announcer",
          "idempotency-key": opts.messageId,
          "x-message-id": opts.messageId,
        },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
    } catch (err) {
      return {
        outcome: "retry",
        throttled: false,
        error: controller.signal.aborted
          ? `timed out after ${formatSeconds(timeoutMs)} waiting for the chat`
          : `network error: ${networkReason(err, url)}`,
      };
    }

    let text: string;
    try {
      text = await readSome(response, MAX_BODY_BYTES);
    } catch (err) {
      if (response.ok) {
        // The chat accepted the message (2xx) and only the rest of its answer was lost. Posting
        // again would risk a duplicate in the channel, which D22 forbids, so this counts as sent.
        return { outcome: "delivered", status: response.status };
      }
      text = controller.signal.aborted ? "(answer timed out)" : `(answer unreadable: ${errorMessage(err)})`;
    }
    return classifyResponse(response.status, response.headers, redact(text, url), opts.now());
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What an HTTP answer means, from its status, headers and (the start of) its body.
 * Exported for the worker's tests and for anyone adding a chat format.
 */
export function classifyResponse(status: number, headers: Headers, text: string, now: Date): WebhookResult {
  const snippet = `HTTP ${status}: ${text.replace(/\s+/g, " ").trim().slice(0, SNIPPET_CHARS)}`.trim();
  const retryAfterMs = parseRetryAfter(headers.get("retry-after"), now);

  if (status >= 200 && status < 300) {
    // Microsoft Teams connectors answer 200 even when the message was not posted, with a text
    // body such as "Webhook message delivery failed with error: Microsoft Teams endpoint returned
    // HTTP error 429 with ContextId …" (429 throttled, 413 too large, 400 bad card, …).
    const teams = /Microsoft Teams endpoint returned HTTP error (\d{3})/i.exec(text);
    if (teams || /Webhook message delivery failed/i.test(text)) {
      const throttled = teams?.[1] === "429";
      return retry(snippet, throttled, retryAfterMs, status);
    }
    // Only these exact machine-readable codes count on a 2xx: a receiver that echoes the message
    // back could otherwise be taken for throttled by a part described as a "Throttle body".
    if (isThrottleCode(jsonCode(text))) return retry(snippet, true, retryAfterMs, status);
    return { outcome: "delivered", status };
  }

  // Zoho Cliq throttles with 400 and {"code":"request_limit_exceeded","message":"You have exceeded
  // the URL throttle limits."}; other chats with 429 or words to that effect. Being liberal here is
  // cheap: every non-2xx answer is retried anyway, this only decides how long to wait.
  const throttled = status === 429 || isThrottleCode(jsonCode(text)) ||
    /throttl|rate[ _-]?limit|too many requests|\b429\b/i.test(text);
  // Everything else is retried too: 408 and 5xx are passing trouble, and other 4xx (404 for a
  // deleted webhook, 403, 400) usually mean a misconfigured channel that an operator can fix within
  // the 24 h window; after that the announcement is marked failed and shown on the dashboard.
  return retry(snippet, throttled, retryAfterMs, status);
}

function retry(
  error: string,
  throttled: boolean,
  retryAfterMs: number | undefined,
  status: number,
): WebhookResult {
  const wait = retryAfterMs ?? (throttled ? THROTTLE_DEFAULT_RETRY_MS : undefined);
  return {
    outcome: "retry",
    error,
    throttled,
    status,
    ...(wait === undefined ? {} : { retryAfterMs: wait }),
  };
}

/**
 * Retry-After as milliseconds from `now`: either delay-seconds ("120") or an HTTP-date
 * ("Wed, 21 Oct 2026 07:28:00 GMT"). A date in the past means "now" (0); garbage is ignored.
 */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Only something that looks like a date: Date.parse accepts bare numbers like "-5" too.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

const THROTTLE_CODES = new Set([
  "request_limit_exceeded",
  "throttles_limit_exceeded",
  "throttle_limit_exceeded",
  "too_many_requests",
  "rate_limited",
  "rate_limit_exceeded",
]);

function isThrottleCode(code: string | undefined): boolean {
  return code !== undefined && THROTTLE_CODES.has(code.toLowerCase());
}

/** The `code` (Cliq) or `error` (Slack) of a JSON answer, if it is one. */
function jsonCode(text: string): string | undefined {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const code = parsed.code ?? parsed.error;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Reads at most `limit` bytes of the body as text and drops the rest, releasing the connection. */
async function readSome(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(concatBytes(chunks, size).subarray(0, limit));
}

/**
 * Removes the webhook URL and anything secret-looking from it (Slack and Teams keep the secret in
 * the path, Cliq in the `zapikey` query value) from text bound for the dashboard. Fetch errors
 * quote the full URL, and a chat may echo it back.
 */
export function redact(text: string, url: string): string {
  const secrets = new Set<string>();
  try {
    const u = new URL(url);
    for (const seg of u.pathname.split("/")) if (seg.length >= 12) secrets.add(seg);
    for (const v of u.searchParams.values()) if (v.length >= 6) secrets.add(v);
  } catch {
    // Not a URL: nothing more to find in it.
  }
  let out = text.replace(/https?:\/\/[^\s"'<>)]+/gi, "[webhook url]");
  for (const s of secrets) {
    out = out.split(s).join("…");
    out = out.split(encodeURIComponent(s)).join("…");
  }
  return out;
}

/**
 * Why a request got no answer, e.g. "tcp connect error: Connection refused (os error 111)".
 * Deno's fetch throws "fetch failed" and keeps the reason in `cause`, prefixed with the full URL.
 */
function networkReason(err: unknown, url: string): string {
  let deepest: unknown = err;
  for (let i = 0; i < 5 && deepest instanceof Error && deepest.cause !== undefined; i++) {
    deepest = deepest.cause;
  }
  const reason = redact(errorMessage(deepest), url)
    .replace(/^error sending request for url \(\[webhook url\]\):\s*/i, "")
    .replace(/^client error \((\w+)\):\s*/i, "");
  return (reason || errorMessage(err)).slice(0, SNIPPET_CHARS);
}

function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, " ");
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
