/**
 * The action queue as a list (docs/action-queue.md): `<ActionQueueList>` renders what
 * lib/dashboard/action_queue.ts answers, longest waiting first, each item with its action in place (the
 * existing routes' forms, sent back here by their `back` field) or a link to its page, and "and N more"
 * links where a kind has more than is shown. Used by `/hq/queue` and embedded by the overview; the element
 * holding it is `data-testid="action-queue"` (the issue's contract). `<QueueCountLink>` is the header's
 * figure.
 */
import { z } from "zod";
import { CHANNEL_LABEL } from "@/components/hq/announcement_words.ts";
import { claimHref, ClaimLink } from "@/components/hq/part_cells.tsx";
import {
  buttonClass,
  Csrf,
  dangerButtonClass,
  inputClass,
  linkClass,
  type Notice,
  secondaryButtonClass,
  StatusBadge,
  Time,
} from "@/components/hq/ui.tsx";
import type { CappedCount } from "@/db/queries/announcements.ts";
import type {
  ActionQueue,
  QueueDone,
  QueueItem,
  QueueKind,
  QueuePage,
} from "@/lib/dashboard/action_queue.ts";
import { doneQuery } from "@/lib/dashboard/forms.ts";
import { RETURN_TEXT_MAX } from "@/lib/return_requests.ts";
import { PROBLEM_REASONS } from "@/lib/shops/problems.ts";

/** "5", "1000+": a capped count as text. */
/** What a dispatcher is told after acting on an item in place (`?done=` on the page they come back to). */
const NOTICES: Record<QueueDone, Notice> = {
  approved: {
    kind: "ok",
    text: "Return request approved: its parts still at the shop are flagged for pick-up.",
  },
  declined: { kind: "ok", text: "Return request declined; the driver reads your reason." },
  handled: { kind: "ok", text: "Problem report marked handled." },
  retried: { kind: "ok", text: "Announcement queued for another attempt." },
  stale: { kind: "info", text: "That announcement is no longer failed; nothing was retried." },
};

/** The `done` query of a page the queue's actions come back to (/hq/queue, /hq). */
export const queueDoneQuery = z.object({ done: doneQuery<Notice>(NOTICES) });

export const countText = (c: CappedCount) => `${c.n.toLocaleString("en")}${c.more ? "+" : ""}`;

/**
 * The header's link to the queue, named "Action queue, 5 waiting": what is seen ("Action queue 5") starts
 * its name, so a voice command of the visible words finds it (WCAG 2.5.3).
 */
export function QueueCountLink({ count, active }: { count: CappedCount; active: boolean }) {
  const text = countText(count);
  return (
    <a
      href="/hq/queue"
      aria-current={active ? "page" : undefined}
      aria-label={`Action queue, ${text} waiting`}
      data-testid="queue-count"
      data-count={count.n}
      class={`inline-flex min-h-10 items-center rounded px-3 py-2 font-medium ${
        active ? "bg-white text-slate-900" : "text-slate-100 hover:bg-slate-700"
      }`}
    >
      Action queue{" "}
      <span
        class={`ml-2 rounded-full px-2 text-sm font-bold ${
          count.n > 0 ? "bg-amber-400 text-slate-900" : "bg-slate-600 text-white"
        }`}
      >
        {text}
      </span>
    </a>
  );
}

/** Each kind's page, for its "and N more". */
const KIND_PAGE: Record<QueueKind, { href: string; noun: string }> = {
  return_request: { href: "/hq/return-requests", noun: "return requests" },
  problem_report: { href: "/hq/problem-reports", noun: "problem reports" },
  no_shop: { href: "/hq/runs", noun: "claims without a repair shop" },
  announcement_failed: { href: "/hq/announcements?state=failed", noun: "failed announcements" },
  late: { href: "/hq/parts", noun: "groups of late parts" },
};

