/**
 * Collect, when nothing on the claim is flagged for return (docs/tablet.md "Asking HQ to return parts"):
 * the claim's parts at the repair shop, each ticked by default, an optional note, and "Ask HQ to return
 * these". The request is kept on the device (localStorage, by driver and claim) until the server has it, so
 * a dead spot or a reload loses nothing: it is sent again with the same key (the server answers a retry with
 * the request it made, docs/return-requests.md), at once when the network comes back, else with backoff,
 * and "Retry now" sends it at once. Once HQ has it, the panel asks for its state every few seconds
 * (passively: a poll is not the driver's activity, D23); approved, it searches again, so the parts show as
 * collectable; declined, it shows HQ's reason and lets the driver ask again.
 *
 * An optional photo of the parts goes after the request (docs/return-requests.md "Photo"): kept on the
 * device (islands/_tablet_request_photo.ts) and sent to the request once HQ has it, with the same retries;
 * the kept request stays until its photo is stored too.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ReturnOffer, ReturnRequestAnswer } from "@/components/tablet_jobs.ts";
import { backoffMs, isRetryable, postJson, preparePhoto, uploadBlob } from "./_tablet_net.ts";
import { dropRequestPhoto, keepRequestPhoto, keptRequestPhoto } from "./_tablet_request_photo.ts";
import { readRequest, RequestPhotoPicker, RequestState } from "./_tablet_return_request_ui.tsx";

/** How often an open request's state is read while the claim is on screen. */
export const POLL_MS = 5000;

interface Draft {
  clientKey: string;
  rego: string;
  parts: number[];
  note: string;
  /** A photo is kept on the device under `clientKey` (islands/_tablet_request_photo.ts). */
  hasPhoto?: boolean;
  /** Set once HQ has the request: only its photo remains to send. */
  requestId?: number;
}

const draftKey = (userId: number, claimNumber: string) => `pm:return-request:${userId}:${claimNumber}`;

function loadDraft(key: string): Draft | null {
  try {
    const raw = localStorage.getItem(key);
    return raw ? JSON.parse(raw) as Draft : null;
  } catch {
    return null;
  }
}

function saveDraft(key: string, draft: Draft | null): void {
  try {
    if (draft) localStorage.setItem(key, JSON.stringify(draft));
    else localStorage.removeItem(key);
  } catch { /* storage full or blocked: the request is still sent from memory */ }
}

type Sending =
  | { state: "idle" }
  | { state: "sending" }
  | { state: "waiting"; retryAt: number; attempts: number; what: "request" | "photo" }
  | { state: "refused"; message: string };

