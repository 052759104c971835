/**
 * What a scanned or typed code names (docs/labels.md "The scan endpoint"): a label code (lib/labels/code.ts)
 * is its part; anything else is taken as a supplier's part number, which names a part only on the claim on
 * screen and only when no other part of that claim has it. With the claim on screen (its rego) the part must
 * be one of its parts; with a job, in the status the job moves (lib/flows.ts). The tablet and the
 * dashboard's search both call this, each with its own answer.
 */
import type { Db } from "@/db/client.ts";
import type { ClaimFlow } from "@/db/queries/claims.ts";
import { claimPartsNumbered, type LabelledPart, labelledPart } from "@/db/queries/labels.ts";
import { resolveClaim, type ResolvedClaim } from "@/lib/claims.ts";
import { DomainError } from "@/lib/errors.ts";
import { type FlowName, FLOWS } from "@/lib/flows.ts";
import { LABEL_PREFIX, looksLikeLabelCode, parseLabelCode, unknownLabelCode } from "@/lib/labels/code.ts";

export interface ScanInput {
  /** The code as scanned or typed. */
  code: string;
  /** The job on screen: the part must be in the status its flow moves. */
  flow?: FlowName;
  /** The claim on screen, as the driver's rego names it (D11, as the job's search resolved it). */
  rego?: string;
}

export interface ScannedPart {
  partId: number;
  partNo: string;
  claimNumber: string;
  /** The claim's registration. */
  rego: string;
}

const claimFlowOf = (flow: FlowName | undefined): ClaimFlow =>
  flow === undefined || flow === "direct" ? "direct" : "reverse";

/** The part a code names, checked against the claim and the job on screen; refusals are DomainErrors. */
export async function resolveScan(db: Db, input: ScanInput): Promise<ScannedPart> {
  const onScreen = input.rego === undefined
    ? null
    : await resolveClaim(db, input.rego, claimFlowOf(input.flow));
  if (input.rego !== undefined && !onScreen) throw new DomainError("not_found", "Rego not found");
  const part = looksLikeLabelCode(input.code)
    ? await partOfCode(db, input.code, onScreen)
    : await partNumbered(db, input.code, onScreen);
  if (onScreen && part.claim_id !== onScreen.id) {
    throw new DomainError(
      "refused",
      `${part.part_no} is a part of claim ${part.claim_number} (rego ${part.registration}), not of this claim.`,
      part.id,
    );
  }
  if (input.flow && part.status !== FLOWS[input.flow].from) {
    throw new DomainError("conflict", FLOWS[input.flow].notReady(part.part_no), part.id);
  }
  return { partId: part.id, partNo: part.part_no, claimNumber: part.claim_number, rego: part.registration };
}

async function partOfCode(db: Db, code: string, onScreen: ResolvedClaim | null): Promise<LabelledPart> {
  let id;
  try {
    id = parseLabelCode(code);
  } catch (error) {
    // A supplier's number may itself start with "PM-": on the claim on screen it may be one of its parts.
    const numbered = onScreen ? await claimPartsNumbered(db, onScreen.id, code) : [];
    if (numbered.length === 1) return numbered[0];
    throw error;
  }
  const part = await labelledPart(db, id);
  if (!part) throw unknownLabelCode(code);
  return part;
}

/** A supplier's part number: one part of the claim on screen, or a refusal saying why not. */
async function partNumbered(db: Db, partNo: string, onScreen: ResolvedClaim | null): Promise<LabelledPart> {
  const shown = partNo.trim();
  if (!onScreen) {
    throw new DomainError(
      "invalid",
      `${shown} is not a label code (they start with ${LABEL_PREFIX}). Open the claim first to match a part number.`,
    );
  }
  const numbered = await claimPartsNumbered(db, onScreen.id, partNo);
  if (numbered.length === 0) {
    throw new DomainError("not_found", `No part of this claim has the part number ${shown}.`);
  }
  if (numbered.length > 1) {
    throw new DomainError(
      "invalid",
      `Several parts of this claim have the part number ${shown}: scan their ${LABEL_PREFIX} labels instead.`,
    );
  }
  return numbered[0];
}
