/**
 * Queries of the announcement outbox (D21, D22): the rows a submission writes in its own transaction and
 * the feed's reads. The worker's claim and outcome records: db/queries/announcement_worker.ts; the
 * shops' e-mail rows: db/queries/shop_emails.ts.
 *
 * The `body` column holds an `Announcement` (db/schema.ts) without its message id, as snake_case JSON:
 * that stored form predates the camelCase shape, so `announcementJson` and `announcementOf` below are the
 * only conversions between them (the JSON chat format posts the same snake_case form).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "@/db/client.ts";
import { shopEmailSelect, type ShopEmailWrite } from "@/db/queries/shop_emails.ts";
import type { Announcement, AnnouncementRow, AnnouncementState, ChatChannel } from "@/db/schema.ts";

/** An announcement as snake_case JSON: the stored form of `announcements.body`. */
export interface AnnouncementJson {
  title: Announcement["title"];
  rego: string;
  place: string;
  parts: { part_no: string; description: string }[];
  driver: string;
  at: string;
  link: string;
  movement_id: number;
  /** `Return Requested` only (docs/return-requests.md). */
  return_request_id?: number;
  note?: string | null;
}

/** The snake_case form of an announcement (without its message id): as stored, and as the JSON chat format posts it. */
export function announcementJson(a: Omit<Announcement, "messageId">): AnnouncementJson {
  return {
    title: a.title,
    rego: a.rego,
    place: a.place,
    parts: a.parts.map((p) => ({ part_no: p.partNo, description: p.description })),
    driver: a.driver,
    at: a.at,
    link: a.link,
    movement_id: a.movementId,
    ...(a.returnRequestId !== undefined
      ? { return_request_id: a.returnRequestId, note: a.note ?? null }
      : {}),
  };
}

/** The announcement a stored row holds. */
export function announcementOf(row: { message_id: string; body: unknown }): Announcement {
  const b = row.body as AnnouncementJson;
  return {
    messageId: row.message_id,
    title: b.title,
    rego: b.rego,
    place: b.place,
    parts: b.parts.map((p) => ({ partNo: p.part_no, description: p.description })),
    driver: b.driver,
    at: b.at,
    link: b.link,
    movementId: b.movement_id,
    ...(b.return_request_id !== undefined
      ? { returnRequestId: b.return_request_id, note: b.note ?? null }
      : {}),
  };
}

/** One announcement's outbox rows, written by the statement that writes its movement (movements.ts). */
export interface OutboxWrite {
  /** The announcement; its `link` is `linkPrefix` + the movement id, both set by the statement. */
  announcement: Omit<Announcement, "messageId" | "movementId" | "link">;
  linkPrefix: string;
  rows: { messageId: string; channel: ChatChannel; state: AnnouncementState }[];
  /** The e-mail to a repair shop's contacts, when the announcement has one (lib/announcements/shop_email.ts). */
  email?: ShopEmailWrite;
  at: Date;
}

/**
 * The INSERT of one outbox row per channel (and the shop's e-mail row, last), for a data-modifying CTE of
 * the movement's own statement: `movementId` is an expression of that statement (a new movement's id is
 * known only there), so the body's `movement_id` and `link` are set in SQL. The body is jsonb, so merging
 * keys stores the same value.
 */
