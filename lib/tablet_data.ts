/**
 * The data the depot tablet pages show (no rules here: the movements and searches live in their own
 * modules), shaped for those pages from the queries in db/queries. Kept out of routes/ so a route stays
 * "validate, call, render".
 */
import type { Db } from "@/db/client.ts";
import { matchingVehicles } from "@/db/queries/claims.ts";
import { movementParts, receiptMovement } from "@/db/queries/movement_reads.ts";
import { partsOfClaimNumber } from "@/db/queries/parts.ts";
import { activeRepairersByName } from "@/db/queries/places.ts";
import { activeDrivers } from "@/db/queries/users.ts";
import type { MovementStatus, MovementType, PartStatus, Role } from "@/db/schema.ts";
import { LISTED_VEHICLES } from "@/lib/claims.ts";
import { handoversOfMovementLegs, type MovementLegHandover } from "@/lib/handover/shown.ts";
import { normaliseRego } from "@/lib/rego.ts";

/** Who may use the tablet (D24): drivers make movements; an admin may too (covering a shift, testing). */
export const TABLET_ROLES: readonly Role[] = ["driver", "admin"];

export interface DriverChoice {
  id: number;
  name: string;
}

/** The drivers offered on the sign-in screen: active users with role driver, by name. */
export async function listDrivers(db: Db): Promise<DriverChoice[]> {
  return await activeDrivers(db);
}

export interface RepairerChoice {
  id: number;
  name: string;
}

/** The repair shops a direct delivery may go to: active repairers, by name. */
export async function listActiveRepairers(db: Db): Promise<RepairerChoice[]> {
  return await activeRepairersByName(db);
}

export interface ClaimPart {
  id: number;
  part_no: string;
  description: string;
  qty: number;
  status: PartStatus;
}

/**
 * Every part of a claim (by its unique number) with quantity and status, in id order: the tablet shows the
 * quantity on each part it offers and lists the others, greyed, with their status.
 */
export async function claimParts(db: Db, claimNumber: string): Promise<ClaimPart[]> {
  const rows = await partsOfClaimNumber(db, claimNumber);
  return rows.map(({ qty_ordered, ...p }) => ({ ...p, qty: qty_ordered }));
}

/**
 * The registrations a typed rego matches (D11's rule, the search's own query), as many as the handler's
 * "Several vehicles match …" message names: the tablet offers each as a button. Empty when too short.
 */
export async function matchingRegos(db: Db, rego: string): Promise<string[]> {
  const norm = normaliseRego(rego);
  if (norm.length < 2) return [];
  return (await matchingVehicles(db, norm, LISTED_VEHICLES)).map((v) => v.registration);
}

export interface ReceiptPart {
  parts_order_id: number;
  delivery_id: number;
  part_no: string;
  description: string;
  qty: number;
  status: PartStatus;
  pickup_photo_id: number;
  delivery_photo_id: number | null;
  delivered: boolean;
}

export interface Receipt {
  id: number;
  movement_type: MovementType;
  movement_status: MovementStatus;
  claim_number: string;
  registration: string;
  repairer: string | null;
  hq_location: string | null;
  picked_up_by: string;
  dropped_off_by: string | null;
  pick_up_at: Date;
  dropped_off_at: Date | null;
  picked_up_by_id: number;
  dropped_off_by_id: number | null;
  parts: ReceiptPart[];
  /** The handover of each leg so far (docs/handover.md). */
  handovers: MovementLegHandover[];
}

/**
 * A movement with its parts, photo ids and handovers, for the receipt page; null when there is none. The repair shop
 * is the movement's place: a delivery's shop, or the shop a return trip was picked up from.
 */
export async function loadReceipt(db: Db, movementId: number): Promise<Receipt | null> {
  const row = await receiptMovement(db, movementId);
  if (!row) return null;
  const { picked_up_by_name, dropped_off_by_name, hq_name, ...movement } = row;
  const parts = await movementParts(db, movementId);
  const returned = movement.movement_type === "reverse" && parts.some((p) => p.delivery);
  const handovers = await handoversOfMovementLegs(db, [{
    id: movementId,
    type: movement.movement_type,
    returned,
  }]);
  return {
    ...movement,
    picked_up_by: picked_up_by_name,
    dropped_off_by: dropped_off_by_name,
    hq_location: hq_name,
    parts: parts.map(({ part_id, qty_ordered, delivery, pickup: _pickup, ...p }) => ({
      ...p,
      parts_order_id: part_id,
      qty: qty_ordered,
      delivered: delivery,
    })),
    handovers: handovers.get(movementId)!,
  };
}