export interface ActionQueueListProps {
  queue: ActionQueue;
  csrfToken: string;
  /** The page the actions come back to. */
  back: QueuePage;
  /** Set when the list is cut (the overview): the rest is a link to the full queue. */
  limited?: boolean;
}

export function ActionQueueList({ queue, csrfToken, back, limited }: ActionQueueListProps) {
  const shown: Partial<Record<QueueKind, number>> = {};
  for (const item of queue.items) shown[item.kind] = (shown[item.kind] ?? 0) + 1;
  const more = (Object.keys(KIND_PAGE) as QueueKind[])
    .map((kind) => ({ kind, left: queue.counts[kind].n - (shown[kind] ?? 0), plus: queue.counts[kind].more }))
    .filter((m) => m.left > 0 || m.plus);
  return (
    <section id="action-queue" data-testid="action-queue" aria-labelledby="action-queue-title">
      <h2 id="action-queue-title" class="mb-2 text-xl font-semibold">
        Waiting for a dispatcher ({countText(queue.total)})
      </h2>
      {queue.items.length === 0
        ? <p class="text-slate-600" data-testid="queue-empty">Nothing is waiting.</p>
        : (
          <ol class="flex flex-col gap-3" aria-label="Action queue, longest waiting first">
            {queue.items.map((item) => <Item key={item.key} item={item} csrfToken={csrfToken} back={back} />)}
          </ol>
        )}
      {more.length > 0 && (
        <ul class="mt-3 flex flex-col gap-1" aria-label="More waiting" data-testid="queue-more">
          {limited
            ? (
              <li>
                <a class={linkClass} href="/hq/queue">
                  and {countText({ n: queue.total.n - queue.items.length, more: queue.total.more })}{" "}
                  more waiting: the full queue
                </a>
              </li>
            )
            : more.map((m) => (
              <li key={m.kind}>
                <a class={linkClass} href={KIND_PAGE[m.kind].href}>
                  and {m.left.toLocaleString("en")}
                  {m.plus ? "+" : ""} more {KIND_PAGE[m.kind].noun}
                </a>
              </li>
            ))}
        </ul>
      )}
    </section>
  );
}

const TITLES: Record<QueueKind, string> = {
  return_request: "Return request",
  problem_report: "Problem report",
  no_shop: "No repair shop",
  announcement_failed: "Announcement failing",
  late: "Late",
};

function Item({ item, csrfToken, back }: { item: QueueItem; csrfToken: string; back: QueuePage }) {
  return (
    <li
      id={`queue-${item.key}`}
      data-queue-item={item.key}
      data-kind={item.kind}
      class="rounded border border-slate-200 bg-white p-3"
    >
      <div class="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <span class="rounded bg-slate-100 px-2 text-sm font-semibold uppercase tracking-wide text-slate-700">
          {TITLES[item.kind]}
        </span>
        <span class="grow">
          <Summary item={item} />
        </span>
        <span class="text-sm text-slate-600">
          waiting since <Time at={item.since} />
        </span>
      </div>
      <Action item={item} csrfToken={csrfToken} back={back} />
    </li>
  );
}

function lateWords(item: Extract<QueueItem, { kind: "late" }>): string {
  const t = item.thresholds;
  const n = `${item.atLeast ? "at least " : ""}${item.parts} ${item.parts === 1 ? "part" : "parts"}`;
  const shop = item.repairerName ?? "no repair shop on record";
  if (item.late === "held") return `${n} held at ${shop} over ${t.held_band_3_days} days`;
  if (item.late === "truck") {
    return `${n} from ${shop} on a truck over ${t.truck_hours} hours`;
  }
  return `${n} flagged for return at ${shop}, waiting over ${t.return_waiting_days} days`;
}

