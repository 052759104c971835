/**
 * The repair shops' private links (docs/shop-page.md "The private link"). A link's token is never stored:
 * only its SHA-256 (the lookup) and the salt it was derived from with SHOP_LINK_SECRET (lib/shops/link.ts),
 * so the service can show and e-mail the current link while a copy of the database opens no shop's page.
 * Ended links stay, so an old link answers "replaced" or "turned off" rather than "not found".
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table shop_links (
    id integer generated always as identity primary key,
    token_hash text not null unique,
    repairer_id integer not null references repairers(id),
    salt text not null,
    created_at timestamptz not null,
    created_by integer references users(id),
    ended_at timestamptz,
    ended_reason text check (ended_reason in ('replaced', 'revoked')),
    check ((ended_at is null) = (ended_reason is null))
  )`.execute(db);
  // One current link per shop: two requests making the first link race on this index, one wins.
  await sql`create unique index shop_links_current on shop_links (repairer_id) where ended_at is null`
    .execute(db);
  await sql`create index shop_links_repairer on shop_links (repairer_id, id)`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table shop_links`.execute(db);
}
