/**
 * The foreign keys of the per-part rows, Deliver_Parts and part_status_history, checked once per statement
 * instead of once per row, so a write costs nearly the same for 1 or 50 parts
 * (docs/submissions-and-announcements.md, "Cost"). A 50-part drop-off writes 50 Deliver_Parts and 50 history
 * rows, and PostgreSQL checks a foreign key with one lookup query per row (an executor start and stop each):
 * 9 a part (Deliver_Parts' movement, part, two images and two photos; the history row's part, movement and
 * user), 450 for 50 parts, 2.3–2.6 ms of the write on the server and more embedded (docs/performance.md).
 * Here each table gets one statement-level trigger that looks the referenced rows up with one query, one
 * index scan a referenced table. EXPLAIN ANALYZE of the drop-off's write statement (after ANALYZE, 20
 * drop-offs, loaded 2-core machine), the time in the triggers of these two tables: 50 parts 4.8 → 0.8 ms
 * embedded, 2.0 → 0.5 ms server; 1 part 0.15 → 0.33 ms embedded, 0.09 → 0.19 ms server (a trigger's fixed
 * cost: the ratio of the two sizes is what the drop-off budget of docs/performance.md measures).
 *
 * Nothing is weaker, for every writer (the movement statements, which write these columns from rows the
 * same statement inserted or locked, and the dashboard, the import, a test's fixture):
 * - insert: the referenced rows are locked FOR KEY SHARE as the foreign key did (so a delete waits for the
 *   writer, or the writer sees the row gone), and a statement naming a missing one is refused with the
 *   foreign key's SQLSTATE (23503) and name, at the end of the statement as before;
 * - an update of one of these columns: the same check of the columns it changed (the images' set null
 *   below is the only such update today);
 * - delete of a referenced row, or a change of its id: refused while referenced (NO ACTION, at the end of
 *   the statement), except a staged image's delete, which sets the columns naming it null (ON DELETE SET
 *   NULL, the photo purge's); the photo purge still sees 23503 for a photo a Deliver_Parts names.
 * The keys of one-row-per-submission tables (the movement's, the announcements') stay declared.
 *
 * tests/reference_checks_test.ts holds each of these on both databases.
 */
import { type Kysely, sql } from "kysely";

interface Reference {
  table: "deliver_parts" | "part_status_history";
  column: string;
  target: "parts_movements" | "parts_orders" | "users" | "uploaded_images" | "photos";
  /** The foreign key's name, kept in the errors. */
  name: string;
  /** What deleting the referenced row does: refused while referenced (NO ACTION), or the column set null. */
  onDelete?: "set null";
}

const ref = (
  table: Reference["table"],
  column: string,
  target: Reference["target"],
  onDelete?: "set null",
) => ({
  table,
  column,
  target,
  name: `${table}_${column}_fkey`,
  onDelete,
});

const REFERENCES: Reference[] = [
  ref("deliver_parts", "movement_id", "parts_movements"),
  ref("deliver_parts", "part_id", "parts_orders"),
  ref("deliver_parts", "pickup_image_id", "uploaded_images", "set null"),
  ref("deliver_parts", "delivery_image_id", "uploaded_images", "set null"),
  ref("deliver_parts", "pickup_photo_id", "photos"),
  ref("deliver_parts", "delivery_photo_id", "photos"),
  ref("part_status_history", "part_id", "parts_orders"),
  ref("part_status_history", "movement_id", "parts_movements"),
  ref("part_status_history", "changed_by", "users"),
];

const TABLES = [...new Set(REFERENCES.map((r) => r.table))];
const TARGETS = [...new Set(REFERENCES.map((r) => r.target))];
const of = (table: string) => REFERENCES.filter((r) => r.table === table);
const to = (target: string) => REFERENCES.filter((r) => r.target === target);

/**
 * The check of a table's new references, one query for all of them (each query of a trigger has a fixed
 * cost; one a target was 0.6 ms more for a 1-part drop-off embedded): for each target, every value of the
 * columns naming it (a pickup and a delivery image are often the same row) is looked up in one index scan
 * (`= any(array)`, whatever the planner thinks of a transition table's size) and locked FOR KEY SHARE in id
 * order, and the rows found are counted against the distinct values. Only when one is missing does it look
 * for the first column naming a missing row, to raise with that key's name. `values(column)` is a query of
 * the column's new values.
 */
const check = (table: string, values: (column: string) => string) => {
  const refs = of(table);
  const targets = [...new Set(refs.map((r) => r.target))];
  const all = (target: string) =>
    refs.filter((r) => r.target === target).map((r) => values(r.column)).join(" union all ");
  const found = (target: string) => `
      (select count(*) from (select 1 from ${target} where id = any(array(${all(target)}))
        order by id for key share) k) = (select count(distinct x) from (${all(target)}) v(x))`;
  const raise = (r: Reference) => `
      raise foreign_key_violation using constraint = '${r.name}',
        message = 'insert or update on table "${table}" violates foreign key constraint "${r.name}"',
        detail = 'A ${r.column} is not present in table "${r.target}".';`;
  return `
    if not (${targets.map(found).join(" and")}) then${
    refs.slice(0, -1).map((r) => `
      if exists (select 1 from (${values(r.column)}) v(x)
          where x is not null and not exists (select 1 from ${r.target} t where t.id = v.x)) then${raise(r)}
      end if;`).join("")
  }${raise(refs.at(-1)!)}
    end if;`;
};

const ddl = (table: string) => [
  `create function ${table}_references() returns trigger language plpgsql as $$
  begin${check(table, (column) => `select ${column} from new_rows`)}
    return null;
  end $$`,
  `create trigger ${table}_references after insert on ${table} referencing new table as new_rows
    for each statement execute function ${table}_references()`,
  `create function ${table}_references_row() returns trigger language plpgsql as $$
  begin${check(table, (column) => `select new.${column} where new.${column} is distinct from old.${column}`)}
    return null;
  end $$`,
  `create trigger ${table}_references_row after update of ${of(table).map((r) => r.column).join(", ")}
    on ${table} for each row when (${
    of(table).map((r) => `old.${r.column} is distinct from new.${r.column}`).join(" or ")
  }) execute function ${table}_references_row()`,
];

/** Refuses while a row of `r.table` names one of `ids` (NO ACTION, checked after the statement). */
const refusal = (r: Reference, ids: string) => `
    if exists (select 1 from ${r.table} where ${r.column} = any(${ids})) then
      raise foreign_key_violation using constraint = '${r.name}',
        message = 'update or delete on table "${r.target}" violates foreign key constraint "${r.name}" on table "${r.table}"';
    end if;`;

/** The delete side: the deleted rows' references refused or set null, as each key said; no id changes. */
const targetDdl = (target: string) => [
  `create function ${target}_deleted() returns trigger language plpgsql as $$
  declare ids int[] := array(select id from old_rows);
  begin${
    to(target).map((r) =>
      r.onDelete === "set null"
        ? `
    update ${r.table} set ${r.column} = null where ${r.column} = any(ids);`
        : refusal(r, "ids")
    ).join("")
  }
    return null;
  end $$`,
  `create trigger ${target}_deleted after delete on ${target} referencing old table as old_rows
    for each statement execute function ${target}_deleted()`,
  `create function ${target}_id_changed() returns trigger language plpgsql as $$
  begin${to(target).map((r) => refusal(r, "array[old.id]")).join("")}
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
    for (const f of ["deleted()", "id_changed()"]) {
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
