/**
 * `/hq/announcements`: the announcement feed (D22): every announcement with its delivery state per
 * channel, filtered by state, and the retry of failed ones (POST).
 */
import { Live, liveRow } from "@/components/hq/live.tsx";
import { ANNOUNCEMENT_STATE_LABEL, CHANNEL_LABEL } from "@/components/hq/announcement_words.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AnnouncementState } from "@/db/schema.ts";
import type { CappedCount } from "@/db/queries/announcements.ts";
import type { FeedEntry, FeedItem } from "@/lib/announcements/feed.ts";
import {
  announcementsPage,
  type AnnouncementsPageData,
  FEED_STATES,
  retryFailed,
} from "@/lib/dashboard/announcements.ts";
import { queueBackOf, queueDone } from "@/lib/dashboard/action_queue.ts";
import { doneQuery } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { parseId } from "@/lib/validation.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, mustViewer, notFoundPage } from "@/components/hq/page.tsx";
import {
  Csrf,
  Empty,
  linkClass,
  type Notice,
  NoticeBox,
  PageTitle,
  secondaryButtonClass,
  Time,
} from "@/components/hq/ui.tsx";

const NOTICES = {
  retried: { kind: "ok", text: "Queued for another attempt. The state changes here once the chat answers." },
  stale: { kind: "info", text: "That announcement is no longer failed; nothing was retried." },
} as const;

/**
 * `?state=` (one of the feed's filters, else all), `?before=` (the key of the last announcement of the
 * previous page, else the newest) and `?done=` (the notice after a retry).
 */
const feedQuery = z.object({
  state: z.enum(FEED_STATES).nullable().catch(null),
  before: z.coerce.number().int().positive().max(2 ** 31 - 1).nullable().catch(null),
  done: doneQuery<Notice>(NOTICES),
});

export function announcementsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    const { state, before, done } = feedQuery.parse(c.req.query());
    const data = await announcementsPage(deps.db, { state, before, timeZone: deps.config.depotTimeZone });
    return hqPage(
      c,
      { title: "Announcements", section: "announcements" },
      <Page
        data={{ ...data, state, before, csrfToken: mustViewer(c).csrfToken, notice: done ?? null }}
        since={deps.clock.now()}
      />,
    );
  });

  app.post("/:id/retry", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "announcement");
    // From the action queue (docs/action-queue.md): back there.
    const back = queueBackOf(await c.req.parseBody());
    const retried = await retryFailed(deps.db, id, mustViewer(c).userId);
    const done = retried ? "retried" : "stale";
    return c.redirect(back ? queueDone(back, done) : `/hq/announcements?state=failed&done=${done}`, 303);
  });

  return app;
}

interface Data extends AnnouncementsPageData {
  state: AnnouncementState | null;
  before: number | null;
  csrfToken: string;
  notice: Notice | null;
}
const STATE_CLASS: Record<AnnouncementState, string> = {
  pending: "bg-sky-100 text-sky-900",
  delivered: "bg-emerald-100 text-emerald-900",
  failed: "bg-red-100 text-red-900",
  feed_only: "bg-slate-100 text-slate-800",
};

function Page({ data, since }: { data: Data; since: Date }) {
  return (
    <>
      <PageTitle sub="Team-chat announcements of every movement, newest first, with their delivery state per channel.">
        Announcements
      </PageTitle>
      <NoticeBox notice={data.notice} />
      <nav class="mb-4 flex flex-wrap gap-2 text-sm" aria-label="Filter by state">
        <StateLink state={null} current={data.state} label="All" />
        {FEED_STATES.map((s) => (
          <StateLink
            key={s}
            state={s}
            current={data.state}
            label={`${ANNOUNCEMENT_STATE_LABEL[s]} (${countLabel(data.counts[s])})`}
          />
        ))}
      </nav>
      <Live topics={["announcements", "movements"]} since={since}>
        {data.entries.length === 0 ? <Empty>No announcements here.</Empty> : (
          <ol class="flex flex-col gap-3">
            {data.entries.map((e) => <Entry key={e.id} entry={e} csrfToken={data.csrfToken} />)}
          </ol>
        )}
        {(data.more || data.before) && (
          <nav class="mt-4 flex gap-4" aria-label="Pages">
            {data.before && <a class={linkClass} href={pageHref(data.state, null)}>Newest</a>}
            {data.more && (
              <a
                class={linkClass}
                href={pageHref(data.state, data.entries[data.entries.length - 1].id)}
                rel="next"
              >
                Older announcements
              </a>
            )}
          </nav>
        )}
      </Live>
    </>
  );
}

