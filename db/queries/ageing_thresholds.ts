/** The ageing thresholds an admin set (docs/overview.md "Ageing"); lib/dashboard/ageing_thresholds.ts adds the defaults. */
import type { AgeingThresholdKey } from "@/db/schema.ts";
import type { QueryRunner, Tx } from "@/db/queries/compiled.ts";

export async function ageingThresholdRows(
  db: QueryRunner,
): Promise<{ key: AgeingThresholdKey; value: number }[]> {
  return await db.selectFrom("ageing_thresholds").select(["key", "value"]).orderBy("key").execute();
}

/** Sets one threshold; answers the value it had (undefined: its default was in force), for the audit log. */
export async function setAgeingThreshold(
  trx: Tx,
  p: { key: AgeingThresholdKey; value: number; by: number; at: Date },
): Promise<number | undefined> {
  const before = await trx.selectFrom("ageing_thresholds").select("value").where("key", "=", p.key)
    .forUpdate().executeTakeFirst();
  await trx.insertInto("ageing_thresholds")
    .values({ key: p.key, value: p.value, updated_by: p.by, updated_at: p.at })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value: p.value, updated_by: p.by, updated_at: p.at }))
    .execute();
  return before?.value;
}