function Summary({ item }: { item: QueueItem }) {
  switch (item.kind) {
    case "return_request":
      return (
        <>
          <strong>#{item.id}</strong> {item.requestedBy} asks to return claim{" "}
          <ClaimLink claim={item.claimNumber} /> ({item.rego}) from{" "}
          {item.repairerName ?? "a repair shop (none on record)"}
          {item.note && <span class="block text-slate-700">“{item.note}”</span>}
        </>
      );
    case "problem_report":
      return (
        <>
          <strong>#{item.id}</strong> {item.repairerName}: {PROBLEM_REASONS[item.reason]}{" "}
          <a class={`${linkClass} font-mono`} href={`/hq/parts/${item.partId}`}>{item.partNo}</a> (claim{" "}
          <ClaimLink claim={item.claimNumber} />)
          {item.note && <span class="block text-slate-700">“{item.note}”</span>}
        </>
      );
    case "no_shop":
      return (
        <>
          Claim <ClaimLink claim={item.claimNumber} /> ({item.rego}): {item.parts}{" "}
          {item.parts === 1 ? "part" : "parts"} at HQ, no repair shop on the claim
        </>
      );
    case "announcement_failed":
      return (
        <>
          <strong>{item.title}</strong> {item.rego ? `(${item.rego})` : ""} to {CHANNEL_LABEL[item.channel]}
          {item.repairerName ? ` (${item.repairerName})` : ""} failed
          {item.lastError && <span class="block text-sm text-slate-700">{item.lastError}</span>}
        </>
      );
    case "late":
      return (
        <>
          {lateWords(item)} <StatusBadge status={item.status} />{" "}
          <span class="text-sm text-slate-600">
            (oldest since <Time at={item.entered} />)
          </span>
        </>
      );
  }
}

const Back = ({ back }: { back: QueuePage }) => <input type="hidden" name="back" value={back} />;

function Action({ item, csrfToken, back }: { item: QueueItem; csrfToken: string; back: QueuePage }) {
  switch (item.kind) {
    case "return_request":
      return (
        <div class="mt-2 flex flex-wrap items-end gap-3">
          <form method="post" action={`/hq/return-requests/${item.id}/approve`}>
            <Csrf token={csrfToken} />
            <Back back={back} />
            <button type="submit" class={buttonClass}>
              Approve #{item.id}: flag {item.atShop} {item.atShop === 1 ? "part" : "parts"}
            </button>
          </form>
          <form
            method="post"
            action={`/hq/return-requests/${item.id}/decline`}
            class="flex flex-wrap items-end gap-2"
          >
            <Csrf token={csrfToken} />
            <Back back={back} />
            <label class="flex flex-col gap-1 text-sm">
              <span class="text-slate-700">Reason for the driver</span>
              <input
                name="reason"
                required
                maxLength={RETURN_TEXT_MAX}
                class={inputClass}
                aria-label={`Reason for declining request #${item.id}`}
              />
            </label>
            <button type="submit" class={dangerButtonClass}>Decline #{item.id}</button>
          </form>
        </div>
      );
    case "problem_report":
      return (
        <form method="post" action={`/hq/problem-reports/${item.id}/resolve`} class="mt-2">
          <Csrf token={csrfToken} />
          <Back back={back} />
          <button type="submit" class={buttonClass}>Mark report #{item.id} handled</button>
        </form>
      );
    case "announcement_failed":
      return (
        <form method="post" action={`/hq/announcements/${item.id}/retry`} class="mt-2">
          <Csrf token={csrfToken} />
          <Back back={back} />
          <button type="submit" class={secondaryButtonClass}>Retry announcement #{item.id}</button>
        </form>
      );
    case "no_shop":
      return (
        <p class="mt-1">
          <a class={linkClass} href={claimHref(item.claimNumber)}>Open claim {item.claimNumber}</a>
        </p>
      );
    case "late": {
      const q = new URLSearchParams({ status: item.status, sort: "since", dir: "asc" });
      if (item.repairerId !== null) q.set("repairer", String(item.repairerId));
      return (
        <p class="mt-1">
          <a class={linkClass} href={`/hq/parts?${q}`}>
            See the parts{item.repairerName ? ` at ${item.repairerName}` : ""}, oldest first
          </a>
        </p>
      );
    }
  }
}
