/**
 * `/hq` (dispatcher, admin): the overview (docs/overview.md), what a dispatcher reads first: today's counts
 * and what is late, each count a link to its list, then the action queue's longest waiting items
 * (docs/action-queue.md). Live like the lists (components/hq/overview.tsx).
 */
import { Hono } from "hono";
import { Overview } from "@/components/hq/overview.tsx";
import { ActionQueueList, queueDoneQuery } from "@/components/hq/action_queue.tsx";
import { Live } from "@/components/hq/live.tsx";
import { hqPage, mustViewer } from "@/components/hq/page.tsx";
import { NoticeBox } from "@/components/hq/ui.tsx";
import { actionQueue, QUEUE_TOPICS } from "@/lib/dashboard/action_queue.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { overviewFigures } from "@/lib/dashboard/overview.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

/** The queue's items the overview shows (the longest waiting); the rest is a link to /hq/queue. */
const OVERVIEW_QUEUE_ITEMS = 10;

export function overviewRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.get("/", async (c) => {
    const { done } = queueDoneQuery.parse(c.req.query());
    const now = deps.clock.now();
    const [figures, queue] = await Promise.all([
      overviewFigures(deps.db, now, deps.config.depotTimeZone),
      actionQueue(deps.db, now, { perKind: OVERVIEW_QUEUE_ITEMS, limit: OVERVIEW_QUEUE_ITEMS }),
    ]);
    const queueList = (
      <>
        <NoticeBox notice={done ?? null} />
        <Live topics={[...QUEUE_TOPICS]}>
          <ActionQueueList queue={queue} csrfToken={mustViewer(c).csrfToken} back="/hq" limited />
        </Live>
      </>
    );
    return hqPage(
      c,
      { title: "Today", section: "overview" },
      <Overview figures={figures} queue={queueList} />,
    );
  });
  return app;
}