/** "12", or "more than 480" when the count stopped at its cap (db/queries/announcements.ts). */
function countLabel(count: CappedCount | undefined): string {
  if (!count) return "0";
  return count.more ? `more than ${count.n}` : String(count.n);
}

function pageHref(state: AnnouncementState | null, before: number | null): string {
  const q = new URLSearchParams();
  if (state) q.set("state", state);
  if (before) q.set("before", String(before));
  const s = q.toString();
  return s ? `/hq/announcements?${s}` : "/hq/announcements";
}

function StateLink(
  { state, current, label }: {
    state: AnnouncementState | null;
    current: AnnouncementState | null;
    label: string;
  },
) {
  const active = state === current;
  return (
    <a
      href={state ? `/hq/announcements?state=${state}` : "/hq/announcements"}
      aria-current={active ? "page" : undefined}
      class={`rounded-full border px-3 py-1 ${
        active ? "border-slate-800 bg-slate-800 text-white" : "border-slate-300 bg-white hover:bg-slate-50"
      }`}
    >
      {label}
    </a>
  );
}

/** One announcement: its text once, then a chip per channel with that channel's delivery state. */
function Entry({ entry, csrfToken }: { entry: FeedEntry; csrfToken: string }) {
  const a = entry.announcement;
  return (
    <li
      class="rounded border border-slate-200 bg-white p-4"
      data-entry={entry.id}
      {...liveRow(`announcement:${entry.id}`, entry.createdAt, `announcement: ${entry.title}, ${a.rego}`)}
    >
      <div class="flex flex-wrap items-center gap-x-3 gap-y-1">
        <strong>{entry.title}</strong>
        <span class="ml-auto text-sm text-slate-600">
          <Time at={entry.createdAt} />
        </span>
      </div>
      <p class="mt-1 text-sm">
        {a.rego} · {a.place} · {a.driver} · {a.returnRequestId !== undefined
          ? (
            <a class={linkClass} href={`/hq/return-requests#request-${a.returnRequestId}`}>
              Return request #{a.returnRequestId}
            </a>
          )
          : entry.movementId === 0
          ? "e-mail to the shop only"
          : <a class={linkClass} href={`/hq/movements/${entry.movementId}`}>Movement #{entry.movementId}</a>}
      </p>
      <ul class="mt-1 list-inside list-disc text-sm text-slate-700">
        {a.parts.map((p, i) => (
          <li key={i}>
            <span class="font-mono">{p.partNo}</span> {p.description}
          </li>
        ))}
      </ul>
      <ul class="mt-2 flex flex-col gap-2" aria-label="Channels">
        {entry.channels.map((item) => <Chip key={item.id} item={item} csrfToken={csrfToken} />)}
      </ul>
    </li>
  );
}

/** Why a `feed_only` row was not sent: its channel is not configured. */
function notSent(item: FeedItem): string {
  return item.channel === "shop_email"
    ? "No SMTP server configured (SMTP_URL)."
    : "No chat webhook configured for this channel.";
}

/** A channel's delivery: sent, waiting (attempts, next try), failed (the reason, retry) or not configured. */
function Chip({ item, csrfToken }: { item: FeedItem; csrfToken: string }) {
  return (
    <li class="flex flex-wrap items-center gap-2 text-sm" data-announcement={item.id} data-state={item.state}>
      <span class={`rounded px-2 py-0.5 font-medium ${STATE_CLASS[item.state]}`}>
        {CHANNEL_LABEL[item.channel]}: {ANNOUNCEMENT_STATE_LABEL[item.state]}
      </span>
      <span class="text-slate-700">
        {item.state === "delivered" && (
          <>
            <Time at={item.deliveredAt} /> after {item.attempts} attempt{item.attempts === 1 ? "" : "s"}.
          </>
        )}
        {item.state === "pending" && (
          <>
            {item.attempts} attempt{item.attempts === 1 ? "" : "s"} so far; next{" "}
            <Time at={item.nextAttemptAt} />.
            {item.lastError ? ` Last error: ${item.lastError}` : ""}
          </>
        )}
        {item.recipients.length > 0 && <>To {item.recipients.join(", ")}.{" "}</>}
        {item.state === "feed_only" && <>{notSent(item)}</>}
      </span>
      {item.state === "failed" && (
        <form
          method="post"
          action={`/hq/announcements/${item.id}/retry`}
          class="flex flex-wrap items-center gap-3"
        >
          <span class="text-red-900" data-testid="last-error">
            Gave up after {item.attempts} attempts. Last error: {item.lastError ?? "unknown"}
          </span>
          <Csrf token={csrfToken} />
          <button type="submit" class={secondaryButtonClass}>Retry</button>
        </form>
      )}
    </li>
  );
}
