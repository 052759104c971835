/** Counts of announcements per delivery state, for the dashboard's feed filter. */
import type { Db } from "@/db/client.ts";
import type { AnnouncementState } from "@/db/schema.ts";

export async function announcementCounts(db: Db): Promise<Partial<Record<AnnouncementState, number>>> {
  const rows = await db.selectFrom("announcements")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("state")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}
