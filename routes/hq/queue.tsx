/**
 * `/hq/queue`: the whole action queue (docs/action-queue.md), longest waiting first, each item acted on in
 * place (the forms post to their own routes, which send the dispatcher back here with `?done=`) or linked
 * to its page. Live on the queue's topics.
 */
import { Hono } from "hono";
import { ActionQueueList, queueDoneQuery } from "@/components/hq/action_queue.tsx";
import { Live } from "@/components/hq/live.tsx";
import { hqPage, mustViewer } from "@/components/hq/page.tsx";
import { NoticeBox, PageTitle } from "@/components/hq/ui.tsx";
import { actionQueue, QUEUE_TOPICS } from "@/lib/dashboard/action_queue.ts";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

export function queueRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.get("/", async (c) => {
    const { done } = queueDoneQuery.parse(c.req.query());
    const queue = await actionQueue(deps.db, deps.clock.now());
    return hqPage(
      c,
      { title: "Action queue", section: "queue" },
      <>
        <PageTitle sub="Everything that waits for a dispatcher, the longest waiting first.">
          Action queue
        </PageTitle>
        <NoticeBox notice={done ?? null} />
        <Live topics={[...QUEUE_TOPICS]}>
          <ActionQueueList queue={queue} csrfToken={mustViewer(c).csrfToken} back="/hq/queue" />
        </Live>
      </>,
    );
  });
  return app;
}
