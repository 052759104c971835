/**
 * The change feed's database side (docs/dashboard.md "Live updates"): a NOTIFY on one channel, sent inside
 * the transaction that makes the change, so every process listening (lib/live/) hears of it exactly when it
 * commits and never of a rolled-back one. Works the same on a server and on PGlite.
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import type { Tx } from "@/db/queries/compiled.ts";

/** The NOTIFY channel of the change feed. */
export const CHANGE_CHANNEL = "hq_change";

/**
 * What changed: a movement (and so its parts), a part's status, an announcement's delivery, a driver's
 * return request (asked or decided: docs/return-requests.md), HQ's plan of a day (docs/runs.md), or a
 * shop's problem report (sent or handled: docs/shop-page.md; the action queue shows the open ones).
 */
export type ChangeTopic =
  | "movements"
  | "parts"
  | "announcements"
  | "return_requests"
  | "runs"
  | "problem_reports";

export const CHANGE_TOPICS: readonly ChangeTopic[] = [
  "movements",
  "parts",
  "announcements",
  "return_requests",
  "runs",
  "problem_reports",
];

/**
 * The same NOTIFY as a CTE body (`n as (${notifyChangeSql(…)})`) for a statement that does the change
 * itself, so the submissions pay no extra round trip for it (docs/submissions-and-announcements.md, "Cost").
 * The statement must read the CTE (`(select sent from n)`): PostgreSQL skips a SELECT CTE nobody reads.
 */
export function notifyChangeSql(topic: ChangeTopic) {
  return sql`select 1 as sent from pg_notify(${CHANGE_CHANNEL}, ${topic})`;
}

/** The statement of `notifyChange`. */
export function notifyChangeStatementSql(topic: ChangeTopic) {
  return sql`select pg_notify(${CHANGE_CHANNEL}, ${topic})`;
}

/**
 * Announces `topic` to the listeners when `tx` commits (one statement). Outside a transaction (`db`), the
 * statement is its own transaction: delivered at once.
 */
export async function notifyChange(tx: Tx | Db, topic: ChangeTopic): Promise<void> {
  await notifyChangeStatementSql(topic).execute(tx);
}
