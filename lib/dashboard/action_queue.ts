/**
 * The action queue (docs/action-queue.md): everything that waits for a dispatcher, one list, the item that
 * has waited longest first. Kinds: a driver's open return request, a shop's open problem report, a claim
 * without a repair shop with parts Arrived at HQ (docs/runs.md "Needs HQ"), a failed announcement or shop
 * e-mail, and late parts (the ageing thresholds in force, lib/dashboard/ageing_thresholds.ts) grouped per
 * repair shop and kind. An item "waits since" the moment it started needing someone: a request or report
 * when it was sent, a claim when its first part arrived, an announcement when it was written, a late group
 * when its oldest part became late (entered its status + the threshold).
 */
import type { Db } from "@/db/client.ts";
import {
  failedAnnouncementItems,
  latePartGroups,
  noShopClaimItems,
  openProblemReportItems,
  openReturnRequestItems,
  queueCounts,
} from "@/db/queries/action_queue.ts";
import type { AnnouncementChannel, AnnouncementTitle, PartStatus, ProblemReason } from "@/db/schema.ts";
import { type AgeingThresholds, ageingThresholds } from "@/lib/dashboard/ageing_thresholds.ts";
import type { CappedCount } from "@/db/queries/announcements.ts";
import { z } from "zod";

/** The change topics that can change the queue (db/queries/changes.ts): its pages refresh on them. */
export const QUEUE_TOPICS = [
  "return_requests",
  "problem_reports",
  "announcements",
  "parts",
  "movements",
] as const;

/** Each kind's count reads at most this many rows; past it the count reads "1000+". */
export const QUEUE_COUNT_CAP = 1000;
/** Per late status, the oldest parts read and grouped by shop (the groups a dispatcher acts on first). */
export const LATE_WINDOW = 250;
/** Items of each kind on the full queue page; the rest are one "and N more" link to the kind's page. */
export const QUEUE_PAGE_ITEMS = 50;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export type LateKind = "held" | "truck" | "return_waiting";

/** The late rules: a part in `status` longer than its threshold is late. */
export const LATE_RULES: Record<LateKind, { status: PartStatus; ms: (t: AgeingThresholds) => number }> = {
  held: { status: "Delivered to Repair Shop directly", ms: (t) => t.held_band_3_days * DAY_MS },
  truck: { status: "Picked Up from Repair Shop", ms: (t) => t.truck_hours * HOUR_MS },
  return_waiting: { status: "Pending Repair Shop Pick-Up", ms: (t) => t.return_waiting_days * DAY_MS },
};
const LATE_KINDS = Object.keys(LATE_RULES) as LateKind[];

export type QueueItem =
  & { key: string; since: Date }
  & (
    | {
      kind: "return_request";
      id: number;
      claimNumber: string;
      rego: string;
      repairerName: string | null;
      requestedBy: string;
      note: string | null;
      atShop: number;
    }
    | {
      kind: "problem_report";
      id: number;
      reason: ProblemReason;
      partId: number;
      partNo: string;
      claimNumber: string;
      repairerName: string;
      note: string | null;
    }
    | { kind: "no_shop"; claimNumber: string; rego: string; parts: number }
    | {
      kind: "announcement_failed";
      id: number;
      title: AnnouncementTitle;
      channel: AnnouncementChannel;
      rego: string | null;
      repairerName: string | null;
      lastError: string | null;
    }
    | {
      kind: "late";
      late: LateKind;
      status: PartStatus;
      repairerId: number | null;
      repairerName: string | null;
      parts: number;
      /** The oldest part entered the status then. */
      entered: Date;
      /** The threshold, for the wording ("over 30 days"). */
      thresholds: AgeingThresholds;
      /** The window of oldest late parts was full: this shop may hold more. */
      atLeast: boolean;
    }
  );

export type QueueKind = QueueItem["kind"];

export interface ActionQueue {
  items: QueueItem[];
  /** How many items of each kind there are (capped); the page shows `items`, the rest as "and N more". */
  counts: Record<QueueKind, CappedCount>;
  total: CappedCount;
}

const capped = (n: number, cap = QUEUE_COUNT_CAP): CappedCount => ({ n: Math.min(n, cap), more: n > cap });

function lateInputs(t: AgeingThresholds, now: Date) {
  return LATE_KINDS.map((k) => ({
    status: LATE_RULES[k].status,
    before: new Date(now.getTime() - LATE_RULES[k].ms(t)),
    window: LATE_WINDOW,
  }));
}

function sumCounts(counts: CappedCount[]): CappedCount {
  return { n: counts.reduce((s, c) => s + c.n, 0), more: counts.some((c) => c.more) };
}

/** The header's figure: how many items wait (one bounded statement after the thresholds' read). */
export async function actionQueueCount(db: Db, now: Date): Promise<CappedCount> {
  const t = await ageingThresholds(db);
  return sumCounts(
    Object.values(countsOf(await queueCounts(db, { cap: QUEUE_COUNT_CAP, late: lateInputs(t, now) }))),
  );
}

