/** `/hq/announcements`: the feed with delivery states (lib/announcements/feed.ts) and retry of failed ones. */
import { Hono } from "hono";
import { announcementCounts } from "@/db/queries/announcements.ts";
import type { AnnouncementState } from "@/db/schema.ts";
import { listAnnouncements, retryAnnouncement } from "@/lib/announcements/feed.ts";
import { announcementsWritten } from "@/lib/announcements/outbox.ts";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { hqPage, mustViewer, notFoundPage, parseId } from "@/routes/hq/render.tsx";
import { AnnouncementsPage, FEED_STATES } from "@/routes/hq/announcements_page.tsx";

const FEED_LIMIT = 200;

const NOTICES = {
  retried: { kind: "ok", text: "Queued for another attempt. The state changes here once the chat answers." },
  stale: { kind: "info", text: "That announcement is no longer failed; nothing was retried." },
} as const;

export function announcementsRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get("/", async (c) => {
    const raw = c.req.query("state");
    const state = FEED_STATES.includes(raw as AnnouncementState) ? raw as AnnouncementState : null;
    const [items, counts] = await Promise.all([
      listAnnouncements(deps.db, { limit: FEED_LIMIT, state: state ?? undefined }),
      announcementCounts(deps.db),
    ]);
    const done = c.req.query("done");
    const notice = done === "retried" || done === "stale" ? NOTICES[done] : null;
    return hqPage(
      c,
      { title: "Announcements", section: "announcements" },
      <AnnouncementsPage data={{ items, state, counts, csrfToken: mustViewer(c).csrfToken, notice }} />,
    );
  });

  app.post("/:id/retry", async (c) => {
    const id = parseId(c.req.param("id"));
    if (!id) return notFoundPage(c, "announcement");
    const retried = await retryAnnouncement(deps.db, id);
    if (retried) announcementsWritten(deps.db);
    return c.redirect(`/hq/announcements?state=failed&done=${retried ? "retried" : "stale"}`, 303);
  });

  return app;
}
