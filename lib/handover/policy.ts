/**
 * The handover policy per leg (docs/handover.md "Policy"): what the driver must record when handing parts
 * over. An admin sets it on /hq/admin/handover; a leg no admin set has its default.
 */
import type { HandoverPolicy, MovementStage, UnsignedReason, User } from "@/db/schema.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import { handoverExists, handoverPolicyRows, setPolicyOfLeg } from "@/db/queries/handovers.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { DomainError } from "@/lib/errors.ts";

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

/**
 * The policy a tablet's search answers for a leg: "off" for a return trip signed for at an earlier drop,
 * whose later drops send no handover (docs/handover.md "Policy").
 */
export async function policyOfSearch(
  db: QueryRunner,
  leg: MovementStage,
  tripId: number | undefined,
): Promise<HandoverPolicy> {
  if (tripId !== undefined && await handoverExists(db, tripId, leg)) return "off";
  return (await handoverPolicies(db))[leg];
}

/** A policy as a form sends it; anything else is refused. */
export function checkPolicy(value: string): HandoverPolicy {
  if (!(HANDOVER_POLICIES as readonly string[]).includes(value)) {
    throw new DomainError("invalid", "Choose required, optional or off for each job.");
  }
  return value as HandoverPolicy;
}

/**
 * Sets the legs' policies in one transaction, each change audited `handover.policy` with the policy before
 * and after; a leg whose policy stays as it was writes nothing. Every value is checked before anything is
 * written.
 */
export async function setHandoverPolicies(
  deps: Pick<AppDeps, "db" | "clock">,
  admin: Pick<User, "id">,
  policies: Partial<Record<MovementStage, string>>,
): Promise<void> {
  const checked = Object.entries(policies).map(([leg, value]) =>
    [leg as MovementStage, checkPolicy(value!)] as const
  );
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    for (const [leg, policy] of checked) {
      const before = await setPolicyOfLeg(tx, { leg, policy, by: admin.id, at }) ?? DEFAULT_POLICY[leg];
      if (before === policy) continue;
      await insertAuditEntry(tx, {
        actorId: admin.id,
        action: "handover.policy",
        subject: `handover_policy:${leg}`,
        before: { leg, policy: before },
        after: { leg, policy },
        at,
      });
    }
  });
}
