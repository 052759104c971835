/**
 * `GET /hq/live`: the live dashboard's event stream (server-sent events, docs/dashboard.md "Live updates",
 * docs/live-streams.md). Staff only (mounted in the staff area). Events: `ready` once the stream listens
 * (nothing committed after it is missed), then `change` with the topic (`movements`, `parts`,
 * `announcements`, or `all` after the database listener reconnected) for every change committed by any
 * instance on the database, and `end` when the session is over: its idle time is up (the stream does not keep
 * a session alive: it is a passive request, routes/web/session.ts), or it ended otherwise (signed out, the
 * user deactivated or no longer staff, the tablet it was opened on revoked). Every open stream's session is
 * re-read from the database, passively, every `config.liveSessionCheckMs` (5 s), all of a mount's streams in
 * one statement (lib/live/streams.ts), so a session ended by any instance on the same database closes its
 * streams within that time; then the page stops listening. A stopping server ends every stream
 * (stopChangeFeed); the browser then reconnects, to another instance or this one once it is back. A comment
 * at least every 25 s keeps proxies from closing it.
 */
import { Hono } from "hono";
import type { Role } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { LiveStreams } from "@/lib/live/streams.ts";
import { sessionCookies, type SessionEnv } from "@/routes/web/session.ts";

const STAFF: readonly Role[] = ["dispatcher", "admin"];

/**
 * The stream for the sessions of `roles`: staff here; the tablet mounts the same stream for drivers and
 * admins at `/tablet/api/live` (routes/tablet/api.ts), so its run sheet refreshes on `runs`, `movements` and
 * `parts` (docs/runs.md "The tablet's JSON").
 */
export function liveRoutes(deps: AppDeps, roles: readonly Role[] = STAFF) {
  const app = new Hono<SessionEnv>();
  const streams = new LiveStreams(deps, roles);
  app.get("/", async (c) => {
    const session = c.var.session;
    if (!session) throw new Error("/hq/live reached without a session: the access guard is missing");
    const { token, deviceToken } = sessionCookies(c, deps.config);
    if (!token) throw new Error("/hq/live: a session without its cookie");
    // Listening before the answer starts: a database that cannot be reached is a 503, not an empty stream.
    const body = await streams.open({ token, deviceToken }, session.expiresAt.getTime());
    return c.body(body, 200, {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache",
      // nginx (deploy/nginx.conf) buffers proxied answers by default: events must pass at once.
      "X-Accel-Buffering": "no",
    });
  });
  return app;
}
