/**
 * The action queue's page (docs/action-queue.md) that bench/dashboard.ts times beside the lists, on the
 * bench's scale data (bench/generate_scale.ts: half the parts held at 20 shops for up to two years, so
 * hundreds of thousands are late by every threshold, and one announcement in a thousand failed). The page
 * also carries the header's count, which every dashboard page pays: its statement is in the same request.
 * Rows `dashboard GET /hq/queue`.
 */
import type { Db } from "@/db/client.ts";
import { actionQueue, actionQueueCount } from "@/lib/dashboard/action_queue.ts";
import type { DashPage } from "@/bench/dashboard_pages.ts";

export function actionQueuePages(_db: Db): Promise<DashPage[]> {
  return Promise.resolve([
    {
      path: "/hq/queue",
      label: "/hq/queue",
      data: async (db) => {
        const now = new Date();
        return await Promise.all([actionQueue(db, now), actionQueueCount(db, now)]);
      },
    },
  ]);
}
