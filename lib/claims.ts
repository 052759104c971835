/** Resolving the claim a driver means from a typed rego (D11); shared by search, uploads and submissions. */
import type { QueryRunner } from "@/db/queries/compiled.ts";
import {
  type ClaimFlow,
  type ClaimResolution,
  resolveClaimOfRego,
  VEHICLES_READ,
} from "@/db/queries/claims.ts";
import { DomainError } from "@/lib/errors.ts";
import { normaliseRego } from "@/lib/rego.ts";
import type { Actor } from "@/lib/users.ts";

/** How many vehicles the "several vehicles" message names before it summarises the rest. */
export const LISTED_VEHICLES = VEHICLES_READ - 1;

/** D11: a typed rego with fewer characters left is refused; from this many on it may match a part of one. */
export const MIN_REGO_CHARS = 2;

/**
 * D30: on the handler (whose key every phone carries) a rego matches a part of a registration only from this
 * many characters; a shorter one matches only a whole registration, else answers as no match does.
 */
export const HANDLER_CONTAINS_FROM = 4;

/** The shortest rego that may match a part of a registration for this actor: the handler's (D30), else D11's. */
export const containsFromOf = (actor: Actor): number =>
  "user" in actor ? MIN_REGO_CHARS : HANDLER_CONTAINS_FROM;

export interface ResolvedClaim {
  id: number;
  claim_number: string;
  registration: string;
}

/**
 * The rego normalised for the resolution, or null when it is too short to search: checked after the
 * resolution's statement (`claimOfResolution`), so a submission still says "User not found." first (D13).
 */
export function searchableRego(rego: string): string | null {
  const norm = normaliseRego(rego);
  return norm.length < MIN_REGO_CHARS ? null : norm;
}

/**
 * The claim a resolution found for the typed rego, or null when no claim matches (each caller has its own
 * "not found" text). Throws the D11 messages for a too-short rego and for a rego that matches several
 * vehicles.
 */
export function claimOfResolution(rego: string, resolution: ClaimResolution): ResolvedClaim | null {
  if (searchableRego(rego) === null) {
    throw new DomainError("invalid", "Enter at least 2 characters of the rego.");
  }
  const vehicles = resolution.registrations;
  if (vehicles.length > 1) {
    const named = vehicles.slice(0, LISTED_VEHICLES);
    // Past five, the driver needs to type more anyway; naming them all would flood a phone screen.
    const list = vehicles.length > LISTED_VEHICLES ? `${named.join(", ")} and more` : named.join(", ");
    throw new DomainError("invalid", `Several vehicles match ${rego.trim()}: ${list}. Enter the full rego.`);
  }
  return resolution.claim;
}

/**
 * The claim for a rego and flow (one statement), or null when no claim matches; see `claimOfResolution`.
 * `containsFrom`: the shortest rego that may match a part of a registration (D11; the handler's D30).
 */
export async function resolveClaim(
  db: QueryRunner,
  rego: string,
  flow: ClaimFlow,
  containsFrom = MIN_REGO_CHARS,
): Promise<ResolvedClaim | null> {
  const norm = searchableRego(rego);
  if (norm === null) throw new DomainError("invalid", "Enter at least 2 characters of the rego.");
  return claimOfResolution(rego, await resolveClaimOfRego(db, norm, flow, norm.length >= containsFrom));
}
