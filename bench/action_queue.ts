/**
 * The action queue's page (docs/action-queue.md) that bench/dashboard.ts times beside the lists, on the
 * bench's scale data (bench/generate_scale.ts, docs/dashboard-scale.md "The generated depot"). The page
 * also carries the header's count, which every dashboard page pays: its statement is in the same request.
 * Its row is one of the overview's (`overview /hq/queue`, budget 200 ms).
 */
import type { Db } from "@/db/client.ts";
import { actionQueue, actionQueueCount } from "@/lib/dashboard/action_queue.ts";
import type { DashPage } from "@/bench/dashboard_pages.ts";
import { OVERVIEW_LABEL } from "@/bench/overview.ts";

export function actionQueuePages(_db: Db): Promise<DashPage[]> {
  return Promise.resolve([
    {
      path: "/hq/queue",
      label: `${OVERVIEW_LABEL} /hq/queue (the action queue)`,
      data: async (db) => {
        const now = new Date();
        return await Promise.all([actionQueue(db, now), actionQueueCount(db, now)]);
      },
    },
  ]);
}
