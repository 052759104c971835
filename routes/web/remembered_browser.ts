/**
 * The remembered-browser cookie of the dashboard's sign-in (lib/staff_sign_in.ts, docs/sign-in.md
 * "Remembered browsers"): a random token bound to the staff user who signed in on this browser, so that
 * user's wrong passwords here count apart from everyone else's. `__Host-pm_browser` outside development
 * (routes/web/cookies.ts: HttpOnly, SameSite=Strict, Secure, Path=/). Sign-out keeps it: it opens nothing.
 */
import type { Context } from "hono";
import type { Config } from "@/io/config.ts";
import { REMEMBERED_BROWSER_DAYS } from "@/lib/staff_sign_in.ts";
import { type OwnCookie, ownCookie } from "@/routes/web/cookies.ts";

export const rememberedBrowserCookie = (config: Pick<Config, "appEnv">): OwnCookie =>
  ownCookie(config, "pm_browser");

/** Gives the browser its remembered-browser cookie (again: each sign-in renews its 400 days). */
export function setRememberedBrowserCookie(c: Context, config: Pick<Config, "appEnv">, token: string): void {
  rememberedBrowserCookie(config).set(c, token, REMEMBERED_BROWSER_DAYS * 24 * 3600);
}
