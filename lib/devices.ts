/**
 * Enrolled depot tablets (docs/tablet.md "Enrolling a tablet"). The tablet's driver list and PIN sign-in
 * answer only on a browser an admin enrolled from the dashboard (routes/hq/admin_tablets.tsx), done on the
 * tablet itself while signed in there: it gets a long-lived device cookie holding a random token, of which
 * only the SHA-256 is stored. Revoking deletes the row (and the tablet's PIN windows), so the cookie is
 * worthless at once. Wrong PINs on a tablet count per user and device (lib/pin_attempts.ts), so a stranger's
 * device, which cannot be enrolled, cannot lock a driver out of the depot's own tablets.
 */
import type { Db } from "@/db/client.ts";
import { insertAuditEntry } from "@/db/queries/audit.ts";
import type { Device } from "@/db/schema.ts";
import {
  deleteDevice,
  deviceByTokenHash,
  insertDevice,
  listDevices,
  touchDevice,
} from "@/db/queries/devices.ts";
import { clearClientPinWindows } from "@/db/queries/pin_attempts.ts";
import type { Clock } from "@/io/clock.ts";
import { hashToken, randomToken } from "@/io/tokens.ts";
import { DomainError } from "@/lib/errors.ts";
import { isLineText } from "@/lib/validation.ts";
import { tabletClient } from "@/lib/pin_attempts.ts";

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
  input: { name: string; enrolledBy: number | null },
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

export const enrolledDevices = (db: Db) => listDevices(db);
export type EnrolledDevice = Awaited<ReturnType<typeof enrolledDevices>>[number];

/** Revokes a tablet: its cookie stops working and its PIN windows are forgotten. */
export async function revokeDevice(db: Db, id: number, actorId: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const device = await deleteDevice(tx, id);
    if (!device) throw new DomainError("not_found", "Tablet not found.");
    await clearClientPinWindows(tx, tabletClient(id));
    // Audit trail (docs/dashboard.md "Audit trail").
    await insertAuditEntry(tx, { actorId, action: "tablet.revoke", subject: `device:${id}`, before: device });
  });
}
