/**
 * The three jobs a driver picks on the tablet, the words each one uses, and the shapes of the tablet API's
 * answers: shared by the tablet's routes (routes/tablet) and its islands, which may import components/
 * (render/assets/js.ts). Pure data, and types only from server modules: safe on both sides.
 */
import type { MovementStatus, MovementType, PartStatus } from "@/db/schema.ts";
import type { FlowName } from "@/lib/flows.ts";

export type JobName = "deliver" | "collect" | "return";

export interface Job {
  name: JobName;
  /** The movement flow the job records (lib/flows.ts). */
  flow: FlowName;
  title: string;
  /** One line under the title on the job chooser. */
  hint: string;
  /** The per-part toggle: "Delivering this part". */
  toggle: string;
  /** The last button: "Confirm delivery". */
  confirm: string;
  /** Receipt heading: "Delivered". */
  done: string;
}

export const JOBS: Record<JobName, Job> = {
  deliver: {
    name: "deliver",
    flow: "direct",
    title: "Deliver to a repair shop",
    hint: "Take parts that arrived at HQ to the repair shop doing the job.",
    toggle: "Delivering",
    confirm: "Confirm delivery",
    done: "Delivered to the repair shop",
  },
  collect: {
    name: "collect",
    flow: "reverse_pickup",
    title: "Collect from a repair shop",
    hint: "Pick up parts a repair shop no longer needs, to bring back to HQ.",
    toggle: "Collecting",
    confirm: "Confirm pickup",
    done: "Collected from the repair shop",
  },
  return: {
    name: "return",
    flow: "reverse_dropoff",
    title: "Return to HQ",
    hint: "Drop off parts you collected earlier at HQ.",
    toggle: "Returning",
    confirm: "Confirm return to HQ",
    done: "Returned to HQ",
  },
};

export const JOB_NAMES = Object.keys(JOBS) as JobName[];

/**
 * The words a driver reads for the statuses the database keeps (the one mapping of the tablet, with
 * MOVEMENT_STATUS_WORDS below: receipts, parts not ready yet). The HQ dashboard and the handler keep the
 * internal names, which dispatchers and the phone app know.
 */
export const PART_STATUS_WORDS: Record<PartStatus, string> = {
  "Ordered": "Ordered, not at HQ yet",
  "Arrived": "At HQ, ready to deliver",
  "Delivered to Repair Shop directly": "Delivered to the repair shop",
  "Pending Repair Shop Pick-Up": "Waiting at the repair shop for pickup",
  "Picked Up from Repair Shop": "On the truck back to HQ",
  "Returned to HQ": "Back at HQ",
};

/**
 * A movement's status in a driver's words, per flow: a delivery's drop-off is at the repair shop
 * ("Delivered"), a return trip's is at HQ, so a finished return never reads "Delivered".
 */
export const MOVEMENT_STATUS_WORDS: Record<MovementType, Record<MovementStatus, string>> = {
  direct: {
    "Parts Picked Up": "Picked up, on the truck",
    "Parts Dropped off": "Delivered",
  },
  reverse: {
    "Parts Picked Up": "Picked up, on the truck",
    "Parts Dropped off": "Trip finished, all parts back at HQ",
  },
};

export const isJobName = (v: unknown): v is JobName => typeof v === "string" && Object.hasOwn(JOBS, v);

/** What /tablet/api/search answers: the claim and the parts the job may move. */
export interface FoundClaim {
  job: JobName;
  /** The rego as typed (submissions resolve the claim from it again, D11). */
  rego: string;
  claim_number: string;
  parts: { id: number; part_no: string; description: string; qty: number }[];
  /** The claim's other parts, not movable in this job now, each with its status in a driver's words. */
  not_ready: { id: number; part_no: string; description: string; qty: number; status: string }[];
  /** deliver: the claim's repairer, preselected in the dropdown (null when the claim has none). */
  repairer_id?: number | null;
  repairer_name?: string | null;
  /** return: where the parts go and the open trip they are on. */
  hq_location?: { id: number; name: string };
  movement_id?: number;
}

/** What /tablet/api/photos answers for a stored photo. */
export interface StoredPhoto {
  image_id: number;
  photo_id: number;
}

/** What /tablet/api/movements answers for an applied (or replayed, D16) submission. */
export interface SubmittedMovement {
  movement_id: number;
  receipt_url: string;
}

/** A refusal from a tablet API: the message, and the part it is about when it names one. */
export interface ApiRefusal {
  message: string;
  part_id?: number;
  /** Search for "collect" found an open return trip: the job that applies instead. */
  switch_to?: JobName;
  /** Search: the regos the typed one matches, when it matches several vehicles (each one tap). */
  regos?: string[];
  /** Search: what the driver can do next (the message itself stays the handler's, word for word). */
  next_step?: string;
  /** Collect search, nothing flagged for return: what the driver may ask HQ to return. */
  return_offer?: ReturnOffer;
}

/** A driver's request that HQ flag parts for return (docs/return-requests.md), as the tablet reads it. */
export interface ReturnRequestAnswer {
  id: number;
  state: "open" | "approved" | "declined";
  requested_by: string;
  /** ISO 8601. */
  requested_at: string;
  note: string | null;
  /** Declined: HQ's reason, for the driver. */
  decline_reason: string | null;
  decided_by: string | null;
  /** The driver's photo of the parts (GET /photos/:id), once it arrived. */
  photo_id: number | null;
  parts: { id: number; part_no: string; description: string; flagged: boolean | null }[];
}

/**
 * Collect, when nothing on the claim is flagged for return: the claim's parts at the repair shop, which the
 * driver may ask HQ to return, and the claim's newest request.
 */
export interface ReturnOffer {
  rego: string;
  claim_number: string;
  repairer_name: string | null;
  parts: { id: number; part_no: string; description: string; qty: number }[];
  request: ReturnRequestAnswer | null;
}

/** A scanned or typed code's part (POST /tablet/api/scan, docs/labels.md "The scan endpoint"). */
export interface ScanAnswer {
  part_id: number;
  part_no: string;
  claim_number: string;
  /** The part's claim's registration: the rego step searches it to open the job. */
  rego: string;
}
