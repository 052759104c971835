/**
 * `/hq/queue`: the whole action queue (docs/action-queue.md), longest waiting first, each item acted on in
 * place (the forms post to their own routes, which send the dispatcher back here with `?done=`) or linked
 * to its page. Live on the queue's topics.
 */
import { Hono } from "hono";
import { z } from "zod";
import { ActionQueueList } from "@/components/hq/action_queue.tsx";
import { Live } from "@/components/hq/live.tsx";
import { hqPage, mustViewer } from "@/components/hq/page.tsx";
import { type Notice, NoticeBox, PageTitle } from "@/components/hq/ui.tsx";
import { actionQueue, QUEUE_TOPICS, type QueueDone } from "@/lib/dashboard/action_queue.ts";
import { doneQuery } from "@/lib/dashboard/forms.ts";
import type { AppDeps } from "@/lib/deps.ts";
import type { SessionEnv } from "@/routes/web/session.ts";

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

const queueQuery = z.object({ done: doneQuery<Notice>(NOTICES) });

export function queueRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.get("/", async (c) => {
    const { done } = queueQuery.parse(c.req.query());
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
