/**
 * The thresholds of the overview's ageing and of the action queue's late parts (docs/overview.md
 * "Ageing"): the three bands of days a part is held at a shop (under the first, between, over the last),
 * the hours a part may be on a truck, and the days a part flagged for return may wait for collection. An
 * admin sets them; a threshold no admin set has its default.
 */
import type { AgeingThresholdKey, User } from "@/db/schema.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import { ageingThresholdRows, setAgeingThreshold } from "@/db/queries/ageing_thresholds.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";

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

/** Each threshold as the admin page names it, with its unit (docs/overview.md "Ageing"). */
export const THRESHOLD_FIELDS: { key: AgeingThresholdKey; label: string; unit: "days" | "hours" }[] = [
  { key: "held_band_1_days", label: "Held at a shop: first band", unit: "days" },
  { key: "held_band_2_days", label: "Held at a shop: second band", unit: "days" },
  { key: "held_band_3_days", label: "Held at a shop: third band", unit: "days" },
  { key: "truck_hours", label: "On a truck for longer than", unit: "hours" },
  { key: "return_waiting_days", label: "Flagged for return and waiting longer than", unit: "days" },
];

/** The table's check (migration 20261225T0900_ageing_thresholds). */
export const THRESHOLD_MIN = 1;
export const THRESHOLD_MAX = 3650;

/**
 * The five thresholds as a form sends them, checked: each a whole number from 1 to 3650, the held bands
 * strictly increasing. Throws DomainError `invalid` naming the first field at fault.
 */
export function checkAgeingThresholds(raw: Partial<Record<AgeingThresholdKey, string>>): AgeingThresholds {
  const checked = {} as AgeingThresholds;
  for (const { key, label, unit } of THRESHOLD_FIELDS) {
    const text = (raw[key] ?? "").trim();
    const value = Number(text);
    if (!/^\d{1,4}$/.test(text) || value < THRESHOLD_MIN || value > THRESHOLD_MAX) {
      throw new DomainError(
        "invalid",
        `${label}: enter a whole number of ${unit} from ${THRESHOLD_MIN} to ${THRESHOLD_MAX}. Nothing was changed.`,
      );
    }
    checked[key] = value;
  }
  if (
    !(checked.held_band_1_days < checked.held_band_2_days &&
      checked.held_band_2_days < checked.held_band_3_days)
  ) {
    throw new DomainError(
      "invalid",
      "Held at a shop: each band must be more days than the one before it. Nothing was changed.",
    );
  }
  return checked;
}

/**
 * Sets the thresholds in one transaction after checking every one (nothing is written when one is refused);
 * each change is audited `ageing.threshold` with the value before and after, and a threshold left as it was
 * writes nothing.
 */
export async function setAgeingThresholds(
  deps: Pick<AppDeps, "db" | "clock">,
  admin: Pick<User, "id">,
  raw: Partial<Record<AgeingThresholdKey, string>>,
): Promise<void> {
  const checked = checkAgeingThresholds(raw);
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    const current = await ageingThresholds(tx);
    for (const { key } of THRESHOLD_FIELDS) {
      if (current[key] === checked[key]) continue;
      const before = await setAgeingThreshold(tx, { key, value: checked[key], by: admin.id, at }) ??
        DEFAULT_AGEING_THRESHOLDS[key];
      await insertAuditEntry(tx, {
        actorId: admin.id,
        action: "ageing.threshold",
        subject: `ageing_threshold:${key}`,
        before: { key, value: before },
        after: { key, value: checked[key] },
        at,
      });
    }
  });
}
