/**
 * A movement leg's handover as every page shows it (docs/handover.md "Where it is shown"): who signed and
 * when with the signature, or why nobody signed with the photo of where the parts were left; for a leg with
 * none, whether the mobile app recorded it (its protocol has no signature) or the tablet under policy `off`.
 */
import type { MovementStage, MovementType, UnsignedReason } from "@/db/schema.ts";
import type { QueryRunner } from "@/db/queries/compiled.ts";
import { handlerRecordedLegs, handoversOfMovements } from "@/db/queries/handovers.ts";
import { UNSIGNED_REASONS } from "@/lib/handover/policy.ts";
import { type LegPhoto, photoOf } from "@/lib/photos/stored.ts";

export interface LegHandover {
  receiverName: string | null;
  signature: LegPhoto | null;
  unsignedReason: UnsignedReason | null;
  /** The reason in words ("Shop closed"). */
  reasonLabel: string | null;
  left: LegPhoto | null;
  at: Date;
  /** The driver who recorded it. */
  by: string | null;
  digest: string;
}

/** Which face recorded the leg: the mobile app's handler, or the tablet. */
export type RecordedVia = "mobile app" | "tablet";

export interface HandoverOfLeg {
  handover: LegHandover | null;
  recordedVia: RecordedVia;
}

/** The handovers of these movements' legs, looked up by movement and leg. */
export async function handoversOfLegs(
  db: QueryRunner,
  movementIds: number[],
): Promise<(movementId: number, leg: MovementStage) => HandoverOfLeg> {
  const ids = [...new Set(movementIds)];
  const [rows, byHandler] = await Promise.all([handoversOfMovements(db, ids), handlerRecordedLegs(db, ids)]);
  const found = new Map(rows.map((r) => [`${r.movement_id} ${r.leg}`, r]));
  return (movementId, leg) => {
    const key = `${movementId} ${leg}`;
    const r = found.get(key);
    const recordedVia: RecordedVia = byHandler.has(key) ? "mobile app" : "tablet";
    if (!r) return { handover: null, recordedVia };
    return {
      recordedVia,
      handover: {
        receiverName: r.receiver_name,
        signature: photoOf(r.signature_photo_id, r.signature_key, r.signature_bytes, r.signature_type),
        unsignedReason: r.unsigned_reason,
        reasonLabel: r.unsigned_reason === null ? null : UNSIGNED_REASONS[r.unsigned_reason],
        left: photoOf(r.left_photo_id, r.left_key, r.left_bytes, r.left_type),
        at: new Date(r.recorded_at),
        by: r.recorded_by_name,
        digest: r.digest,
      },
    };
  };
}

/** A movement leg with its handover, for the pages that list a movement's legs. */
export interface MovementLegHandover extends HandoverOfLeg {
  leg: MovementStage;
}

/** The legs a movement has so far: a delivery's one; a return trip's pickup, and its return once handed in. */
export function legsOfMovement(type: MovementType, returned: boolean): MovementStage[] {
  if (type === "direct") return ["direct_dropoff"];
  return returned ? ["reverse_pickup", "reverse_dropoff"] : ["reverse_pickup"];
}

/**
 * The handovers of each movement's legs, by movement id (`returned`: whether the movement's return to HQ is
 * recorded, for the parts the page shows).
 */
export async function handoversOfMovementLegs(
  db: QueryRunner,
  movements: { id: number; type: MovementType; returned: boolean }[],
): Promise<Map<number, MovementLegHandover[]>> {
  const of = await handoversOfLegs(db, movements.map((m) => m.id));
  return new Map(
    movements.map((
      m,
    ) => [m.id, legsOfMovement(m.type, m.returned).map((leg) => ({ leg, ...of(m.id, leg) }))]),
  );
}
