/**
 * The dashboard's search box (docs/search-box.md) at 1 000 000 claims / 3 000 000 parts: a part number typed
 * in any case, whole or its start, and words of a description. Without these, both read every part
 * (EXPLAIN: a sequential scan of parts_orders, docs/search-box.md "Indexes").
 * - `(upper(part_no) collate "C", id)`: the C collation lets `LIKE 'PREFIX%'` use the index as a range in any
 *   database collation, and gives the results' order (exact number first, then the longer ones);
 * - a trigram index on the description, like the claim number's and the rego's (contains-matches).
 *
 * Plain CREATE INDEX in the migration's transaction: on 3 000 000 parts it blocks writes to parts_orders while
 * it builds (under a minute on the bench machine).
 */
import { type Kysely, sql } from "kysely";

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index parts_orders_part_no_upper on parts_orders ((upper(part_no) collate "C"), id)`
    .execute(db);
  await sql`create index parts_orders_description_trgm on parts_orders using gin (description gin_trgm_ops)`
    .execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index parts_orders_description_trgm`.execute(db);
  await sql`drop index parts_orders_part_no_upper`.execute(db);
}
