/**
 * Five foreign keys of the per-part rows checked once per statement instead of once per row (issue 14,
 * "Close to the limit"): a 50-part drop-off writes 50 Deliver_Parts and 50 history rows, and PostgreSQL
 * checks a foreign key with one lookup query per row (an executor start and stop each). These five:
 * Deliver_Parts' movement and part, the history row's part, movement and user. Measured on a 50-part
 * drop-off's write statement (EXPLAIN ANALYZE, embedded): their 250 row checks took 2.5 ms, two statement
 * checks 0.6 ms (docs/performance.md).
 *
 * Nothing is weaker, for every writer, not only the movement statements (which write these columns from
 * rows the same statement inserted or locked):
 * - insert: one statement-level trigger per table looks every referenced row up in one index scan, locks it
 *   FOR KEY SHARE as the foreign key did (so a delete waits for the writer, or the writer sees the row gone)
 *   and refuses the statement when one is missing, with the foreign key's SQLSTATE (23503) and name;
 * - an update of one of these columns: the same check for the row (nothing updates them today);
 * - delete of a referenced movement, part or user, or a change of its id: refused while referenced, checked
 *   at the end of the statement as the foreign key's NO ACTION was.
 * The other foreign keys stay declared: the photos' (the photo purge relies on their refusal,
 * db/queries/photos.ts), the images' (ON DELETE SET NULL), and every key of a one-row-per-submission table.
 *
 * tests/reference_checks_test.ts holds each of these on both databases.
 */
import { type Kysely, sql } from "kysely";

interface Reference {
  table: "deliver_parts" | "part_status_history";
  column: string;
  target: "parts_movements" | "parts_orders" | "users";
  /** The foreign key's name, kept in the errors. */
  name: string;
}

const REFERENCES: Reference[] = [
  {
    table: "deliver_parts",
    column: "movement_id",
    target: "parts_movements",
    name: "deliver_parts_movement_id_fkey",
  },
  { table: "deliver_parts", column: "part_id", target: "parts_orders", name: "deliver_parts_part_id_fkey" },
  {
    table: "part_status_history",
    column: "part_id",
    target: "parts_orders",
    name: "part_status_history_part_id_fkey",
  },
  {
    table: "part_status_history",
    column: "movement_id",
    target: "parts_movements",
    name: "part_status_history_movement_id_fkey",
  },
  {
    table: "part_status_history",
    column: "changed_by",
    target: "users",
    name: "part_status_history_changed_by_fkey",
  },
];

const TABLES = [...new Set(REFERENCES.map((r) => r.table))];
const TARGETS = [...new Set(REFERENCES.map((r) => r.target))];
const of = (table: string) => REFERENCES.filter((r) => r.table === table);
const to = (target: string) => REFERENCES.filter((r) => r.target === target);

/**
 * Refuses unless every id of `ids` (distinct, no nulls) is a row of the target, which it locks FOR KEY
 * SHARE in id order. `= any(array)` keeps the lookup an index scan whatever the planner thinks of a
 * transition table's size.
 */
const checkIds = (r: Reference, ids: string) => `
    ids := array(select distinct x from unnest(${ids}) x where x is not null);
    if (select count(*) from (select 1 from ${r.target} where id = any(ids) order by id for key share) k)
        <> cardinality(ids) then
      raise foreign_key_violation using constraint = '${r.name}',
        message = 'insert or update on table "${r.table}" violates foreign key constraint "${r.name}"',
        detail = 'A ${r.column} is not present in table "${r.target}".';
    end if;`;

const ddl = (table: string) => [
  `create function ${table}_references() returns trigger language plpgsql as $$
  declare ids int[];
  begin${of(table).map((r) => checkIds(r, `array(select ${r.column} from new_rows)`)).join("")}
    return null;
  end $$`,
  `create trigger ${table}_references after insert on ${table} referencing new table as new_rows
    for each statement execute function ${table}_references()`,
  `create function ${table}_references_row() returns trigger language plpgsql as $$
  declare ids int[];
  begin${of(table).map((r) => checkIds(r, `array[new.${r.column}]`)).join("")}
    return null;
  end $$`,
  `create trigger ${table}_references_row after update of ${of(table).map((r) => r.column).join(", ")}
    on ${table} for each row when (${
    of(table).map((r) => `old.${r.column} is distinct from new.${r.column}`).join(" or ")
  }) execute function ${table}_references_row()`,
];

/** The delete side: the target's rows whose ids are in `ids` may not be referenced any more. */
const targetDdl = (target: string) => [
  `create function ${target}_referenced(ids int[]) returns void language plpgsql as $$
  begin${
    to(target).map((r) => `
    if exists (select 1 from ${r.table} where ${r.column} = any(ids)) then
      raise foreign_key_violation using constraint = '${r.name}',
        message = 'update or delete on table "${target}" violates foreign key constraint "${r.name}" on table "${r.table}"';
    end if;`).join("")
  }
  end $$`,
  `create function ${target}_deleted() returns trigger language plpgsql as $$
  begin
    perform ${target}_referenced(array(select id from old_rows));
    return null;
  end $$`,
  `create trigger ${target}_deleted after delete on ${target} referencing old table as old_rows
    for each statement execute function ${target}_deleted()`,
  `create function ${target}_id_changed() returns trigger language plpgsql as $$
  begin
    perform ${target}_referenced(array[old.id]);
    return null;
  end $$`,
  `create trigger ${target}_id_changed after update of id on ${target} for each row
    when (old.id is distinct from new.id) execute function ${target}_id_changed()`,
];

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  for (const r of REFERENCES) await sql.raw(`alter table ${r.table} drop constraint ${r.name}`).execute(db);
  for (const statement of [...TABLES.flatMap(ddl), ...TARGETS.flatMap(targetDdl)]) {
    await sql.raw(statement).execute(db);
  }
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const target of TARGETS) {
    await sql.raw(`drop trigger ${target}_deleted on ${target}`).execute(db);
    await sql.raw(`drop trigger ${target}_id_changed on ${target}`).execute(db);
    for (const f of ["deleted()", "id_changed()", "referenced(int[])"]) {
      await sql.raw(`drop function ${target}_${f}`).execute(db);
    }
  }
  for (const table of TABLES) {
    await sql.raw(`drop trigger ${table}_references on ${table}`).execute(db);
    await sql.raw(`drop trigger ${table}_references_row on ${table}`).execute(db);
    await sql.raw(`drop function ${table}_references()`).execute(db);
    await sql.raw(`drop function ${table}_references_row()`).execute(db);
  }
  for (const r of REFERENCES) {
    await sql.raw(
      `alter table ${r.table} add constraint ${r.name} foreign key (${r.column}) references ${r.target} (id)`,
    )
      .execute(db);
  }
}
