/**
 * Collect, when nothing on the claim is flagged for return (docs/tablet.md "Asking HQ to return parts"):
 * the claim's parts at the repair shop, each ticked by default, an optional note, and "Ask HQ to return
 * these". The request is kept on the device (localStorage, by driver and claim) until the server has it, so
 * a dead spot or a reload loses nothing: it is sent again with the same key (the server answers a retry with
 * the request it made, docs/return-requests.md), at once when the network comes back, else with backoff,
 * and "Retry now" sends it at once. Once HQ has it, the panel asks for its state every few seconds
 * (passively: a poll is not the driver's activity, D23); approved, it searches again, so the parts show as
 * collectable; declined, it shows HQ's reason and lets the driver ask again.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ReturnOffer, ReturnRequestAnswer } from "@/components/tablet_jobs.ts";
import { backoffMs, isRetryable, postJson } from "./_tablet_net.ts";

/** How often an open request's state is read while the claim is on screen. */
export const POLL_MS = 5000;

interface Draft {
  clientKey: string;
  rego: string;
  parts: number[];
  note: string;
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

/** A passive GET of the request's state (`X-HQ-Live`: made by the page itself, routes/web/session.ts). */
async function readRequest(id: number, csrf: string): Promise<ReturnRequestAnswer | null | "gone"> {
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

type Sending =
  | { state: "idle" }
  | { state: "sending" }
  | { state: "waiting"; retryAt: number; attempts: number }
  | { state: "refused"; message: string };

const time = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

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
  const [sending, setSending] = useState<Sending>({ state: "idle" });
  const [, tick] = useState(0);
  const draft = useRef<Draft | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const approvedOnce = useRef(false);

  async function send(attempts = 0) {
    const d = draft.current;
    if (!d) return;
    clearTimeout(timer.current);
    setSending({ state: "sending" });
    const answer = await postJson<ReturnRequestAnswer>("/tablet/api/return-requests", {
      rego: d.rego,
      parts: d.parts,
      note: d.note || null,
      client_key: d.clientKey,
    }, csrf);
    if (answer.data) {
      draft.current = null;
      saveDraft(key, null);
      setSending({ state: "idle" });
      setRequest(answer.data);
      return;
    }
    if (answer.status === 401) return; // Signed out: the draft stays for this driver's next session.
    if (isRetryable(answer.status)) {
      const wait = backoffMs(attempts + 1);
      setSending({ state: "waiting", retryAt: Date.now() + wait, attempts: attempts + 1 });
      timer.current = setTimeout(() => send(attempts + 1), wait);
      return;
    }
    // Refused (a part moved meanwhile, a note too long): nothing was recorded; the driver may change it.
    draft.current = null;
    saveDraft(key, null);
    setSending({ state: "refused", message: answer.message ?? `Not sent (${answer.status}).` });
  }

  // A request kept on this device (sent from a dead spot, then a reload): send it again.
  useEffect(() => {
    const kept = loadDraft(key);
    if (kept && (!offer.request || offer.request.state !== "open")) {
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

  const ask = () => {
    if (selected.size === 0) {
      setSending({ state: "refused", message: "Select at least one part to ask HQ to return." });
      return;
    }
    draft.current = {
      clientKey: crypto.randomUUID(),
      rego: offer.rego,
      parts: offer.parts.filter((p) => selected.has(p.id)).map((p) => p.id),
      note: note.trim(),
    };
    saveDraft(key, draft.current);
    void send();
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
            Not sent yet: no connection. Kept on this tablet; trying again in{" "}
            {Math.max(0, Math.ceil((sending.retryAt - Date.now()) / 1000))} s.
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
      {sending.state === "sending" && <p role="status">Sending the request to HQ…</p>}
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
          <button type="button" class="btn btn-primary min-h-14 text-xl" onClick={ask}>
            Ask HQ to return these ({selected.size})
          </button>
        </div>
      )}
    </section>
  );
}

function RequestState({ request }: { request: ReturnRequestAnswer }) {
  const parts = request.parts.map((p) => p.part_no).join(", ");
  switch (request.state) {
    case "open":
      return (
        <p class="msg-info" role="status" data-testid="return-request-state" data-state="open">
          Asked HQ at {time(request.requested_at)} ({request.requested_by}) to return{" "}
          {parts}. Waiting for a dispatcher: this screen updates when HQ decides.
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
