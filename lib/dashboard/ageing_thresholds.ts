/**
 * The thresholds of the overview's ageing and of the action queue's late parts (docs/dashboard.md
 * "Ageing"): the three bands of days a part is held at a shop (under the first, between, over the last),
 * the hours a part may be on a truck, and the days a part flagged for return may wait for collection. An
 * admin sets them; a threshold no admin set has its default.
 */
import type { AgeingThresholdKey } from "@/db/schema.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import { ageingThresholdRows } from "@/db/queries/ageing_thresholds.ts";

export type AgeingThresholds = Record<AgeingThresholdKey, number>;

export const DEFAULT_AGEING_THRESHOLDS: AgeingThresholds = {
  held_band_1_days: 7,
  held_band_2_days: 14,
  held_band_3_days: 30,
  truck_hours: 24,
  return_waiting_days: 3,
};

/** Every threshold in force. */
export async function ageingThresholds(db: QueryRunner): Promise<AgeingThresholds> {
  const thresholds = { ...DEFAULT_AGEING_THRESHOLDS };
  for (const row of await ageingThresholdRows(db)) thresholds[row.key] = row.value;
  return thresholds;
}
