/**
 * The run sheet's JSON as `GET /tablet/api/run-sheet` answers it (docs/runs.md "The tablet's JSON"): the
 * shapes the route writes and the tablet's islands read (types only, so islands may import it).
 */

/** One claim of a stop: its rego opens the job with the rego already searched. */
export interface RunSheetLine {
  claimNumber: string;
  rego: string;
  /** Parts still to move; when done, the parts moved today. */
  parts: number;
  /** No part is left to move for this job (someone moved them today). */
  done: boolean;
}

export interface RunSheetStop {
  repairerId: number;
  name: string;
  address: string | null;
  phone: string | null;
  /** `tel:` link of the phone; null without a phone. */
  phoneHref: string | null;
  /** "Mon–Fri 07:30–17:00, Sat 08:00–12:00"; null when not known. */
  hours: string | null;
  /** Open at `asOf` on the depot's clock; null when the hours are not known. */
  openNow: boolean | null;
  latitude: number | null;
  longitude: number | null;
  /** HQ's plan: the driver assigned; null when unassigned. */
  assignedTo: { id: number; name: string } | null;
  /** Assigned to the signed-in user. */
  mine: boolean;
  deliver: RunSheetLine[];
  collect: RunSheetLine[];
  /** Claim lines done, of `total`. */
  done: number;
  total: number;
}

/** A return trip on the road to HQ. */
export interface RunSheetTrip {
  claimNumber: string;
  rego: string;
  parts: number;
  movementId: number;
  /** The shop it was picked up at. */
  from: string | null;
  /** Picked up by the signed-in user (listed first). */
  mine: boolean;
}

/** Ready parts whose claim has no repair shop: HQ must say where they go. */
export interface RunSheetNeedsHq {
  claimNumber: string;
  rego: string;
  parts: number;
  job: "deliver" | "collect";
}

export interface RunSheetAnswer {
  /** The depot's date (DEPOT_TIME_ZONE), "YYYY-MM-DD". */
  date: string;
  /** When the server built it (ISO 8601, UTC). */
  asOf: string;
  /** The user's own stops first in HQ's order, then the unassigned ones. */
  stops: RunSheetStop[];
  onTruck: RunSheetTrip[];
  needsHq: RunSheetNeedsHq[];
}
