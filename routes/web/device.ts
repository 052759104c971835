/**
 * The device cookie of an enrolled depot tablet (lib/devices.ts): set by the dashboard's enrolment page,
 * read by the tablet's sign-in. `__Host-pm_device` outside development (routes/web/cookies.ts).
 */
import type { Context } from "hono";
import type { Config } from "@/io/config.ts";
import type { Device } from "@/db/schema.ts";
import type { Db } from "@/db/client.ts";
import type { Clock } from "@/io/clock.ts";
import { DEVICE_COOKIE_MAX_AGE_S, resolveDevice } from "@/lib/devices.ts";
import { type OwnCookie, ownCookie } from "@/routes/web/cookies.ts";

export const deviceCookie = (config: Pick<Config, "appEnv">): OwnCookie => ownCookie(config, "pm_device");

/** Gives the browser the device cookie (again: each visit renews its 400 days). */
export function setDeviceCookie(c: Context, config: Pick<Config, "appEnv">, token: string): void {
  deviceCookie(config).set(c, token, DEVICE_COOKIE_MAX_AGE_S);
}

/** The enrolled device this request comes from, or null. */
export async function requestDevice(
  c: Context,
  deps: { db: Db; clock: Clock; config: Pick<Config, "appEnv"> },
): Promise<Device | null> {
  return await resolveDevice(deps.db, deps.clock, deviceCookie(deps.config).get(c));
}