export function insertAnnouncementsSql(
  w: OutboxWrite,
  movementId: RawBuilder<number>,
  when: RawBuilder<boolean> = sql`true`,
): RawBuilder<unknown> {
  const json = JSON.stringify(announcementJson({ ...w.announcement, link: "", movementId: 0 }));
  const body = sql`(${json}::jsonb || jsonb_build_object('link', ${w.linkPrefix}::text || ${movementId},
    'movement_id', ${movementId}))`;
  const title = w.announcement.title;
  const email = w.email
    ? sql`union all ${
      shopEmailSelect(w.email, { movementId, title, body, at: w.at }, when, w.rows.length + 1)
    }`
    : sql``;
  return sql`insert into announcements (message_id, movement_id, title, channel, body, state, next_attempt_at,
      created_at, repairer_id, last_error)
    select message_id, movement_id, title, channel, body, state, next_attempt_at, created_at, repairer_id,
      last_error
    from (
      select r.message_id, ${movementId} as movement_id, ${title}::text as title, r.channel, ${body} as body,
        r.state, ${w.at}::timestamptz as next_attempt_at, ${w.at}::timestamptz as created_at,
        null::int as repairer_id, null::text as last_error, r.ord
      from unnest(${w.rows.map((r) => r.messageId)}::uuid[], ${w.rows.map((r) => r.channel)}::text[],
        ${w.rows.map((r) => r.state)}::text[]) with ordinality as r(message_id, channel, state, ord)
      where ${when}
      ${email}
    ) x
    order by x.ord`;
}

/** The newest `limit` rows first, optionally only those in one state. */
export async function latestAnnouncements(
  db: Db,
  limit: number,
  state?: AnnouncementState,
): Promise<AnnouncementRow[]> {
  let query = db.selectFrom("announcements").selectAll().orderBy("id", "desc").limit(limit);
  if (state) query = query.where("state", "=", state);
  return await query.execute();
}

/**
 * One page of the dashboard feed: the rows of the newest `limit` announcements (one announcement is the
 * rows of one movement and title, one per channel; its key is its lowest row id), optionally only those
 * with a channel in `state`, older than the key `before` (keyset paging). Returns the rows oldest channel
 * first and whether older announcements remain.
 */
export async function announcementFeedPage(
  db: Db,
  opts: { limit: number; state?: AnnouncementState; before?: number },
): Promise<{ rows: AnnouncementRow[]; more: boolean }> {
  // Heads (the lowest row of each announcement), newest first: walks the primary key backwards and stops
  // after a page, instead of grouping the whole table (announcements_movement serves both subqueries).
  let heads = db.selectFrom("announcements as a")
    .select(["a.id", "a.movement_id", "a.title"])
    // A return request's row (no movement) matches no other row here: it is its own head.
    .where(({ not, exists, selectFrom }) =>
      not(exists(
        selectFrom("announcements as b").select("b.id")
          .whereRef("b.movement_id", "=", "a.movement_id").whereRef("b.title", "=", "a.title")
          .whereRef("b.id", "<", "a.id"),
      ))
    )
    .orderBy("a.id", "desc")
    .limit(opts.limit + 1);
  if (opts.state) {
    const state = opts.state;
    // A return request's announcement is one row (one channel, lib/announcements/outbox.ts): its own state.
    heads = heads.where(({ and, or, eb, exists, selectFrom }) =>
      or([
        exists(
          selectFrom("announcements as c").select("c.id")
            .whereRef("c.movement_id", "=", "a.movement_id").whereRef("c.title", "=", "a.title")
            .where("c.state", "=", state),
        ),
        and([eb("a.movement_id", "is", null), eb("a.state", "=", state)]),
      ])
    );
  }
  if (opts.before !== undefined) heads = heads.where("a.id", "<", opts.before);
  const found = await heads.execute();
  const page = found.slice(0, opts.limit);
  if (page.length === 0) return { rows: [], more: false };
  const keys = new Set(page.filter((h) => h.movement_id !== null).map((h) => `${h.movement_id} ${h.title}`));
  const movementIds = page.flatMap((h) => h.movement_id === null ? [] : [h.movement_id]);
  const requestRowIds = page.flatMap((h) => h.movement_id === null ? [h.id] : []);
  const rows = await db.selectFrom("announcements").selectAll()
    .where((eb) =>
      eb.or([
        ...(movementIds.length > 0 ? [eb("movement_id", "in", movementIds)] : []),
        ...(requestRowIds.length > 0 ? [eb("id", "in", requestRowIds)] : []),
      ])
    )
    .orderBy("id")
    .execute();
  return {
    rows: rows.filter((r) => r.movement_id === null || keys.has(`${r.movement_id} ${r.title}`)),
    more: found.length > opts.limit,
  };
}