function countsOf(c: Awaited<ReturnType<typeof queueCounts>>): Record<QueueKind, CappedCount> {
  return {
    return_request: capped(c.returnRequests),
    problem_report: capped(c.problemReports),
    no_shop: capped(c.noShop),
    announcement_failed: capped(c.failed),
    // Groups are per shop of the window: a few per status, never past the cap.
    late: capped(c.late.reduce((s, n) => s + n, 0)),
  };
}

/**
 * The queue as of `now`: each kind's `perKind` longest-waiting items, merged longest-waiting first, and
 * every kind's count. `limit` cuts the merged list (the overview shows the first few).
 */
export async function actionQueue(
  db: Db,
  now: Date,
  opts: { perKind?: number; limit?: number } = {},
): Promise<ActionQueue> {
  const perKind = opts.perKind ?? QUEUE_PAGE_ITEMS;
  const t = await ageingThresholds(db);
  const late = lateInputs(t, now);
  const [requests, reports, noShop, failed, groups, counts] = await Promise.all([
    openReturnRequestItems(db, perKind),
    openProblemReportItems(db, perKind),
    noShopClaimItems(db, perKind),
    failedAnnouncementItems(db, perKind),
    Promise.all(late.map((l) => latePartGroups(db, l))),
    // The late groups are read above: the count statement needs no late windows of its own here.
    queueCounts(db, { cap: QUEUE_COUNT_CAP, late: [] }),
  ]);
  const items: QueueItem[] = [
    ...requests.map((r): QueueItem => ({
      kind: "return_request",
      key: `return-request-${r.id}`,
      since: new Date(r.requested_at),
      id: r.id,
      claimNumber: r.claim_number,
      rego: r.registration,
      repairerName: r.repairer_name,
      requestedBy: r.requested_by_name,
      note: r.note,
      atShop: Number(r.at_shop ?? 0),
    })),
    ...reports.map((r): QueueItem => ({
      kind: "problem_report",
      key: `problem-report-${r.id}`,
      since: new Date(r.reported_at),
      id: r.id,
      reason: r.reason,
      partId: r.part_id,
      partNo: r.part_no,
      claimNumber: r.claim_number,
      repairerName: r.repairer_name,
      note: r.note,
    })),
    ...noShop.map((c): QueueItem => ({
      kind: "no_shop",
      key: `no-shop-${c.id}`,
      since: new Date(c.since as Date),
      claimNumber: c.claim_number,
      rego: c.registration,
      parts: Number(c.parts),
    })),
    ...failed.map((a): QueueItem => ({
      kind: "announcement_failed",
      key: `announcement-${a.id}`,
      since: new Date(a.created_at),
      id: a.id,
      title: a.title,
      channel: a.channel,
      rego: a.rego,
      repairerName: a.repairer_name,
      lastError: a.last_error,
    })),
    ...LATE_KINDS.flatMap((k, i) => {
      const read = groups[i].reduce((s, g) => s + g.parts, 0);
      return groups[i].map((g): QueueItem => {
        const entered = new Date(g.since as Date);
        return {
          kind: "late",
          key: `late-${k}-${g.repairer_id ?? "none"}`,
          since: new Date(entered.getTime() + LATE_RULES[k].ms(t)),
          late: k,
          status: LATE_RULES[k].status,
          repairerId: g.repairer_id,
          repairerName: g.repairer_name,
          parts: g.parts,
          entered,
          thresholds: t,
          atLeast: read >= LATE_WINDOW,
        };
      });
    }),
  ];
  items.sort((a, b) => a.since.getTime() - b.since.getTime() || a.key.localeCompare(b.key));
  const byKind = countsOf({ ...counts, late: groups.map((g) => g.length) });
  return {
    items: opts.limit === undefined ? items : items.slice(0, opts.limit),
    counts: byKind,
    total: sumCounts(Object.values(byKind)),
  };
}

/** The pages an in-place action may send the dispatcher back to (the queue, the overview that embeds it). */
export const QUEUE_PAGES = ["/hq/queue", "/hq"] as const;
export type QueuePage = (typeof QUEUE_PAGES)[number];

/** A form's `back` field: one of QUEUE_PAGES, else null (the action's own page answers, as before). */
export function queueBackOf(body: Record<string, unknown>): QueuePage | null {
  return z.enum(QUEUE_PAGES).nullable().catch(null).parse(body.back ?? null);
}

/** Where an in-place action lands: the queue page it came from, with what was done (`?done=`). */
export const queueDone = (back: QueuePage, done: QueueDone) => `${back}?done=${done}#action-queue`;

export type QueueDone = "approved" | "declined" | "handled" | "retried" | "stale";
