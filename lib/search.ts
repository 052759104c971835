/** The search operation (docs/protocol.md §1, D11, D12): what a driver may move for a rego. */
import type { Db } from "@/db/client.ts";
import { latestReverseMovement, managementOf } from "@/db/queries/claims.ts";
import { partsOnTruck } from "@/db/queries/movements.ts";
import { arrivedPartsOf, partsAwaitingPickUp } from "@/db/queries/parts.ts";
import { hqLocationById } from "@/db/queries/places.ts";
import { resolveClaim } from "@/lib/claims.ts";
import { DomainError } from "@/lib/errors.ts";

export interface DirectSearchResult {
  repairer: number | null;
  form_name: "pickup";
  movement_type: "direct";
  rego: string;
  parts_list: { parts_order_id: number; description: string; order_status: "Arrived"; part_no: string }[];
  /** Extra to the protocol (D10): the claim's repairer name and claim number, for pages. */
  repairer_name: string | null;
  claim_number: string;
}

export interface ReversePickupResult {
  form_name: "pickup";
  movement_type: "reverse";
  rego: string;
  stage: "pickup";
  parts_list: { parts_order_id: number; description: string; part_no: string }[];
  claim_number: string;
}

export interface ReverseDropoffResult {
  form_name: "dropoff";
  movement_type: "reverse";
  rego: string;
  stage: "dropoff";
  parts_list: { delivery_id: number; parts_order_id: number; description: string; part_no: string }[];
  hq_location: { id: number; name: string };
  parts_movement_id: number;
  claim_number: string;
}

export type ReverseSearchResult = ReversePickupResult | ReverseDropoffResult;

export async function searchDirect(db: Db, rego: string): Promise<DirectSearchResult> {
  const claim = await resolveClaim(db, rego, "direct");
  if (!claim) throw new DomainError("not_found", "Rego not found");
  const management = await managementOf(db, claim.id);
  if (!management) throw new DomainError("not_found", "Record not found");
  const parts = await arrivedPartsOf(db, claim.id);
  if (parts.length === 0) {
    throw new DomainError("nothing_to_move", "No parts ready for delivery to a repair shop");
  }
  return {
    repairer: management.repairer_id,
    form_name: "pickup",
    movement_type: "direct",
    rego,
    parts_list: parts.map((p) => ({
      parts_order_id: p.id,
      description: p.description,
      order_status: "Arrived",
      part_no: p.part_no,
    })),
    repairer_name: management.repairer_name,
    claim_number: claim.claim_number,
  };
}

export async function searchReverse(db: Db, rego: string): Promise<ReverseSearchResult> {
  const claim = await resolveClaim(db, rego, "reverse");
  if (!claim) throw new DomainError("not_found", "Rego not found");
  const trip = await latestReverseMovement(db, claim.id);
  if (trip && trip.movement_status === "Parts Picked Up") {
    // Leg 2 lists what is still on the truck: picked up, not yet delivered to HQ (D12).
    const [parts, hq] = await Promise.all([
      partsOnTruck(db, trip.id),
      hqLocationById(db, trip.hq_location_id!),
    ]);
    return {
      form_name: "dropoff",
      movement_type: "reverse",
      rego,
      stage: "dropoff",
      parts_list: parts,
      hq_location: hq,
      parts_movement_id: trip.id,
      claim_number: claim.claim_number,
    };
  }
  const parts = await partsAwaitingPickUp(db, claim.id);
  if (parts.length === 0) {
    throw new DomainError("nothing_to_move", "No parts flagged for return at a repair shop");
  }
  return {
    form_name: "pickup",
    movement_type: "reverse",
    rego,
    stage: "pickup",
    parts_list: parts,
    claim_number: claim.claim_number,
  };
}
