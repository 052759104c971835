/**
 * The depot tablet's search (docs/tablet.md "Search"): what one flow may move for a rego, beside the claim's
 * other parts and their statuses, so a driver sees the whole claim. The rules and messages are the
 * search's (lib/search.ts); this adds what a flow finds when the claim is in the other leg's state.
 */
import type { Db } from "@/db/client.ts";
import type { User } from "@/db/schema.ts";
import { repairerOfClaimNumber } from "@/db/queries/claims.ts";
import { DomainError } from "@/lib/errors.ts";
import type { FlowName } from "@/lib/flows.ts";
import { type OfferedPart, searchAs, searchDirect, searchReverse } from "@/lib/search.ts";
import { type ClaimPart, claimParts } from "@/lib/tablet_data.ts";

/** A claim found for a flow: the parts it may move now, in the search's order, and the others. */
export interface FlowClaim {
  claimNumber: string;
  parts: ClaimPart[];
  /** The claim's parts this flow cannot move now, with their status. */
  otherParts: ClaimPart[];
  /** Direct and collect: the claim's repair shop (null id when it has none). */
  repairer?: { id: number | null; name: string | null };
  /** Reverse leg 2: the open trip the parts are on, and where they go. */
  trip?: { id: number; hqLocation: { id: number; name: string } };
}

/**
 * What a flow finds in the claim's other state, said by the tablet in its own words:
 * - `trip_in_progress`: a collection while a return trip is open (its parts on the truck): finish it first;
 * - `no_return_trip`: a return with no trip open (nothing on the truck).
 */
export type FlowMismatch = { mismatch: "trip_in_progress" | "no_return_trip" };

async function withClaimParts(
  db: Db,
  found: { claimNumber: string; parts: OfferedPart[] },
): Promise<Pick<FlowClaim, "claimNumber" | "parts" | "otherParts">> {
  const all = await claimParts(db, found.claimNumber);
  const byId = new Map(all.map((p) => [p.id, p]));
  const offered = new Set(found.parts.map((p) => p.id));
  return {
    claimNumber: found.claimNumber,
    // No code deletes a part row, so every offered part is among the claim's parts read just after.
    parts: found.parts.map((p) => byId.get(p.id)!),
    otherParts: all.filter((p) => !offered.has(p.id)),
  };
}

/** The claim `rego` names for `flow`, or the mismatch; other refusals are the search's DomainErrors. */
export async function searchForFlow(
  db: Db,
  user: User,
  flow: FlowName,
  rego: string,
): Promise<FlowClaim | FlowMismatch> {
  if (flow === "direct") {
    const found = await searchAs(db, { user }, searchDirect, rego);
    return { ...await withClaimParts(db, found), repairer: found.repairer };
  }
  let found;
  try {
    found = await searchAs(db, { user }, searchReverse, rego);
  } catch (error) {
    // Nothing to collect and no trip open: for a return the trip is what is missing.
    if (flow === "reverse_dropoff" && error instanceof DomainError && error.kind === "nothing_to_move") {
      return { mismatch: "no_return_trip" };
    }
    throw error;
  }
  if (found.stage === "dropoff" && flow === "reverse_pickup") return { mismatch: "trip_in_progress" };
  if (found.stage === "pickup" && flow === "reverse_dropoff") return { mismatch: "no_return_trip" };
  const claim = await withClaimParts(db, found);
  if (found.stage === "dropoff") {
    return { ...claim, trip: { id: found.movementId, hqLocation: found.hqLocation } };
  }
  // A collection names the shop the parts wait at (the claim's repairer), as a delivery does.
  const shop = await repairerOfClaimNumber(db, found.claimNumber);
  return { ...claim, repairer: shop ?? { id: null, name: null } };
}
