/**
 * The service's search without its HTTP layer (docs/performance.md "Search path": where the gap to the bare
 * baseline goes).
 * A bare `Deno.serve` handler doing, with the service's own code, what routes/api/handler.ts does between
 * the body and the answer: JSON, the event's zod schema, the event (its statements on one pooled connection,
 * through the service's query layer) and the success envelope. No Hono and none of the app's middleware:
 * request id and log line, security headers, public key, body limit and pace, rate limits, error mapping.
 *
 * Beside the bare baseline (bench/baseline_search_server.ts: the same SQL, none of the service's code), it
 * splits the service's gap in two: service ÷ this one is what the HTTP layer costs, this one ÷ baseline what
 * the code under it costs. Reads the service's own configuration (DATABASE_URL or DATA_DIR, PORT) and opens
 * the database as tasks/start.ts does; run by bench/search.ts and bench/profiles/search.ts.
 */
import { sql } from "kysely";
import { systemClock } from "@/io/clock.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { parseInput } from "@/lib/validation.ts";
import { success } from "@/routes/api/envelope.ts";
import { eventOf } from "@/routes/api/events/mod.ts";
import { configOrExit, openConfiguredDb } from "@/tasks/setup.ts";
import { closeOnSigterm } from "@/bench/bare_db.ts";

const config = configOrExit();
const db = await openConfiguredDb(config, "serving the bench's search core");
// The search event reads the database and nothing else of its dependencies.
const deps: AppDeps = { db, config, clock: systemClock, storage: undefined as never };

Deno.serve({ port: config.port, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
  if (new URL(req.url).pathname === "/healthz") {
    await sql`select 1`.execute(db);
    return new Response("ok");
  }
  const { payload } = await req.json();
  const event = eventOf(payload.event_type);
  const input = parseInput(event.schema, payload) as { user_email: string };
  return Response.json(
    success(
      await event.run(deps, {
        email: input.user_email,
        roles: config.handlerRoles,
        sourceAddress: "127.0.0.1",
      }, input),
    ),
  );
});

// The database closed before the exit, as the service does (bench/bare_db.ts says why).
closeOnSigterm(() => db.destroy());
