/**
 * The demo driver (dana@depot.example, PIN 4821) on a depot tablet, for the benches that open tablet pages:
 * the device enrolled as an admin would (lib/devices.ts), then the PIN form's fields. Drivers sign in only
 * on an enrolled tablet (docs/tablet.md), so both are needed before the sign-in form answers 303.
 */
import type { Db } from "@/db/client.ts";
import type { Config } from "@/io/config.ts";
import { systemClock } from "@/io/clock.ts";
import { enrolDevice } from "@/lib/devices.ts";
import { deviceCookie } from "@/routes/web/device.ts";

/** Enrols a bench tablet; returns its device cookie. */
export async function enrolBenchTablet(db: Db, config: Config): Promise<{ name: string; value: string }> {
  const { token } = await enrolDevice(db, systemClock, { name: "Bench tablet", enrolledBy: null });
  return { name: deviceCookie(config).name, value: token };
}

/** The sign-in form's fields for the demo driver, going on to the tablet's home. */
export async function demoDriverForm(db: Db): Promise<Record<string, string>> {
  const user = await db.selectFrom("users").select("id").where("email", "=", "dana@depot.example")
    .executeTakeFirstOrThrow();
  return { user_id: String(user.id), pin: "4821", next: "/tablet" };
}