export function ReturnRequestPanel(
  { offer, csrf, userId, onApproved }: {
    offer: ReturnOffer;
    csrf: string;
    userId: number;
    /** Searches the claim again: its parts are now flagged, so the collect job offers them. */
    onApproved: () => void;
  },
) {
  const key = draftKey(userId, offer.claim_number);
  const [request, setRequest] = useState<ReturnRequestAnswer | null>(offer.request);
  const [selected, setSelected] = useState<Set<number>>(() => new Set(offer.parts.map((p) => p.id)));
  const [note, setNote] = useState("");
  const [photo, setPhoto] = useState<{ blob: Blob; url: string } | null>(null);
  const [sending, setSending] = useState<Sending>({ state: "idle" });
  const [, tick] = useState(0);
  const draft = useRef<Draft | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const approvedOnce = useRef(false);

  /** What happens to a kept request (and its photo) after a refusal or once everything is sent. */
  function forget(d: Draft) {
    draft.current = null;
    saveDraft(key, null);
    if (d.hasPhoto) void dropRequestPhoto(d.clientKey);
  }

  function retryLater(what: "request" | "photo", attempts: number, again: (attempts: number) => void) {
    const wait = backoffMs(attempts + 1);
    setSending({ state: "waiting", retryAt: Date.now() + wait, attempts: attempts + 1, what });
    timer.current = setTimeout(() => again(attempts + 1), wait);
  }

  /** Sends the kept photo to the request HQ has. */
  async function sendPhoto(attempts = 0) {
    const d = draft.current;
    if (!d?.requestId) return;
    clearTimeout(timer.current);
    const blob = await keptRequestPhoto(d.clientKey).catch(() => undefined);
    if (!blob) return forget(d); // cleared with the site's data: nothing left to send
    setSending({ state: "sending" });
    const answer = await uploadBlob<ReturnRequestAnswer>(
      `/tablet/api/return-requests/${d.requestId}/photo`,
      blob,
      csrf,
      () => {},
    );
    if (answer.data) {
      forget(d);
      setSending({ state: "idle" });
      setRequest(answer.data);
      return;
    }
    if (answer.status === 401) return;
    if (isRetryable(answer.status)) return retryLater("photo", attempts, sendPhoto);
    // Refused (HQ decided meanwhile, not a photo): the request itself stands.
    forget(d);
    setSending({
      state: "refused",
      message: `Photo not sent: ${answer.message ?? `refused (${answer.status}).`}`,
    });
  }

  async function send(attempts = 0) {
    const d = draft.current;
    if (!d) return;
    if (d.requestId) return sendPhoto(attempts);
    clearTimeout(timer.current);
    setSending({ state: "sending" });
    const answer = await postJson<ReturnRequestAnswer>("/tablet/api/return-requests", {
      rego: d.rego,
      parts: d.parts,
      note: d.note || null,
      client_key: d.clientKey,
    }, csrf);
    if (answer.data) {
      setRequest(answer.data);
      if (d.hasPhoto) {
        // HQ has the request; the photo follows (a joined request takes it too: the same parts).
        draft.current = { ...d, requestId: answer.data.id };
        saveDraft(key, draft.current);
        return sendPhoto();
      }
      forget(d);
      setSending({ state: "idle" });
      return;
    }
    if (answer.status === 401) return; // Signed out: the draft stays for this driver's next session.
    if (isRetryable(answer.status)) return retryLater("request", attempts, send);
    // Refused (a part moved meanwhile, a note too long): nothing was recorded; the driver may change it.
    forget(d);
    setSending({ state: "refused", message: answer.message ?? `Not sent (${answer.status}).` });
  }

  // A request kept on this device (sent from a dead spot, then a reload): send it again.
  useEffect(() => {
    const kept = loadDraft(key);
    if (kept?.requestId !== undefined) {
      // Only the photo was left to send: to the request on screen, if it is still open.
      draft.current = kept;
      if (offer.request?.id === kept.requestId && offer.request.state === "open") void sendPhoto();
      else forget(kept);
    } else if (kept && (!offer.request || offer.request.state !== "open")) {
      draft.current = kept;
      setSelected(new Set(kept.parts));
      setNote(kept.note);
      void send();
    } else if (kept) saveDraft(key, null);
    const online = () => {
      if (draft.current) void send();
    };
    globalThis.addEventListener("online", online);
    return () => {
      globalThis.removeEventListener("online", online);
      clearTimeout(timer.current);
    };
  }, [key]);

  // The countdown of a retry.
  useEffect(() => {
    if (sending.state !== "waiting") return;
    const id = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(id);
  }, [sending.state]);

  // While HQ has not decided: read the request's state every few seconds, and at once when back online.
  useEffect(() => {
    if (!request || request.state !== "open") return;
    let stopped = false;
    const poll = async () => {
      const now = await readRequest(request.id, csrf);
      if (stopped || now === null) return;
      if (now === "gone") setRequest(null);
      else if (now.state !== "open") setRequest(now);
    };
    const id = setInterval(poll, POLL_MS);
    globalThis.addEventListener("online", poll);
    return () => {
      stopped = true;
      clearInterval(id);
      globalThis.removeEventListener("online", poll);
    };
  }, [request?.id, request?.state]);

  useEffect(() => {
    if (request?.state === "approved" && !approvedOnce.current && offer.request?.state !== "approved") {
      approvedOnce.current = true;
      onApproved();
    }
  }, [request?.state]);

  const ask = async () => {
    if (selected.size === 0) {
      setSending({ state: "refused", message: "Select at least one part to ask HQ to return." });
      return;
    }
    const d: Draft = {
      clientKey: crypto.randomUUID(),
      rego: offer.rego,
      parts: offer.parts.filter((p) => selected.has(p.id)).map((p) => p.id),
      note: note.trim(),
    };
    if (photo) {
      // Kept before anything is sent; a tablet that cannot keep it sends the request without it.
      d.hasPhoto = await keepRequestPhoto(d.clientKey, photo.blob).then(() => true, () => false);
    }
    draft.current = d;
    saveDraft(key, d);
    void send();
  };

  const choosePhoto = async (file: File) => {
    const blob = await preparePhoto(file);
    if (photo) URL.revokeObjectURL(photo.url);
    setPhoto({ blob, url: URL.createObjectURL(blob) });
  };

  const asking = sending.state === "sending" || sending.state === "waiting";
  const canAsk = offer.parts.length > 0 && request?.state !== "open" && !asking;

  return (
    <section
      aria-labelledby="return-request-heading"
      class="space-y-4 border-t-2 border-slate-300 pt-4"
      data-testid="return-request"
    >
      <h2 id="return-request-heading" class="text-2xl font-semibold">Ask HQ to return parts</h2>
      {request && <RequestState request={request} />}
      {sending.state === "waiting" && (
        <div class="msg-info space-y-2" role="status" data-testid="return-request-waiting">
          <p>
            {sending.what === "photo" ? "Photo not sent yet" : "Not sent yet"}: no connection. Kept on this
            tablet; trying again in {Math.max(0, Math.ceil((sending.retryAt - Date.now()) / 1000))} s.
          </p>
          <button
            type="button"
            class="btn btn-secondary"
            onClick={() =>
              send(sending.attempts)}
          >
            Retry now
          </button>
        </div>
      )}
      {sending.state === "sending" && <p role="status">Sending to HQ…</p>}
      {sending.state === "refused" && (
        <p class="msg-error" role="alert" data-testid="return-request-error">{sending.message}</p>
      )}
      {canAsk && (
        <div class="space-y-4">
          <p>
            These parts of the claim are at{" "}
            {offer.repairer_name ?? "the repair shop"}. If the shop is done with them, ask HQ to flag them for
            return; you can collect them once HQ approves.
          </p>
          <ul class="space-y-2" aria-label="Parts at the repair shop">
            {offer.parts.map((p) => (
              <li key={p.id} data-testid={`return-part-${p.part_no}`}>
                <label class="flex min-h-14 cursor-pointer items-center gap-4">
                  <input
                    type="checkbox"
                    class="toggle"
                    checked={selected.has(p.id)}
                    onChange={(e) => {
                      const next = new Set(selected);
                      if (e.currentTarget.checked) next.add(p.id);
                      else next.delete(p.id);
                      setSelected(next);
                    }}
                  />
                  <span>
                    <strong class="block font-mono text-xl">{p.part_no}</strong>
                    {p.description} · Qty {p.qty}
                  </span>
                </label>
              </li>
            ))}
          </ul>
          <div>
            <label for="return-note" class="field-label">Note for HQ (optional)</label>
            <textarea
              id="return-note"
              class="field"
              rows={2}
              maxLength={500}
              value={note}
              onInput={(e) => setNote(e.currentTarget.value)}
            />
          </div>
          <RequestPhotoPicker
            photo={photo}
            onFile={(file) => void choosePhoto(file)}
            onRemove={() => {
              if (photo) URL.revokeObjectURL(photo.url);
              setPhoto(null);
            }}
          />
          <button type="button" class="btn btn-primary min-h-14 text-xl" onClick={ask}>
            Ask HQ to return these ({selected.size})
          </button>
        </div>
      )}
    </section>
  );
}
