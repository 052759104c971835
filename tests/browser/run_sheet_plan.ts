/**
 * HQ's plan for the run sheet's browser test: a dispatcher assigns stops to a driver and orders them.
 */
import type { Browser } from "@/testkit/browser.ts";
import { isoInZone } from "@/io/time_zone.ts";
import type { Demo } from "./tablet_setup.ts";

/**
 * Assigns `shops` (in this order) to `driver` for the depot's today, and says how it was done. Written
 * straight to `run_stops` (the contract's table) by the dispatcher.
 */
export async function planTwoStops(
  d: Demo,
  _browser: Browser,
  driver: string,
  shops: string[],
): Promise<string> {
  const { db } = d.a;
  const date = isoInZone(d.a.clock.now(), d.a.config.depotTimeZone).slice(0, 10);
  const user = await db.selectFrom("users").select("id").where("name", "=", driver).executeTakeFirstOrThrow();
  const dispatcher = await db.selectFrom("users").select("id").where("role", "=", "dispatcher")
    .executeTakeFirstOrThrow();
  for (const [i, name] of shops.entries()) {
    const shop = await db.selectFrom("repairers").select("id").where("name", "=", name)
      .executeTakeFirstOrThrow();
    await db.insertInto("run_stops").values({
      run_date: date,
      repairer_id: shop.id,
      driver_id: user.id,
      position: i + 1,
      updated_by: dispatcher.id,
      updated_at: d.a.clock.now(),
    }).execute();
  }
  return "in the database";
}
