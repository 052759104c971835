/**
 * Return requests (docs/return-requests.md): a driver at a repair shop asks HQ to flag a claim's parts for
 * return; a dispatcher approves (the parts become `Pending Repair Shop Pick-Up`) or declines with a reason.
 *
 * - `return_requests`: one row per request. `client_key` is the tablet's own key for the request, so a
 *   retry over bad Wi-Fi finds the row it already made (unique per driver). At most one request per claim
 *   is open at a time (the partial unique index): a second driver asking for the same claim joins the
 *   open one. `state` moves once, from `open` to `approved` or `declined`, by a conditional UPDATE.
 * - `return_request_parts`: the parts asked for; `flagged` is set when the request is decided (true: the
 *   approval flagged it; false: it had moved on and was left as it was; null: not decided).
 * - `announcements` may now be about a return request instead of a movement (exactly one of the two), with
 *   the title `Return Requested` (docs/submissions-and-announcements.md "Return requests in chat").
 *
 * Small new tables and a constraint swap on announcements: nothing is rewritten.
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table return_requests (
    id integer primary key generated always as identity,
    claim_id integer not null references claims(id),
    repairer_id integer references repairers(id),
    requested_by integer not null references users(id),
    requested_at timestamptz not null,
    client_key uuid not null,
    note text check (length(note) <= 500),
    state text not null default 'open' check (state in ('open', 'approved', 'declined')),
    decided_by integer references users(id),
    decided_at timestamptz,
    decline_reason text check (length(decline_reason) <= 500),
    unique (requested_by, client_key),
    check ((state = 'open') = (decided_at is null)),
    check (state <> 'declined' or length(trim(decline_reason)) > 0)
  )`.execute(db);
  await sql`create unique index return_requests_open_claim on return_requests (claim_id) where state = 'open'`
    .execute(db);
  await sql`create index return_requests_claim on return_requests (claim_id, id)`.execute(db);
  await sql`create index return_requests_decided on return_requests (decided_at, id) where state <> 'open'`
    .execute(db);
  await sql`create table return_request_parts (
    request_id integer not null references return_requests(id),
    part_id integer not null references parts_orders(id),
    flagged boolean,
    primary key (request_id, part_id)
  )`.execute(db);
  await sql`create index return_request_parts_part on return_request_parts (part_id)`.execute(db);

  await sql`alter table announcements alter column movement_id drop not null`.execute(db);
  await sql`alter table announcements add column return_request_id integer references return_requests(id)`
    .execute(db);
  await sql`alter table announcements add constraint announcements_one_subject
    check ((movement_id is null) <> (return_request_id is null))`.execute(db);
  await sql`alter table announcements drop constraint announcements_title_check`.execute(db);
  await sql`alter table announcements add constraint announcements_title_check check (title in
    ('Parts Delivered', 'Parts Picked Up From Repair Shop', 'Parts Returned to HQ', 'Return Requested'))`
    .execute(db);
  await sql`create index announcements_return_request on announcements (return_request_id)
    where return_request_id is not null`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from announcements where return_request_id is not null`.execute(db);
  await sql`drop index announcements_return_request`.execute(db);
  await sql`alter table announcements drop constraint announcements_title_check`.execute(db);
  await sql`alter table announcements add constraint announcements_title_check check (title in
    ('Parts Delivered', 'Parts Picked Up From Repair Shop', 'Parts Returned to HQ'))`.execute(db);
  await sql`alter table announcements drop constraint announcements_one_subject`.execute(db);
  await sql`alter table announcements drop column return_request_id`.execute(db);
  await sql`alter table announcements alter column movement_id set not null`.execute(db);
  await sql`drop table return_request_parts`.execute(db);
  await sql`drop table return_requests`.execute(db);
}
