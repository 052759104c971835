/**
 * Placeholder with the signature of the shop page's link (the lead's lib/shops/link.ts on main replaces
 * this file on merge): no shop has a page yet, so no e-mail carries a link.
 */
import type { AppDeps } from "@/lib/deps.ts";

/** The absolute URL of a repair shop's private page; null when it has none. */
export function shopPageUrl(
  _deps: Pick<AppDeps, "db" | "config">,
  _repairerId: number,
): Promise<string | null> {
  return Promise.resolve(null);
}
