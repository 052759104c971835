/**
 * The migration list, in order. Names are timestamps; a landed migration is never edited.
 * A static list (not a folder scan) so the same code runs from a clone, a compiled binary or a test.
 */
import type { Migration } from "kysely/migration";
import * as core from "./20261121T0900_core.ts";
import * as sessions from "./20261121T0930_sessions.ts";
import * as photoThumbs from "./20261121T1000_photo_thumbs.ts";
import * as movements from "./20261121T1100_movements.ts";
import * as tabletEnrolment from "./20261201T0900_tablet_enrolment.ts";
import * as photoBlobs from "./20261201T0930_photo_blobs.ts";
import * as auditLog from "./20261202T0900_audit_log.ts";
import * as dashboardIndexes from "./20261215T0900_dashboard_indexes.ts";
import * as movementSortKeys from "./20261216T0900_movement_sort_keys.ts";
import * as movementPlace from "./20261218T0900_movement_place.ts";
import * as claimShopFlag from "./20261219T0900_claim_shop_flag.ts";
import * as setBasedReferences from "./20261220T0900_set_based_references.ts";
import * as deviceSessions from "./20261221T0900_device_sessions.ts";
import * as staffPasswords from "./20261221T1000_staff_passwords.ts";
import * as stagedPhotoOwner from "./20261221T1200_staged_photo_owner.ts";
import * as announcementLease from "./20261221T1300_announcement_lease.ts";
import * as placeDetails from "./20261222T0900_place_details.ts";
import * as returnRequests from "./20261222T1000_return_requests.ts";
import * as runStops from "./20261222T1100_run_stops.ts";
import * as returnRequestPhoto from "./20261223T0900_return_request_photo.ts";
import * as shopLinks from "./20261223T1000_shop_links.ts";
import * as shopActions from "./20261223T1100_shop_actions.ts";
import * as searchBox from "./20261224T0900_search_box.ts";
import * as handovers from "./20261224T1000_handovers.ts";
import * as shopEmail from "./20261224T1100_shop_email.ts";
import * as readyAnnouncement from "./20261224T1200_ready_announcement.ts";
import * as ageingThresholds from "./20261225T0900_ageing_thresholds.ts";
import * as overview from "./20261225T1000_overview.ts";
import * as trends from "./20261225T1200_trends.ts";
import * as trendSummaries from "./20261226T0900_trend_summaries.ts";
import * as stagedPhotoBytes from "./20261228T0900_staged_photo_bytes.ts";

export const migrations: Record<string, Migration> = {
  "20261121T0900_core": core,
  "20261121T0930_sessions": sessions,
  "20261121T1000_photo_thumbs": photoThumbs,
  "20261121T1100_movements": movements,
  "20261201T0900_tablet_enrolment": tabletEnrolment,
  "20261201T0930_photo_blobs": photoBlobs,
  "20261202T0900_audit_log": auditLog,
  "20261215T0900_dashboard_indexes": dashboardIndexes,
  "20261216T0900_movement_sort_keys": movementSortKeys,
  "20261218T0900_movement_place": movementPlace,
  "20261219T0900_claim_shop_flag": claimShopFlag,
  "20261220T0900_set_based_references": setBasedReferences,
  "20261221T0900_device_sessions": deviceSessions,
  "20261221T1000_staff_passwords": staffPasswords,
  "20261221T1200_staged_photo_owner": stagedPhotoOwner,
  "20261221T1300_announcement_lease": announcementLease,
  "20261222T0900_place_details": placeDetails,
  "20261222T1000_return_requests": returnRequests,
  "20261222T1100_run_stops": runStops,
  "20261223T0900_return_request_photo": returnRequestPhoto,
  "20261223T1000_shop_links": shopLinks,
  "20261223T1100_shop_actions": shopActions,
  "20261224T0900_search_box": searchBox,
  "20261224T1000_handovers": handovers,
  "20261224T1100_shop_email": shopEmail,
  "20261224T1200_ready_announcement": readyAnnouncement,
  "20261225T0900_ageing_thresholds": ageingThresholds,
  "20261225T1000_overview": overview,
  "20261225T1200_trends": trends,
  "20261226T0900_trend_summaries": trendSummaries,
  "20261228T0900_staged_photo_bytes": stagedPhotoBytes,
};
