/**
 * The search operation (docs/protocol.md §1, D11, D12): what a driver may move for a rego. Each face shapes
 * the result in its own words (the handler: the protocol's answer, routes/api/events/search.ts; the tablet:
 * lib/tablet_search.ts).
 */
import { type Db, onOneConnection } from "@/db/client.ts";
import { latestReverseMovement, managementOf } from "@/db/queries/claims.ts";
import { partsOnTruck } from "@/db/queries/movements.ts";
import { arrivedPartsOf, partsAwaitingPickUp } from "@/db/queries/parts.ts";
import { hqLocationById } from "@/db/queries/places.ts";
import { containsFromOf, MIN_REGO_CHARS, resolveClaim } from "@/lib/claims.ts";
import { DomainError } from "@/lib/errors.ts";
import { type Actor, actorUser } from "@/lib/users.ts";

/** A part a search offers, in id order (on the truck: in Deliver_Parts order). */
export interface OfferedPart {
  id: number;
  partNo: string;
  description: string;
}

/** Direct delivery: the claim's Arrived parts and its repair shop (preselected in the app's dropdown). */
export interface DirectSearch {
  claimNumber: string;
  repairer: { id: number | null; name: string | null };
  parts: OfferedPart[];
}

/** Reverse, leg 1: the parts flagged for return at the repair shop. */
export interface ReversePickupSearch {
  stage: "pickup";
  claimNumber: string;
  parts: OfferedPart[];
}

/** Reverse, leg 2: the open trip and what is still on the truck (D12). */
export interface ReverseDropoffSearch {
  stage: "dropoff";
  claimNumber: string;
  parts: (OfferedPart & { deliveryId: number })[];
  hqLocation: { id: number; name: string };
  movementId: number;
}

export type ReverseSearch = ReversePickupSearch | ReverseDropoffSearch;

/**
 * A search as a request makes it: the actor's user first (D13: `User not found.`), then `search`, all its
 * statements on one pooled connection (db/client.ts onOneConnection). The handler's actor matches a part of
 * a registration only from D30's length; a session's user from D11's.
 */
export function searchAs<T>(
  db: Db,
  actor: Actor,
  search: (db: Db, rego: string, containsFrom: number) => Promise<T>,
  rego: string,
): Promise<T> {
  return onOneConnection(db, async (db) => {
    await actorUser(db, actor);
    return await search(db, rego, containsFromOf(actor));
  });
}

export async function searchDirect(
  db: Db,
  rego: string,
  containsFrom = MIN_REGO_CHARS,
): Promise<DirectSearch> {
  const claim = await resolveClaim(db, rego, "direct", containsFrom);
  if (!claim) throw new DomainError("not_found", "Rego not found");
  const management = await managementOf(db, claim.id);
  if (!management) throw new DomainError("not_found", "Record not found");
  const parts = await arrivedPartsOf(db, claim.id);
  if (parts.length === 0) {
    throw new DomainError("nothing_to_move", "No parts ready for delivery to a repair shop");
  }
  return {
    claimNumber: claim.claim_number,
    repairer: { id: management.repairer_id, name: management.repairer_name },
    parts: parts.map((p) => ({ id: p.id, partNo: p.part_no, description: p.description })),
  };
}

export async function searchReverse(
  db: Db,
  rego: string,
  containsFrom = MIN_REGO_CHARS,
): Promise<ReverseSearch> {
  const claim = await resolveClaim(db, rego, "reverse", containsFrom);
  if (!claim) throw new DomainError("not_found", "Rego not found");
  const trip = await latestReverseMovement(db, claim.id);
  if (trip && trip.movement_status === "Parts Picked Up") {
    // Leg 2 lists what is still on the truck: picked up, not yet delivered to HQ (D12).
    const [parts, hq] = await Promise.all([
      partsOnTruck(db, trip.id),
      hqLocationById(db, trip.hq_location_id!),
    ]);
    return {
      stage: "dropoff",
      claimNumber: claim.claim_number,
      parts: parts.map((p) => ({
        id: p.parts_order_id,
        partNo: p.part_no,
        description: p.description,
        deliveryId: p.delivery_id,
      })),
      hqLocation: hq,
      movementId: trip.id,
    };
  }
  const parts = await partsAwaitingPickUp(db, claim.id);
  if (parts.length === 0) {
    throw new DomainError("nothing_to_move", "No parts flagged for return at a repair shop");
  }
  return {
    stage: "pickup",
    claimNumber: claim.claim_number,
    parts: parts.map((p) => ({ id: p.parts_order_id, partNo: p.part_no, description: p.description })),
  };
}
