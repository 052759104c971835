/** Resolving the claim a driver means from a typed rego (D11); shared by search, uploads and submissions. */
import type { QueryRunner } from "@/db/queries/compiled.ts";
import { type ClaimFlow, matchingVehicles, pickClaimOfVehicle } from "@/db/queries/claims.ts";
import { DomainError } from "@/lib/errors.ts";
import { normaliseRego } from "@/lib/rego.ts";

/** How many vehicles the "several vehicles" message names before it summarises the rest. */
export const LISTED_VEHICLES = 5;

export interface ResolvedClaim {
  id: number;
  claim_number: string;
  registration: string;
}

/**
 * The claim for a rego and flow, or null when no claim matches (each caller has its own "not found" text).
 * Throws the D11 messages for a too-short rego and for a rego that matches several vehicles.
 */
export async function resolveClaim(
  db: QueryRunner,
  rego: string,
  flow: ClaimFlow,
): Promise<ResolvedClaim | null> {
  const norm = normaliseRego(rego);
  if (norm.length < 2) throw new DomainError("invalid", "Enter at least 2 characters of the rego.");
  const vehicles = await matchingVehicles(db, norm, LISTED_VEHICLES + 1);
  if (vehicles.length === 0) return null;
  if (vehicles.length > 1) {
    const named = vehicles.slice(0, LISTED_VEHICLES).map((v) => v.registration);
    // Past five, the driver needs to type more anyway; naming them all would flood a phone screen.
    const list = vehicles.length > LISTED_VEHICLES ? `${named.join(", ")} and more` : named.join(", ");
    throw new DomainError("invalid", `Several vehicles match ${rego.trim()}: ${list}. Enter the full rego.`);
  }
  return await pickClaimOfVehicle(db, vehicles[0].norm, flow);
}
