/**
 * The tablet's way out of a dead end at a shop (docs/return-requests.md "On the tablet"): when the collect
 * search finds nothing flagged, the claim's parts still at the shop and its newest request, for the driver to
 * ask HQ (lib/return_requests.ts).
 */
import type { Db } from "@/db/client.ts";
import { managementOf } from "@/db/queries/claims.ts";
import { AT_SHOP, latestReturnRequestOfClaim } from "@/db/queries/return_requests.ts";
import { resolveClaim } from "@/lib/claims.ts";
import { loadReturnRequest, type ReturnRequest } from "@/lib/return_requests.ts";
import { type ClaimPart, claimParts } from "@/lib/tablet_data.ts";

/** What the tablet offers when nothing on a claim is flagged for return (docs/tablet.md "Collect"). */
export interface ReturnOffer {
  claimNumber: string;
  repairerName: string | null;
  /** The claim's parts at the repair shop, not flagged: what the driver may ask HQ to return. */
  parts: ClaimPart[];
  /** The claim's newest request, in whatever state, so the driver sees what HQ said. */
  request: ReturnRequest | null;
}

/**
 * The offer for `rego` (the claim the reverse search resolves): null when there is nothing to ask for and
 * no request to show.
 */
export async function returnOfferFor(db: Db, rego: string): Promise<ReturnOffer | null> {
  const claim = await resolveClaim(db, rego, "reverse");
  if (!claim) return null;
  const [parts, management, latest] = await Promise.all([
    claimParts(db, claim.claim_number),
    managementOf(db, claim.id),
    latestReturnRequestOfClaim(db, claim.id),
  ]);
  const atShop = parts.filter((p) => p.status === AT_SHOP);
  const request = latest === null ? null : await loadReturnRequest(db, latest);
  if (atShop.length === 0 && request === null) return null;
  return {
    claimNumber: claim.claim_number,
    repairerName: management?.repairer_name ?? null,
    parts: atShop,
    request,
  };
}
