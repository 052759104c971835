/**
 * What the driver's queue still holds, shown under the header of every signed-in page (part of the
 * TabletIdle island): the count of photos and movements saved on this tablet and not yet sent, a link to
 * a job the server refused later, the receipts of movements sent in the background, and the question
 * before a sign-out that would leave work unsent.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { JOBS } from "@/components/tablet_jobs.ts";
import { type Queue, queueFor, type QueueSummary } from "./_tablet_queue.ts";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** "2 photos and 1 movement", or "" when nothing waits. */
export function waitingText(s: QueueSummary): string {
  const bits = [];
  if (s.photos) bits.push(plural(s.photos, "photo"));
  if (s.movements) bits.push(plural(s.movements, "movement"));
  return bits.join(" and ");
}

export function QueueStatus({ userId, csrf }: { userId: number; csrf: string }) {
  const queue = useRef<Queue | null>(null);
  const [summary, setSummary] = useState<QueueSummary | null>(null);
  const [sent, setSent] = useState<{ movementId: number; receiptUrl: string }[]>([]);
  const [asking, setAsking] = useState<HTMLFormElement | null>(null);
  const stay = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const q = queue.current = queueFor(userId, csrf);
    const off = q.subscribe((e) => {
      if (e.type === "changed") setSummary({ ...q.summary });
      if (e.type === "sent") {
        setSent((list) => [...list, { movementId: e.movementId, receiptUrl: e.receiptUrl }]);
      }
    });
    void q.changed(false);
    // Signing out with work unsent: say so and ask (the idle sign-out does not ask: it keeps the work).
    const onSubmit = (e: SubmitEvent) => {
      const form = e.target as HTMLFormElement;
      if (!form.action.endsWith("/tablet/sign-out") || !waitingText(q.summary)) return;
      e.preventDefault();
      setAsking(form);
    };
    document.addEventListener("submit", onSubmit);
    return () => {
      off();
      document.removeEventListener("submit", onSubmit);
    };
  }, []);
  useEffect(() => {
    if (asking) stay.current?.focus();
  }, [asking]);

  const waiting = summary ? waitingText(summary) : "";
  return (
    <>
      {(waiting || summary?.refused.length || sent.length > 0) && (
        <div class="mx-auto max-w-5xl space-y-1 px-4 pb-2 text-base" data-testid="queue">
          {waiting && (
            <p role="status" class="font-semibold text-amber-950" data-testid="queue-count">
              Not sent yet: {waiting}.{" "}
              {summary?.stopped ? "Sign in again to send them." : "They are sent when the tablet is online."}
            </p>
          )}
          {summary?.refused.map((job) => (
            <p key={job} role="alert" class="font-semibold text-red-800">
              Not sent: the server refused a movement.{" "}
              <a class="tablet-link" href={`/tablet/${job}`}>Open {JOBS[job].title}</a> to see why.
            </p>
          ))}
          {sent.map((m) => (
            <p key={m.movementId} class="font-semibold text-green-800" data-testid="queue-sent">
              Movement #{m.movementId} sent. <a class="tablet-link" href={m.receiptUrl}>See the receipt</a>
            </p>
          ))}
        </div>
      )}
      {asking && (
        <div
          role="alertdialog"
          aria-labelledby="unsent-title"
          aria-describedby="unsent-text"
          class="fixed inset-0 z-50 flex items-center justify-center bg-slate-950/70 p-4"
        >
          <div class="card max-w-lg space-y-4">
            <p id="unsent-title" class="text-2xl font-bold">Work not sent yet</p>
            <p id="unsent-text">
              {waiting} {summary && summary.photos + summary.movements === 1 ? "is" : "are"}{" "}
              saved on this tablet but not sent. They stay here and are sent the next time you sign in on this
              tablet with a connection. Another driver cannot see them.
            </p>
            <div class="flex flex-wrap gap-3">
              <button ref={stay} type="button" class="btn btn-primary" onClick={() => setAsking(null)}>
                Stay signed in
              </button>
              <button type="button" class="btn btn-secondary" onClick={() => asking.submit()}>
                Sign out anyway
              </button>
            </div>
          </div>
        </div>
      )}
    </>
  );
}
