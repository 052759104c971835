/**
 * The data of a claim's page (docs/claim-page.md): the claim, its vehicle and
 * repair shop, every part with its status, each leg a part travelled (who, where, when, with its photo), and
 * one timeline of every event about the claim, oldest first. The evidence pack (lib/evidence/zip.ts) is built
 * from the same legs.
 */
import type { Db } from "@/db/client.ts";
import type {
  AnnouncementChannel,
  AnnouncementState,
  AnnouncementTitle,
  HistoryVia,
  MovementStage,
  MovementType,
  PartStatus,
} from "@/db/schema.ts";
import { announcementsOfClaim } from "@/db/queries/announcements.ts";
import { claimByNumber } from "@/db/queries/claims.ts";
import { historyOfClaim } from "@/db/queries/history.ts";
import { carriedPartsOfClaim } from "@/db/queries/movement_reads.ts";
import { partsOfClaimNumber } from "@/db/queries/parts.ts";
import { type HandoverOfLeg, handoversOfLegs } from "@/lib/handover/shown.ts";
import { type LegPhoto, photoOf } from "@/lib/photos/stored.ts";

export type { LegPhoto };

/**
 * One leg of one part: picked up or dropped off, by whom, where and when, with its photo, and the handover
 * of its movement leg (docs/handover.md), shared by the leg's parts.
 */
export interface Leg extends HandoverOfLeg {
  partId: number;
  partNo: string;
  movementId: number;
  movementType: MovementType;
  /** Named as the app names the photo's stage. */
  leg: MovementStage;
  at: Date;
  driver: string | null;
  place: string | null;
  photo: LegPhoto | null;
}

export type TimelineEvent =
  | { kind: "created"; at: Date }
  | {
    kind: "status";
    at: Date;
    partNo: string;
    from: PartStatus | null;
    to: PartStatus;
    via: HistoryVia;
    who: string | null;
    reason: string | null;
    movementId: number | null;
  }
  | { kind: "leg"; at: Date; leg: Leg }
  | {
    kind: "announcement";
    at: Date;
    movementId: number;
    title: AnnouncementTitle;
    /** One announcement goes to each chat channel: one event, each channel's delivery. */
    channels: AnnouncementDelivery[];
  };

export interface AnnouncementDelivery {
  channel: AnnouncementChannel;
  state: AnnouncementState;
  lastError: string | null;
}

/** Same-instant events read in cause order: the claim, the leg, the status it caused, its announcement. */
const KIND_ORDER: Record<TimelineEvent["kind"], number> = { created: 0, leg: 1, status: 2, announcement: 3 };

type CarriedRow = Awaited<ReturnType<typeof carriedPartsOfClaim>>[number];
type AnnouncementRow = Awaited<ReturnType<typeof announcementsOfClaim>>[number];
type CarriedLeg = Omit<Leg, keyof HandoverOfLeg>;

/**
 * The legs of one carried part. A direct drop-off is one leg (the part was delivered where it was picked
 * up from the truck: both photo columns hold the same photo); a return trip has its pick-up at the movement's
 * place (the claim's repair shop when it was picked up, stored on the movement) and, once dropped off, its
 * drop-off at HQ.
 */
function legsOf(r: CarriedRow): CarriedLeg[] {
  const base = { partId: r.part_id, partNo: r.part_no, movementId: r.id, movementType: r.movement_type };
  const pickup = photoOf(r.pickup_photo_id, r.pickup_key, r.pickup_bytes, r.pickup_type);
  const delivery = photoOf(r.delivery_photo_id, r.delivery_key, r.delivery_bytes, r.delivery_type);
  if (r.movement_type === "direct") {
    return [{
      ...base,
      leg: "direct_dropoff",
      at: new Date(r.dropped_off_at ?? r.pick_up_at),
      driver: r.dropped_off_by_name ?? r.picked_up_by_name,
      place: r.repairer_name,
      photo: delivery ?? pickup,
    }];
  }
  const legs: CarriedLeg[] = [{
    ...base,
    leg: "reverse_pickup",
    at: new Date(r.pick_up_at),
    driver: r.picked_up_by_name,
    place: r.repairer_name,
    photo: pickup,
  }];
  if (r.dropped_off_at) {
    legs.push({
      ...base,
      leg: "reverse_dropoff",
      at: new Date(r.dropped_off_at),
      driver: r.dropped_off_by_name,
      place: r.hq_name,
      photo: delivery,
    });
  }
  return legs;
}

/** A movement's announcement as one event, its channels' rows (written together) folded into it. */
function announcementEvents(rows: AnnouncementRow[]): TimelineEvent[] {
  const events = new Map<string, Extract<TimelineEvent, { kind: "announcement" }>>();
  for (const a of rows) {
    const key = `${a.movement_id} ${a.title}`;
    const delivery = { channel: a.channel, state: a.state, lastError: a.last_error };
    const event = events.get(key);
    if (event) event.channels.push(delivery);
    else {
      events.set(key, {
        kind: "announcement",
        at: new Date(a.created_at),
        // Read joined to their movement (announcementsOfClaim): never a return request's row.
        movementId: a.movement_id!,
        title: a.title,
        channels: [delivery],
      });
    }
  }
  return [...events.values()];
}

/** The claim with this number and all it holds; null when there is none. */
export async function claimPage(db: Db, claimNumber: string) {
  const claim = await claimByNumber(db, claimNumber);
  if (!claim) return null;
  const [parts, history, carried, announcements] = await Promise.all([
    partsOfClaimNumber(db, claimNumber),
    historyOfClaim(db, claim.id),
    carriedPartsOfClaim(db, claim.id),
    announcementsOfClaim(db, claim.id),
  ]);
  const handoverOf = await handoversOfLegs(db, carried.map((r) => r.id));
  const legs: Leg[] = carried.flatMap(legsOf).map((l) => ({ ...l, ...handoverOf(l.movementId, l.leg) }));
  const timeline: TimelineEvent[] = [
    { kind: "created", at: new Date(claim.created_at) },
    ...history.map((h) => ({
      kind: "status" as const,
      at: new Date(h.changed_at),
      partNo: h.part_no,
      from: h.from_status,
      to: h.to_status,
      via: h.via,
      who: h.changed_by_name,
      reason: h.reason,
      movementId: h.movement_id,
    })),
    ...legs.map((leg) => ({ kind: "leg" as const, at: leg.at, leg })),
    ...announcementEvents(announcements),
    // The audit trail's entries that touch a claim are dispatchers' status changes (db/queries/audit.ts
    // auditEntriesOfClaim); each is already here as its "status" event, written in the same transaction
    // with the same who and reason, so the timeline does not list it twice.
  ];
  // Stable sort: same-instant events of one kind keep their query order (id order).
  timeline.sort((a, b) => a.at.getTime() - b.at.getTime() || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
  return { claim, parts, legs, timeline };
}

export type ClaimPageData = NonNullable<Awaited<ReturnType<typeof claimPage>>>;
