/**
 * Enrolled depot tablets (docs/tablet.md "Enrolling a tablet"). The tablet's driver list and PIN sign-in
 * answer only on a browser an admin enrolled from the dashboard (routes/hq/admin_tablets.tsx), done on the
 * tablet itself while signed in there: it gets a long-lived device cookie holding a random token, of which
 * only the SHA-256 is stored. Revoking deletes the row (and the tablet's PIN windows), so the cookie is
 * worthless at once, and with it the sessions opened on the tablet (their foreign key cascades: docs/sign-in.md
 * "Sessions on a tablet"), so the tablet's next request is refused. The tablets page tells the tablets apart
 * by an editable name, the last use, the last driver and a summary of the browser (lib/user_agent.ts). Wrong PINs on a tablet count per user and device (lib/pin_attempts.ts), so a stranger's
 * device, which cannot be enrolled, cannot lock a driver out of the depot's own tablets.
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type { Device } from "@/db/schema.ts";
import {
  deleteDevice,
  deviceByTokenHash,
  deviceNameForUpdate,
  insertDevice,
  listDevices,
  recordDeviceSignIn,
  setDeviceName,
  touchDevice,
} from "@/db/queries/devices.ts";
import { clearClientPinWindows } from "@/db/queries/pin_attempts.ts";
import type { Clock } from "@/io/clock.ts";
import { hashToken, randomToken } from "@/io/tokens.ts";
import { DomainError } from "@/lib/errors.ts";
import { isLineText } from "@/lib/validation.ts";
import { tabletClient } from "@/lib/pin_attempts.ts";
import { browserSummary } from "@/lib/user_agent.ts";

/**
 * The device cookie's lifetime: 400 days, the most browsers keep a cookie; every visit to the sign-in page
 * sets it again, so a tablet in use never loses it.
 */
export const DEVICE_COOKIE_MAX_AGE_S = 400 * 24 * 60 * 60;
/** last_used_at is written at most this often. */
const TOUCH_EVERY_MS = 60_000;
export const MAX_DEVICE_NAME = 80;

function cleanName(name: string): string {
  const clean = name.trim().replace(/ +/g, " ");
  if (!clean || clean.length > MAX_DEVICE_NAME || !isLineText(clean)) {
    throw new DomainError(
      "invalid",
      `Name the tablet (1 to ${MAX_DEVICE_NAME} characters, no control characters).`,
    );
  }
  return clean;
}

/** Enrols a browser as a depot tablet; returns the device and the token its cookie must hold. */
export async function enrolDevice(
  db: Db,
  clock: Clock,
  input: { name: string; enrolledBy: number | null; userAgent?: string },
): Promise<{ device: Device; token: string }> {
  const token = randomToken();
  const name = cleanName(input.name);
  const at = clock.now();
  const device = await db.transaction().execute(async (tx) => {
    const device = await insertDevice(tx, {
      name,
      tokenHash: hashToken(token),
      enrolledBy: input.enrolledBy,
      at,
      browser: browserSummary(input.userAgent),
    });
    // Audit trail (docs/dashboard.md "Audit trail"); never the token.
    await insertAuditEntry(tx, {
      actorId: input.enrolledBy,
      action: "tablet.enrol",
      subject: `device:${device.id}`,
      after: { name },
      at,
    });
    return device;
  });
  return { device, token };
}

/** The enrolled device of a cookie's token, its use recorded; null for no token, a revoked or unknown one. */
export async function resolveDevice(db: Db, clock: Clock, token: string | undefined): Promise<Device | null> {
  if (!token) return null;
  const device = await deviceByTokenHash(db, hashToken(token));
  if (!device) return null;
  const now = clock.now();
  await touchDevice(db, device.id, now, new Date(now.getTime() - TOUCH_EVERY_MS));
  return device;
}

/**
 * A sign-in on the tablet: it is now the tablet's last driver, and its browser summary is brought up to
 * date (a browser updated since enrolment says so).
 */
export async function noteDeviceSignIn(
  db: Db,
  clock: Clock,
  input: { deviceId: number; userId: number; userAgent?: string },
): Promise<void> {
  await recordDeviceSignIn(db, {
    id: input.deviceId,
    userId: input.userId,
    browser: browserSummary(input.userAgent),
    at: clock.now(),
  });
}

/** Renames a tablet (validated like enrolment's name), audited like enrolment and revocation. */
export async function renameDevice(
  db: Db,
  clock: Clock,
  input: { id: number; name: string; actorId: number },
): Promise<void> {
  const name = cleanName(input.name);
  await db.transaction().execute(async (tx) => {
    const before = await deviceNameForUpdate(tx, input.id);
    if (!before) throw new DomainError("not_found", "Tablet not found.");
    if (before.name === name) return;
    await setDeviceName(tx, input.id, name);
    // Audit trail (docs/dashboard.md "Audit trail").
    await insertAuditEntry(tx, {
      actorId: input.actorId,
      action: "tablet.rename",
      subject: `device:${input.id}`,
      before,
      after: { name },
      at: clock.now(),
    });
  });
}

export const enrolledDevices = (db: Db) => listDevices(db);
export type EnrolledDevice = Awaited<ReturnType<typeof enrolledDevices>>[number];

/**
 * Revokes a tablet: its cookie stops working, the sessions opened on it end (deleting the row deletes them:
 * sessions.device_id cascades) and its PIN windows are forgotten, all in one transaction.
 */
export async function revokeDevice(db: Db, id: number, actorId: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const device = await deleteDevice(tx, id);
    if (!device) throw new DomainError("not_found", "Tablet not found.");
    await clearClientPinWindows(tx, tabletClient(id));
    // Audit trail (docs/dashboard.md "Audit trail").
    await insertAuditEntry(tx, { actorId, action: "tablet.revoke", subject: `device:${id}`, before: device });
  });
}