/** The most channel rows the feed's counts read per state (announcements_state serves each walk). */
const COUNT_CAP_ROWS = 1000;

/** An announcement count: exact, or a lower bound when `more` (the state holds more rows than were read). */
export interface CappedCount {
  n: number;
  more: boolean;
}

/**
 * The statement of `announcementCounts`: one capped walk per state, each with the state as its own value so
 * the planner picks the state index for a rare state (a lateral over a list of states hid the value and
 * walked the primary key instead).
 */
export function announcementCountsSql(states: readonly AnnouncementState[]) {
  const walks = states.map((state) =>
    // A row about no movement (a return request, a shop's `Parts On The Way`) is an announcement of its own.
    sql`(select ${state}::text as state, count(distinct (a.movement_id, a.lone, a.title)) as n, count(*) as seen
      from (select a.movement_id, case when a.movement_id is null then a.id end as lone, a.title
        from announcements a where a.state = ${state}
        order by a.id desc limit ${COUNT_CAP_ROWS + 1}) a)`
  );
  return sql<{ state: AnnouncementState; n: number; seen: number }>`${sql.join(walks, sql` union all `)}`;
}

/**
 * How many announcements have a channel in each delivery state, for the dashboard's feed filter. Counting
 * a million delivered announcements on every view would read them all: each state reads at most
 * COUNT_CAP_ROWS of its newest rows, so a busy state shows "more than n" and a small one (failed, waiting:
 * what a dispatcher acts on) its exact count.
 */
export async function announcementCounts(
  db: Db,
  states: readonly AnnouncementState[],
): Promise<Partial<Record<AnnouncementState, CappedCount>>> {
  const rows = await announcementCountsSql(states).execute(db);
  return Object.fromEntries(rows.rows.map((r) => {
    const more = Number(r.seen) > COUNT_CAP_ROWS;
    // Past the cap, the extra row's announcement may be one more: count only the capped rows' ones.
    return [r.state, { n: more ? Math.max(0, Number(r.n) - 1) : Number(r.n), more }];
  }));
}

/** The outbox backlog for the metrics scrape: pending rows and the creation time of the oldest. */
export async function pendingBacklog(db: Db): Promise<{ pending: number; oldest: Date | null }> {
  const row = await db.selectFrom("announcements")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
    .where("state", "=", "pending")
    .executeTakeFirstOrThrow();
  return { pending: Number(row.n), oldest: row.oldest === null ? null : new Date(row.oldest) };
}

/** The announcements about one movement, oldest first (its dashboard page). */
export async function announcementsOfMovement(db: Db, movementId: number) {
  return await db.selectFrom("announcements")
    .select(["id", "title", "channel", "state", "attempts", "last_error", "delivered_at", "created_at"])
    .where("movement_id", "=", movementId)
    .orderBy("id")
    .execute();
}

/** A `failed` row back to `pending`, due at once; false when it is not (or no longer) failed. */
export async function requeueFailedAnnouncement(db: Db, id: number): Promise<boolean> {
  const row = await db.updateTable("announcements")
    // Due at once whatever the clock: its own creation time is always in the past.
    .set((eb) => ({ state: "pending", next_attempt_at: eb.ref("created_at") }))
    .where("id", "=", id)
    .where("state", "=", "failed")
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

/** The announcements about a claim's movements, oldest first (the claim page's timeline). */
export async function announcementsOfClaim(db: Db, claimId: number) {
  return await db.selectFrom("announcements as a")
    .innerJoin("parts_movements as m", "m.id", "a.movement_id")
    .select(["a.id", "a.movement_id", "a.title", "a.channel", "a.state", "a.last_error", "a.created_at"])
    .where("m.claim_id", "=", claimId)
    .orderBy("a.created_at").orderBy("a.id")
    .execute();
}
