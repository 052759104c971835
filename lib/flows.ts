/**
 * The three movement flows in one table: which part status each needs, the status it leaves behind,
 * the photo stage it uses, and its messages (docs/protocol.md Errors, D13, D17, D20). Upload tokens,
 * submissions, the tablet and the dashboard all read it, so a message is written once.
 */
import type { MovementStage, PartStatus } from "@/db/schema.ts";

export type FlowName = "direct" | "reverse_pickup" | "reverse_dropoff";

export interface Flow {
  name: FlowName;
  stage: MovementStage;
  /** The status a part must have for this flow. */
  from: PartStatus;
  /** The status the flow gives it. */
  to: PartStatus;
  /** "Select at least one part to …" */
  noneSelected: string;
  noLongerAvailable: (partNo: string) => string;
  missingPhoto: (partNo: string) => string;
  /** A scanned part in another status (docs/labels.md "The scan endpoint"). */
  notReady: (partNo: string) => string;
}

export const FLOWS: Record<FlowName, Flow> = {
  direct: {
    name: "direct",
    stage: "direct_dropoff",
    from: "Arrived",
    to: "Delivered to Repair Shop directly",
    noneSelected: "Select at least one part to deliver.",
    noLongerAvailable: (p) => `${p} is no longer available for delivery.`,
    missingPhoto: (p) => `${p} is missing its delivery photo.`,
    notReady: (p) => `${p} is not ready to deliver: it is not waiting at HQ.`,
  },
  reverse_pickup: {
    name: "reverse_pickup",
    stage: "reverse_pickup",
    from: "Pending Repair Shop Pick-Up",
    to: "Picked Up from Repair Shop",
    noneSelected: "Select at least one part to collect.",
    noLongerAvailable: (p) => `${p} is no longer flagged for return.`,
    missingPhoto: (p) => `${p} is missing its pickup photo.`,
    notReady: (p) => `${p} is not ready to collect: it is not flagged for return.`,
  },
  reverse_dropoff: {
    name: "reverse_dropoff",
    stage: "reverse_dropoff",
    from: "Picked Up from Repair Shop",
    to: "Returned to HQ",
    noneSelected: "Select at least one part to return.",
    noLongerAvailable: (p) => `${p} is no longer awaiting return.`,
    missingPhoto: (p) => `${p} is missing its drop-off photo.`,
    notReady: (p) => `${p} is not ready to return to HQ: it is not on the truck.`,
  },
};

export const flowOfStage = (stage: MovementStage): Flow =>
  Object.values(FLOWS).find((f) => f.stage === stage)!;
