/**
 * Kysely table types, one interface per table (db/migrations/ is the source of truth).
 * Use the Selectable/Insertable aliases at the bottom as result and input types, never the interfaces.
 */
import type { ColumnType, Generated, Insertable, Selectable } from "kysely";

export const PART_STATUSES = [
  "Ordered",
  "Arrived",
  "Delivered to Repair Shop directly",
  "Pending Repair Shop Pick-Up",
  "Picked Up from Repair Shop",
  "Returned to HQ",
] as const;
export type PartStatus = (typeof PART_STATUSES)[number];

export const ROLES = ["driver", "dispatcher", "admin"] as const;
export type Role = (typeof ROLES)[number];

export type MovementType = "direct" | "reverse";
export type MovementStatus = "Parts Picked Up" | "Parts Dropped off";
export const MOVEMENT_STAGES = ["direct_dropoff", "reverse_pickup", "reverse_dropoff"] as const;
export type MovementStage = (typeof MOVEMENT_STAGES)[number];
export const AGEING_THRESHOLD_KEYS = [
  "held_band_1_days",
  "held_band_2_days",
  "held_band_3_days",
  "truck_hours",
  "return_waiting_days",
] as const;
export type AgeingThresholdKey = (typeof AGEING_THRESHOLD_KEYS)[number];
export type HistoryVia = "import" | "dashboard" | "movement" | "shop";
export type AnnouncementTitle =
  | "Parts Delivered"
  | "Parts Picked Up From Repair Shop"
  | "Parts Returned to HQ"
  | "Return Requested"
  /** E-mail only: a shop's stop was assigned to a driver for today (docs/submissions-and-announcements.md). */
  | "Parts On The Way"
  | "Ready For Collection";
export type ChatChannel = "parts_movement" | "new_repair_jobs";
/** The outbox's channels: the two chats, and e-mail to a repair shop's contacts (one channel for all shops). */
export type AnnouncementChannel = ChatChannel | "shop_email";
export type AnnouncementState = "pending" | "delivered" | "failed" | "feed_only";

/** A timestamp column: read as Date, written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp the database fills by default when omitted. */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

/**
 * A place's coordinates: numeric(9,6), read as a number (both databases' numeric parser, db/client.ts);
 * both or neither (check constraint).
 */
type Coordinate = ColumnType<number | null, number | null | undefined, number | null>;

export interface HqLocationsTable {
  id: Generated<number>;
  name: string;
  latitude: Coordinate;
  longitude: Coordinate;
}

export interface RepairersTable {
  id: Generated<number>;
  name: string;
  address: string | null;
  active: Generated<boolean>;
  phone: ColumnType<string | null, string | null | undefined, string | null>;
  /** Contact e-mail addresses, lower case; empty when none. */
  emails: Generated<string[]>;
  latitude: Coordinate;
  longitude: Coordinate;
  /** A week of opening intervals (lib/places/hours.ts OpeningHours); null when not known. */
  opening_hours: ColumnType<unknown, string | null | undefined, string | null>;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  role: Role;
  pin_hash: string | null;
  active: Generated<boolean>;
  /** The dashboard password of a dispatcher or admin (migration 20261221T1000_staff_passwords). */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** An admin's confirmed second factor (base32, io/totp.ts), the one being set up, the last step used. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
  home_hq_id: number | null;
  created_at: CreatedAt;
}

export interface ClaimsTable {
  id: Generated<number>;
  claim_number: string;
  registration: string;
  registration_norm: ColumnType<string, never, never>;
  created_at: CreatedAt;
  /** Whether its management record names a shop: kept by a trigger (20261219T0900_claim_shop_flag). */
  has_shop: ColumnType<boolean, never, never>;
}

export interface ClaimManagementTable {
  id: Generated<number>;
  claim_id: number;
  repairer_id: number | null;
  parts_movement_id: number | null;
}

