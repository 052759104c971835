/**
 * `ageing_thresholds`: one row per threshold an admin set for the overview's ageing and the action queue's
 * late parts (docs/overview.md "Ageing"); a threshold without a row has its default
 * (lib/dashboard/ageing_thresholds.ts).
 */
import { type Kysely, sql } from "kysely";

const KEYS = sql.raw(
  `('held_band_1_days', 'held_band_2_days', 'held_band_3_days', 'truck_hours', 'return_waiting_days')`,
);

// deno-lint-ignore no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table ageing_thresholds (
    key text primary key check (key in ${KEYS}),
    value integer not null check (value between 1 and 3650),
    updated_by integer not null references users(id),
    updated_at timestamptz not null
  )`.execute(db);
}

// deno-lint-ignore no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table ageing_thresholds`.execute(db);
}
