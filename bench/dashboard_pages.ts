/**
 * The dashboard requests bench/dashboard.ts times: every list's default order, a deep page, each filter and
 * each sort, with the page's data functions called as its route calls them (for the bare SQL replay).
 */
import { sql } from "kysely";
import type { Db } from "@/db/client.ts";
import {
  cursorParam,
  movementPageOf,
  movementQueryOf,
  partPageOf,
  partQueryOf,
  tripQueryOf,
} from "@/lib/dashboard/lists.ts";
import { partsPage } from "@/lib/dashboard/parts.ts";
import { movementsPage, openTripsPage } from "@/lib/dashboard/movements.ts";
import { announcementsPage } from "@/lib/dashboard/announcements.ts";
import type { AnnouncementState } from "@/db/schema.ts";
import { sized, spreadOf } from "@/bench/pairs.ts";

/** One dashboard request: its path and the page's data functions, as the route calls them. */
export interface DashPage {
  path: string;
  /** The path as the bench's rows name it: the same in every run (a cursor or id in it depends on the data). */
  label: string;
  data: (db: Db) => Promise<unknown>;
}

/** Timed requests per page and round after an untimed one (one when the untimed one took over a second). */
const RUNS = sized(5, 2);

/** Median of the timed calls (ms) after an untimed warm-up call. */
export async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const w = performance.now();
  await fn();
  const runs = performance.now() - w > 1000 ? 1 : RUNS;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return spreadOf(times).median;
}

const query = (path: string) => Object.fromEntries(new URL(path, "http://x").searchParams);

function partsList(path: string, label = path): DashPage {
  return {
    path,
    label,
    data: (db) => {
      const raw = query(path);
      const list = partQueryOf(raw);
      return partsPage(db, list.filters, partPageOf(raw, list.sort), list.sort);
    },
  };
}

function movementsList(path: string, label = path): DashPage {
  return {
    path,
    label,
    data: (db) => {
      const raw = query(path);
      const list = movementQueryOf(raw, new Date(), "UTC");
      return movementsPage(db, list.filters, movementPageOf(raw, list.sort), list.sort);
    },
  };
}

const tripsList = (path: string): DashPage => ({
  path,
  label: path,
  data: (db) => openTripsPage(db, tripQueryOf(query(path)).sort),
});

function feed(state: AnnouncementState | null, before: number | null): DashPage {
  const q = new URLSearchParams();
  if (state) q.set("state", state);
  if (before) q.set("before", String(before));
  const path = `/hq/announcements${q.size ? `?${q}` : ""}`;
  return {
    path,
    label: before ? path.replace(/before=\d+/, "before=<90 % of the feed>") : path,
    data: (db) => announcementsPage(db, { state, before, timeZone: "UTC" }),
  };
}

/** The pages timed: every list's default, a deep page, each filter and each sort. */
export async function dashPages(db: Db): Promise<DashPage[]> {
  // Row 12 501 of the default order (where `?page=501` of the offset paging began), or the middle row.
  const deep = await sql<{ value: string; id: number }>`select to_char(updated_at at time zone 'UTC',
    'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as value, id from parts_orders order by updated_at desc, id desc
    offset least(12500, (select count(*) / 2 from parts_orders)) limit 1`.execute(db);
  const after = cursorParam({ column: "since", dir: "desc" }, deep.rows[0]);
  const sample = await sql<{ registration: string; repairer: number; driver: number; top: number }>`
    select c.registration, cm.repairer_id as repairer, (select id from users where role = 'driver' limit 1) driver,
      (select max(id) from announcements) top
    from claims c join claim_management cm on cm.claim_id = c.id order by c.id limit 1`.execute(db);
  const s = sample.rows[0];
  const rego = encodeURIComponent(s.registration.slice(0, 4));
  const parts = ["part_no", "description", "qty", "status", "claim", "rego", "repairer"]
    .map((col) => partsList(`/hq/parts?sort=${col}`));
  const movements = ["id", "type", "status", "rego", "place", "driver", "dropped_off", "parts"]
    .map((col) => movementsList(`/hq/movements?sort=${col}`));
  // The walked sorts (shops, users) read their pages differently going down (rows without a value first):
  // timed both ways. An index sort scans the same index backwards, so one direction stands for both.
  const descending = [
    partsList("/hq/parts?sort=repairer&dir=desc"),
    movementsList("/hq/movements?sort=place&dir=desc"),
    movementsList("/hq/movements?sort=driver&dir=desc"),
  ];
  return [
    partsList("/hq/parts"),
    partsList(`/hq/parts?after=${after}`, "/hq/parts?after=<row 12 501, or the middle one>"),
    partsList("/hq/parts?status=Arrived"),
    partsList("/hq/parts?claim=54321"),
    partsList(`/hq/parts?rego=${rego}`),
    partsList(`/hq/parts?repairer=${s.repairer}`, "/hq/parts?repairer=<claim 1's>"),
    ...parts,
    movementsList("/hq/movements"),
    movementsList("/hq/movements?type=reverse"),
    movementsList("/hq/movements?status=Parts+Picked+Up"),
    movementsList(`/hq/movements?rego=${rego}`),
    movementsList(`/hq/movements?driver=${s.driver}`, "/hq/movements?driver=<the bench driver>"),
    ...movements,
    ...descending,
    tripsList("/hq/trips"),
    feed(null, null),
    feed("failed", null),
    feed("delivered", null),
    feed(null, Math.ceil(Number(s.top) * 0.9)),
  ];
}
