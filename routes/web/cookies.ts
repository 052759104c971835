/**
 * The service's own cookies (the session, an enrolled tablet's device cookie): one place decides their
 * name and attributes. Outside development a cookie carries the `__Host-` prefix, so the browser keeps it
 * only when it was set over TLS by this very host with Path=/: a sibling subdomain cannot plant or shadow
 * it. Development runs on plain http://localhost, where such a cookie would be refused, so there it keeps
 * its bare name.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Config } from "@/io/config.ts";

export interface OwnCookie {
  /** The name the browser sends (with `__Host-` outside development). */
  readonly name: string;
  get(c: Context): string | undefined;
  /** Without `maxAgeSeconds` the cookie ends with the browser session. */
  set(c: Context, value: string, maxAgeSeconds?: number): void;
  clear(c: Context): void;
}

export function ownCookie(config: Pick<Config, "appEnv">, base: string): OwnCookie {
  const hostOnly = config.appEnv !== "development";
  const name = hostOnly ? `__Host-${base}` : base;
  return {
    name,
    get: (c) => getCookie(c, name),
    set: (c, value, maxAgeSeconds) =>
      setCookie(c, name, value, {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
        secure: hostOnly,
        ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
      }),
    clear: (c) => deleteCookie(c, name, { path: "/", secure: hostOnly }),
  };
}
