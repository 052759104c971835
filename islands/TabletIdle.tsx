/**
 * Idle sign-out on a shared tablet (D23): counts down to the server's idle timeout, shows a warning with
 * a live countdown in the last minute, and signs out when it runs out. Every answer from the server
 * restarts the countdown (islands/_tablet_net.ts reports it), and so does "Stay signed in". The sign-out
 * ends the session, not the work: the driver's queue stays on the tablet (islands/_tablet_queue*.ts).
 *
 * On every signed-in page it also shows what the driver's queue still holds (QueueStatus), asks before a
 * sign-out that would leave work unsent, and registers the offline service worker.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { EVENTS, postJson, SIGNED_OUT_MESSAGE } from "./_tablet_net.ts";
import { QueueStatus } from "./_tablet_queue_ui.tsx";
import { registerOffline, sessionDeadline } from "./_tablet_queue_offline.ts";

export interface TabletIdleProps {
  /** Milliseconds until the server ends the session if nothing happens. */
  expiresInMs: number;
  csrf: string;
  /** The signed-in driver, whose queued work this page shows and sends. */
  userId: number;
}

const WARN_MS = 60_000;

export const signInAfterIdle = "/tablet/sign-in?reason=idle";

function clockText(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export default function TabletIdle({ expiresInMs, csrf, userId }: TabletIdleProps) {
  const deadline = useRef(Date.now() + expiresInMs);
  const [left, setLeft] = useState(expiresInMs);
  const [signedOut, setSignedOut] = useState(false);
  const [signedOutText, setSignedOutText] = useState(SIGNED_OUT_MESSAGE);
  const [ready, setReady] = useState(false);
  const leaving = useRef(false);
  const stayButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    // A page the service worker kept, shown offline, counts from when the server last saw this driver.
    deadline.current = sessionDeadline(userId, expiresInMs, true);
    const tick = () => {
      const ms = deadline.current - Date.now();
      setLeft(ms);
      if (ms <= 0) signOutNow();
    };
    const onActivity = (e: Event) => {
      const ms = (e as CustomEvent<{ expiresInMs: number }>).detail.expiresInMs;
      deadline.current = sessionDeadline(userId, ms, false);
      tick();
    };
    registerOffline();
    const onSignedOut = (e: Event) => {
      setSignedOutText((e as CustomEvent<{ message?: string }>).detail?.message ?? SIGNED_OUT_MESSAGE);
      setSignedOut(true);
    };
    globalThis.addEventListener(EVENTS.activity, onActivity);
    globalThis.addEventListener(EVENTS.signedOut, onSignedOut);
    const timer = setInterval(tick, 1000);
    setReady(true);
    return () => {
      clearInterval(timer);
      globalThis.removeEventListener(EVENTS.activity, onActivity);
      globalThis.removeEventListener(EVENTS.signedOut, onSignedOut);
    };
  }, []);

  const warning = !signedOut && left <= WARN_MS && left > 0;
  useEffect(() => {
    if (warning) stayButton.current?.focus();
  }, [warning]);

  async function signOutNow() {
    if (leaving.current) return;
    leaving.current = true;
    setSignedOut(true);
    globalThis.dispatchEvent(new CustomEvent(EVENTS.leaving));
    // Ends the session on the server too (its own clock may lag ours), then shows the sign-in screen.
    await fetch("/tablet/sign-out", {
      method: "POST",
      headers: { "x-csrf-token": csrf },
      credentials: "same-origin",
      redirect: "manual",
    }).catch(() => {});
    location.replace(signInAfterIdle);
  }

  async function stay() {
    const answer = await postJson("/tablet/api/ping", {}, csrf);
    if (answer.status === 401) {
      setSignedOutText(answer.message ?? SIGNED_OUT_MESSAGE);
      setSignedOut(true);
    }
  }

  return (
    <div data-testid="idle-watch" data-ready={ready ? "" : undefined}>
      <QueueStatus userId={userId} csrf={csrf} />
      {warning && (
        <div
          role="alertdialog"
          aria-labelledby="idle-title"
          aria-describedby="idle-text"
          class="fixed inset-x-0 bottom-0 z-50 border-t-4 border-amber-600 bg-amber-50 p-4 shadow-2xl"
        >
          <div class="mx-auto flex max-w-5xl flex-wrap items-center gap-4">
            <div class="grow">
              <p id="idle-title" class="text-xl font-bold text-slate-950">Still there?</p>
              <p id="idle-text" class="text-slate-950">
                This tablet signs you out in{" "}
                <strong class="tabular-nums" data-testid="idle-countdown">{clockText(left)}</strong>{" "}
                to keep your account safe.
              </p>
            </div>
            <button ref={stayButton} type="button" class="btn btn-primary" onClick={stay}>
              Stay signed in
            </button>
          </div>
        </div>
      )}
      {signedOut && (
        <div
          role="alertdialog"
          aria-labelledby="signed-out-title"
          class="fixed inset-0 z-50 flex items-center justify-center bg-slate-950/70 p-4"
        >
          <div class="card max-w-lg text-center">
            <p id="signed-out-title" class="mb-4 text-2xl font-bold" data-testid="signed-out">
              {signedOutText}
            </p>
            <a class="btn btn-primary" href={signInAfterIdle}>Sign in</a>
          </div>
        </div>
      )}
    </div>
  );
}
