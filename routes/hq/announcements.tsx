/**
 * `/hq/announcements`: the announcement feed (D22): every announcement with its delivery state per
 * channel, filtered by state, and the retry of failed ones (POST).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AnnouncementState } from "@/db/schema.ts";
import type { FeedItem } from "@/lib/announcements/feed.ts";
import {
  announcementsPage,
  type AnnouncementsPageData,
  FEED_STATES,
  retryFailed,
} from "@/lib/dashboard/announcements.ts";
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

/** `?state=` (one of the feed's filters, else all) and `?done=` (the notice after a retry). */
const feedQuery = z.object({
  state: z.enum(FEED_STATES).nullable().catch(null),
  done: doneQuery<Notice>(NOTICES),
});

export function announcementsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    const { state, done } = feedQuery.parse(c.req.query());
    const data = await announcementsPage(deps.db, state, deps.config.depotTimeZone);
    return hqPage(
      c,
      { title: "Announcements", section: "announcements" },
      <Page
        data={{ ...data, state, csrfToken: mustViewer(c).csrfToken, notice: done ?? null }}
      />,
    );
  });

  app.post("/:id/retry", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "announcement");
    const retried = await retryFailed(deps.db, id, mustViewer(c).userId);
    return c.redirect(`/hq/announcements?state=failed&done=${retried ? "retried" : "stale"}`, 303);
  });

  return app;
}

interface Data extends AnnouncementsPageData {
  state: AnnouncementState | null;
  csrfToken: string;
  notice: Notice | null;
}
const STATE_LABEL: Record<AnnouncementState, string> = {
  pending: "Pending",
  delivered: "Delivered",
  failed: "Failed",
  feed_only: "Feed only",
};
const STATE_CLASS: Record<AnnouncementState, string> = {
  pending: "bg-sky-100 text-sky-900",
  delivered: "bg-emerald-100 text-emerald-900",
  failed: "bg-red-100 text-red-900",
  feed_only: "bg-slate-100 text-slate-800",
};
const CHANNEL_LABEL = { parts_movement: "Parts Movement", new_repair_jobs: "New Repair Jobs" } as const;

function Page({ data }: { data: Data }) {
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
            label={`${STATE_LABEL[s]} (${data.counts[s] ?? 0})`}
          />
        ))}
      </nav>
      {data.items.length === 0 ? <Empty>No announcements here.</Empty> : (
        <ol class="flex flex-col gap-3">
          {data.items.map((item) => <Item key={item.id} item={item} csrfToken={data.csrfToken} />)}
        </ol>
      )}
    </>
  );
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

function Item({ item, csrfToken }: { item: FeedItem; csrfToken: string }) {
  const a = item.announcement;
  return (
    <li
      class="rounded border border-slate-200 bg-white p-4"
      data-announcement={item.id}
      data-state={item.state}
    >
      <div class="flex flex-wrap items-center gap-x-3 gap-y-1">
        <strong>{item.title}</strong>
        <span class="text-sm text-slate-600">{CHANNEL_LABEL[item.channel]} channel</span>
        <span class={`rounded px-2 py-0.5 text-xs font-medium ${STATE_CLASS[item.state]}`}>
          {STATE_LABEL[item.state]}
        </span>
        <span class="ml-auto text-sm text-slate-600">
          <Time at={item.createdAt} />
        </span>
      </div>
      <p class="mt-1 text-sm">
        {a.rego} · {a.place} · {a.driver} ·{" "}
        <a class={linkClass} href={`/hq/movements/${item.movementId}`}>Movement #{item.movementId}</a>
      </p>
      <ul class="mt-1 list-inside list-disc text-sm text-slate-700">
        {a.parts.map((p, i) => (
          <li key={i}>
            <span class="font-mono">{p.partNo}</span> {p.description}
          </li>
        ))}
      </ul>
      <p class="mt-2 text-xs text-slate-600">
        {item.state === "delivered" && (
          <>
            Delivered <Time at={item.deliveredAt} /> after {item.attempts}{" "}
            attempt{item.attempts === 1 ? "" : "s"}.
          </>
        )}
        {item.state === "pending" && (
          <>
            {item.attempts} attempt{item.attempts === 1 ? "" : "s"} so far; next{" "}
            <Time at={item.nextAttemptAt} />.
            {item.lastError ? ` Last error: ${item.lastError}` : ""}
          </>
        )}
        {item.state === "feed_only" && <>No chat webhook configured for this channel: shown here only.</>}
      </p>
      {item.state === "failed" && (
        <form
          method="post"
          action={`/hq/announcements/${item.id}/retry`}
          class="mt-2 flex flex-wrap items-center gap-3"
        >
          <span class="text-sm text-red-900" data-testid="last-error">
            Gave up after {item.attempts} attempts. Last error: {item.lastError ?? "unknown"}
          </span>
          <Csrf token={csrfToken} />
          <button type="submit" class={secondaryButtonClass}>Retry</button>
        </form>
      )}
    </li>
  );
}