export interface PartsOrdersTable {
  id: Generated<number>;
  claim_id: number;
  part_no: string;
  description: string;
  qty_ordered: number;
  status: PartStatus;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface PartStatusHistoryTable {
  id: Generated<number>;
  part_id: number;
  from_status: PartStatus | null;
  to_status: PartStatus;
  changed_at: Timestamp;
  changed_by: number | null;
  via: HistoryVia;
  reason: string | null;
  movement_id: number | null;
  /** The shop that made the change on its page (`via` `shop`, migration 20261223T1100_shop_actions). */
  changed_by_repairer_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface PhotosTable {
  id: Generated<number>;
  storage_key: string;
  content_type: string;
  byte_size: number;
  width: number;
  height: number;
  created_at: CreatedAt;
  /** Key of the stored thumbnail, once made (migration 20261121T1000_photo_thumbs). */
  thumb_key: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface UploadedImagesTable {
  id: Generated<number>;
  part_id: number;
  claim_id: number;
  movement_stage: MovementStage;
  uploaded_by: number;
  uploaded_time: Timestamp;
  photo_id: number | null;
  /** Set when a retake by the same uploader replaced this photo (migration 20261221T1200_staged_photo_owner). */
  replaced_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** A Deliver_Parts uses it; kept by triggers on deliver_parts (migration 20261221T1200_staged_photo_owner). */
  submitted: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface UploadTokensTable {
  token_hash: string;
  image_id: number;
  field_name: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface PartsMovementsTable {
  id: Generated<number>;
  claim_id: number;
  movement_type: MovementType;
  movement_status: MovementStatus;
  picked_up_by: number;
  dropped_off_by: number | null;
  pick_up_at: Timestamp;
  dropped_off_at: Timestamp | null;
  repairer_id: number | null;
  location_type: "HQ" | null;
  hq_location_id: number | null;
  /** How many Deliver_Parts the movement has: written with them, by the movement's insert. */
  part_count: Generated<number>;
  /** Its place: the drop-off's shop, or a return trip's claim's shop when picked up (a trigger fills it). */
  place_repairer_id: Generated<number | null>;
  created_at: CreatedAt;
}

export interface DeliverPartsTable {
  id: Generated<number>;
  movement_id: number;
  part_id: number;
  pickup: boolean;
  delivery: Generated<boolean>;
  qty_ordered: number;
  pickup_image_id: number | null;
  delivery_image_id: number | null;
  pickup_photo_id: number;
  delivery_photo_id: number | null;
}

export interface AnnouncementsTable {
  id: Generated<number>;
  message_id: string;
  /** The movement it is about; null for a return request's (then `return_request_id` is set). */
  movement_id: number | null;
  title: AnnouncementTitle;
  channel: AnnouncementChannel;
  body: ColumnType<unknown, string, string>;
  state: Generated<AnnouncementState>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
  /** The token of the worker claim that holds this pending row's lease, else null (worker.ts). */
  lease_owner: Generated<string | null>;
  /** The return request it is about (migration 20261222T1000_return_requests), else null. */
  return_request_id: Generated<number | null>;
  /** A `shop_email` row's shop (migration 20261224T1100_shop_email); null on the chats' rows. */
  repairer_id: Generated<number | null>;
}

export interface AnnouncementPart {
  partNo: string;
  description: string;
}

/**
 * What one announcement says (D21): the one shape the service uses, from the submission that writes it
 * to the chat formats and the feed. The table keeps it, without the per-row message id, in `body` as
 * snake_case JSON (the stored form since the first release); db/queries/announcements.ts alone converts
 * between the two.
 */
export interface Announcement {
  /** Stable per announcement and channel, made at outbox insert: every retry carries the same id. */
  messageId: string;
  title: AnnouncementTitle;
  rego: string;
  /** The repair shop, or the HQ location for a return. */
  place: string;
  parts: AnnouncementPart[];
  driver: string;
  /** ISO 8601 timestamp of the movement step. */
  at: string;
  /** Absolute URL of the movement's page (a return request: the dispatchers' queue). */
  link: string;
  /** The movement; 0 for a return request. */
  movementId: number;
  /** `Return Requested`: the request's id and the driver's note. */
  returnRequestId?: number;
  note?: string | null;
}

export interface SessionsTable {
  token_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  /** The enrolled tablet it was opened on; null: a dashboard session (docs/sign-in.md). */
  device_id: number | null;
}

/**
 * An enrolled depot tablet (docs/tablet.md "Enrolling a tablet"): only its device token's SHA-256 is
 * stored.
 */
export interface DevicesTable {
  id: Generated<number>;
  name: string;
  token_hash: string;
  enrolled_by: number | null;
  enrolled_at: Timestamp;
  last_used_at: Timestamp | null;
  /** The last user who signed in on it. */
  last_user_id: number | null;
  /** A short summary of its browser's User-Agent (lib/user_agent.ts). */
  browser: string | null;
}

/** The PIN-check window of a subject on a client (lib/pin_attempts.ts). */
export interface PinAttemptsTable {
  subject: string;
  client: string;
  checks: number;
  window_started_at: Timestamp;
  window_ends: Timestamp;
}

/**
 * A browser where a staff user signed in to the dashboard (docs/sign-in.md "Remembered browsers"): only
 * its cookie token's SHA-256 is stored; bound to one user.
 */
export interface RememberedBrowsersTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  created_at: Timestamp;
  last_used_at: Timestamp;
}

/** PHOTO_STORE=postgres: one row per stored photo (migration 20261201T0930_photo_blobs). */
export interface PhotoBlobsTable {
  key: string;
  byte_size: number;
  modified_at: Timestamp;
}

/** The bytes of a photo_blobs row, in order, at most 1 MiB each. */
export interface PhotoBlobChunksTable {
  key: string;
  seq: number;
  data: Uint8Array;
}

/** One admin or dispatcher action (migration 20261202T0900_audit_log); JSON written as text. */
export interface AuditLogTable {
  id: Generated<number>;
  at: CreatedAt;
  actor_id: number | null;
  /** A repair shop acting on its page (docs/shop-page.md); `actor_id` is null then. */
  actor_repairer_id: ColumnType<number | null, number | null | undefined, number | null>;
  action: AuditAction;
  subject: string;
  claim_id: number | null;
  before: ColumnType<unknown, string | null, never>;
  after: ColumnType<unknown, string | null, never>;
}

export type ReturnRequestState = "open" | "approved" | "declined";

/** A driver's request that HQ flag parts for return (migration 20261222T1000_return_requests). */
export interface ReturnRequestsTable {
  id: Generated<number>;
  claim_id: number;
  repairer_id: number | null;
  requested_by: number;
  requested_at: Timestamp;
  /** The tablet's key for the request: a retry finds the row it made. */
  client_key: string;
  note: string | null;
  state: Generated<ReturnRequestState>;
  decided_by: number | null;
  decided_at: Timestamp | null;
  decline_reason: string | null;
  /** The driver's photo of the parts, sent after the request (migration 20261223T0900_return_request_photo). */
  photo_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ReturnRequestPartsTable {
  request_id: number;
  part_id: number;
  /** Set when decided: whether the approval flagged it. */
  flagged: boolean | null;
}

/**
 * HQ's plan of a day (migration 20261222T1100_run_stops, docs/runs.md): who visits a repair shop on a date
 * and where in their run; the stops themselves are derived from the parts (lib/run_sheet.ts).
 */
export interface RunStopsTable {
  /** The depot's date (DEPOT_TIME_ZONE), read as "YYYY-MM-DD". */
  run_date: ColumnType<string, string, string>;
  repairer_id: number;
  /** Null: not assigned (a shop with no row is unassigned too). */
  driver_id: number | null;
  /** 1, 2, … in the driver's run; set exactly when `driver_id` is. */
  position: number | null;
  updated_by: number;
  updated_at: Timestamp;
}

export type ShopLinkEnd = "replaced" | "revoked";

/** A repair shop's private link (migration 20261223T1000_shop_links, docs/shop-page.md). */
export interface ShopLinksTable {
  /** Order of making: the newest link of a shop has the highest. */
  id: Generated<number>;
  token_hash: string;
  repairer_id: number;
  salt: string;
  created_at: Timestamp;
  /** The admin who made it; null when made for an e-mail to the shop. */
  created_by: number | null;
  ended_at: Timestamp | null;
  ended_reason: ShopLinkEnd | null;
}

export type ProblemReason = "wrong_part" | "damaged" | "not_received";

/** A shop's report of a problem with a part (migration 20261223T1100_shop_actions, docs/shop-page.md). */
export interface ShopProblemReportsTable {
  id: Generated<number>;
  repairer_id: number;
  part_id: number;
  reason: ProblemReason;
  note: string | null;
  photo_id: number | null;
  reported_at: Timestamp;
  state: Generated<"open" | "resolved">;
  resolved_by: number | null;
  resolved_at: Timestamp | null;
}

export type HandoverPolicy = "required" | "optional" | "off";
export type UnsignedReason = "shop_closed" | "left_at_agreed_place" | "receiver_refused";
export type HandoverImageKind = "signature" | "left";

/** An admin's handover policy for a leg (migration 20261224T1000_handovers); no row: the default. */
export interface HandoverPoliciesTable {
  leg: MovementStage;
  policy: HandoverPolicy;
  updated_by: number;
  updated_at: Timestamp;
}

/** A threshold of the overview's ageing an admin set (docs/overview.md "Ageing"); unset ones have defaults. */
export interface AgeingThresholdsTable {
  key: AgeingThresholdKey;
  value: number;
  updated_by: number;
  updated_at: Timestamp;
}

/** A signature or left-at photo a driver sent, unused until a submission takes it (docs/handover.md). */
export interface HandoverImagesTable {
  id: Generated<number>;
  kind: HandoverImageKind;
  photo_id: number;
  uploaded_by: number;
  uploaded_at: Timestamp;
  /** The movement and leg that took it; null while unused. */
  movement_id: ColumnType<number | null, number | null | undefined, number | null>;
  leg: ColumnType<MovementStage | null, MovementStage | null | undefined, MovementStage | null>;
}

/** The handover of one movement leg (docs/handover.md "What is stored"). */
export interface HandoversTable {
  movement_id: number;
  leg: MovementStage;
  receiver_name: string | null;
  signature_photo_id: number | null;
  unsigned_reason: UnsignedReason | null;
  left_photo_id: number | null;
  recorded_at: Timestamp;
  recorded_by: number;
  /** SHA-256, lowercase hex, of the handover text (lib/handover/digest.ts). */
  digest: string;
}

export const AUDIT_ACTIONS = [
  "user.create",
  "user.role",
  "user.active",
  "user.pin_reset",
  "user.password_set",
  "user.totp_set",
  "user.totp_removed",
  "place.create",
  "place.edit",
  "tablet.enrol",
  "tablet.revoke",
  "tablet.rename",
  "part.status",
  "announcement.retry",
  "return_request.approve",
  "return_request.decline",
  "run.assign",
  "run.move",
  "run.suggest",
  "shop_link.rotate",
  "shop_link.revoke",
  "shop.ready_for_collection",
  "shop.problem_report",
  "shop.problem_resolved",
  "import",
  "handler.movement",
  "handover.policy",
  "ageing.threshold",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The overview's counters (migration 20261225T1000_overview, docs/overview.md "How fast"): parts per status,
 * repair shop of the claim (0: none) and UTC day they entered the status; kept by triggers, recounted only after
 * a fill with the triggers off (db/queries/overview.ts recountOverviewCounts).
 */
export interface OverviewCountsTable {
  status: PartStatus;
  repairer_id: number;
  since_day: Date;
  parts: number;
}

/**
 * The trends' movement steps per depot day, kind, driver (0: none) and shop (0: none), kept by a trigger on
 * parts_movements in the zone of `trend_zone` (migration 20261226T0900_trend_summaries, docs/trends.md "At scale").
 */
export interface TrendDaysTable {
  /** The depot's date, "YYYY-MM-DD" as read (`day::text`). */
  day: string;
  stage: MovementStage;
  driver_id: number;
  shop_id: number;
  movements: number;
  parts: number;
}

/** The zone `trend_days` is counted in: one row, none until the service first ran. */
/**
 * Never less than the bytes of every staged photo not yet submitted: one row (migration
 * 20261228T0900_staged_photo_bytes, docs/photos.md "Quotas").
 */
export interface StagedPhotoBytesTable {
  only_row: Generated<boolean>;
  bytes: number;
}

export interface TrendZoneTable {
  only_row: Generated<boolean>;
  time_zone: string;
}

/** A completed return cycle per entry into "Returned to HQ" (trigger on part_status_history), in days. */
export interface ReturnCyclesTable {
  history_id: number;
  shop_id: number;
  returned_at: Timestamp;
  at_shop_days: number;
  back_days: number;
  total_days: number;
}

export interface Database {
  hq_locations: HqLocationsTable;
  repairers: RepairersTable;
  users: UsersTable;
  claims: ClaimsTable;
  claim_management: ClaimManagementTable;
  parts_orders: PartsOrdersTable;
  part_status_history: PartStatusHistoryTable;
  photos: PhotosTable;
  uploaded_images: UploadedImagesTable;
  upload_tokens: UploadTokensTable;
  parts_movements: PartsMovementsTable;
  deliver_parts: DeliverPartsTable;
  announcements: AnnouncementsTable;
  sessions: SessionsTable;
  devices: DevicesTable;
  pin_attempts: PinAttemptsTable;
  photo_blobs: PhotoBlobsTable;
  photo_blob_chunks: PhotoBlobChunksTable;
  audit_log: AuditLogTable;
  remembered_browsers: RememberedBrowsersTable;
  return_requests: ReturnRequestsTable;
  return_request_parts: ReturnRequestPartsTable;
  run_stops: RunStopsTable;
  shop_links: ShopLinksTable;
  shop_problem_reports: ShopProblemReportsTable;
  handover_policies: HandoverPoliciesTable;
  handover_images: HandoverImagesTable;
  handovers: HandoversTable;
  ageing_thresholds: AgeingThresholdsTable;
  overview_counts: OverviewCountsTable;
  trend_days: TrendDaysTable;
  trend_zone: TrendZoneTable;
  staged_photo_bytes: StagedPhotoBytesTable;
  return_cycles: ReturnCyclesTable;
}

export type HqLocation = Selectable<HqLocationsTable>;
export type Repairer = Selectable<RepairersTable>;
export type User = Selectable<UsersTable>;
export type Device = Selectable<DevicesTable>;
export type Claim = Selectable<ClaimsTable>;
export type PartOrder = Selectable<PartsOrdersTable>;
export type PartsMovement = Selectable<PartsMovementsTable>;
export type NewPartsMovement = Insertable<PartsMovementsTable>;
export type DeliverPart = Selectable<DeliverPartsTable>;
export type NewDeliverPartRow = Insertable<DeliverPartsTable>;
export type UploadedImage = Selectable<UploadedImagesTable>;
export type Photo = Selectable<PhotosTable>;
export type Handover = Selectable<HandoversTable>;
export type AnnouncementRow = Selectable<AnnouncementsTable>;
export type PartStatusChange = Selectable<PartStatusHistoryTable>;
export type NewHistoryRow = Insertable<PartStatusHistoryTable>;
