/**
 * `GET /hq/live`: the live dashboard's event stream (server-sent events, docs/dashboard.md "Live updates").
 * Staff only (mounted in the staff area). Events: `ready` once the stream listens (nothing committed after it
 * is missed), then `change` with the topic (`movements`, `parts`, `announcements`, or `all` after the
 * database listener reconnected) for every change committed by any instance on the database, and `end` when
 * the session is over: its idle time is up (the stream does not keep a session alive: it is a passive
 * request, routes/web/session.ts), or it ended otherwise (signed out, the user deactivated or no longer
 * staff, the tablet it was opened on revoked). The stream re-reads its session from the database, passively,
 * every `config.liveSessionCheckMs` (5 s), so a session ended by any instance on the same database closes
 * it within that time; then the page stops listening. A stopping server ends every
 * stream (stopChangeFeed); the browser then reconnects, to another instance or this one once it is back. A
 * comment every 25 s keeps proxies from closing it.
 */
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { Role } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { subscribeChanges } from "@/lib/live/feed.ts";
import { resolveCookies, sessionCookies, type SessionEnv } from "@/routes/web/session.ts";

const HEARTBEAT_MS = 25_000;
const STAFF: readonly Role[] = ["dispatcher", "admin"];

/**
 * The stream for the sessions of `roles`: staff here; the tablet mounts the same stream for drivers and
 * admins at `/tablet/api/live` (routes/tablet/api.ts), so its run sheet refreshes on `runs`, `movements` and
 * `parts` (docs/runs.md "The tablet's JSON").
 */
export function liveRoutes(deps: AppDeps, roles: readonly Role[] = STAFF) {
  const app = new Hono<SessionEnv>();
  app.get("/", async (c) => {
    const session = c.var.session;
    if (!session) throw new Error("/hq/live reached without a session: the access guard is missing");
    let endsAt = session.expiresAt.getTime();
    const cookies = sessionCookies(c, deps.config);
    const checkMs = deps.config.liveSessionCheckMs;
    /** The session's end as it stands now; null when it is over (or no longer staff). */
    const sessionEndsAt = async (): Promise<number | null> => {
      try {
        const now = (await resolveCookies(deps, cookies, { passive: true }))?.session;
        return now && roles.includes(now.user.role) ? now.expiresAt.getTime() : null;
      } catch {
        // The database did not answer: keep what we knew; the next check asks again.
        return endsAt;
      }
    };
    // nginx (deploy/nginx.conf) buffers proxied answers by default: events must pass at once.
    c.header("X-Accel-Buffering", "no");
    const pending: string[] = [];
    let wake = () => {};
    let closed = false;
    // Listening before the answer starts: a database that cannot be reached is a 503, not an empty stream.
    const unsubscribe = await subscribeChanges(deps.db, (change) => {
      if (change === "closed") closed = true;
      else pending.push(change);
      wake();
    });
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => wake());
      try {
        await stream.writeSSE({ event: "ready", data: "" });
        let lastWrite = Date.now();
        let lastCheck = Date.now();
        while (!stream.aborted && !closed) {
          if (Date.now() - lastCheck >= checkMs) {
            lastCheck = Date.now();
            const still = await sessionEndsAt();
            if (still === null) {
              await stream.writeSSE({ event: "end", data: "" });
              break;
            }
            endsAt = still;
          }
          const left = endsAt - deps.clock.now().getTime();
          if (left <= 0) {
            await stream.writeSSE({ event: "end", data: "" });
            break;
          }
          for (const topic of pending.splice(0)) {
            await stream.writeSSE({ event: "change", data: topic });
            lastWrite = Date.now();
          }
          if (Date.now() - lastWrite >= HEARTBEAT_MS) {
            await stream.write(": keep-alive\n\n");
            lastWrite = Date.now();
          }
          if (pending.length > 0 || closed) continue;
          await new Promise<void>((resolve) => {
            const untilCheck = Math.max(0, checkMs - (Date.now() - lastCheck));
            const timer = setTimeout(resolve, Math.min(left, HEARTBEAT_MS, untilCheck));
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      } finally {
        await unsubscribe();
      }
    });
  });
  return app;
}
