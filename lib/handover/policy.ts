/**
 * The handover policy per leg (docs/handover.md "Policy"): what the driver must record when handing parts
 * over. An admin sets it on /hq/admin/handover; a leg no admin set has its default.
 */
import type { HandoverPolicy, MovementStage, UnsignedReason, User } from "@/db/schema.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import { handoverPolicyRows, setPolicyOfLeg } from "@/db/queries/handovers.ts";
import type { AppDeps } from "@/lib/deps.ts";

export const HANDOVER_POLICIES: readonly HandoverPolicy[] = ["required", "optional", "off"];

/** Deliveries and collections at a repair shop need a signature; a return to HQ may go without. */
export const DEFAULT_POLICY: Record<MovementStage, HandoverPolicy> = {
  direct_dropoff: "required",
  reverse_pickup: "required",
  reverse_dropoff: "optional",
};

/** Why nobody signed, as the tablet offers it (the same list at a shop and at HQ). */
export const UNSIGNED_REASONS: Record<UnsignedReason, string> = {
  shop_closed: "Shop closed",
  left_at_agreed_place: "Left at the agreed place",
  receiver_refused: "Receiver refused to sign",
};

export const isUnsignedReason = (key: string): key is UnsignedReason => Object.hasOwn(UNSIGNED_REASONS, key);

/** The reasons as the tablet's search answer lists them. */
export const unsignedReasonList = (): { key: UnsignedReason; label: string }[] =>
  Object.entries(UNSIGNED_REASONS).map(([key, label]) => ({ key: key as UnsignedReason, label }));

/** Every leg's policy in force. */
export async function handoverPolicies(db: QueryRunner): Promise<Record<MovementStage, HandoverPolicy>> {
  const policies = { ...DEFAULT_POLICY };
  for (const row of await handoverPolicyRows(db)) policies[row.leg] = row.policy;
  return policies;
}

/** Sets a leg's policy, audited `handover.policy` with the policy before and after. */
export async function setHandoverPolicy(
  deps: Pick<AppDeps, "db" | "clock">,
  admin: Pick<User, "id">,
  leg: MovementStage,
  policy: HandoverPolicy,
): Promise<void> {
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    const before = await setPolicyOfLeg(tx, { leg, policy, by: admin.id, at }) ?? DEFAULT_POLICY[leg];
    if (before === policy) return;
    await insertAuditEntry(tx, {
      actorId: admin.id,
      action: "handover.policy",
      subject: `handover_policy:${leg}`,
      before: { leg, policy: before },
      after: { leg, policy },
      at,
    });
  });
}
