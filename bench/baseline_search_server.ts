/**
 * Baseline for the search benchmark: a bare `Deno.serve` handler running the same SQL as the service's
 * direct search, with no framework, no validation and no query builder at request time (each statement's
 * text is compiled once by the service's compiler, the claim resolution's from the service's own builder,
 * so it cannot drift), its four statements on one connection as the service's (`onOneConnection`,
 * db/client.ts): one pool checkout a search on a server database. Reads DATABASE_URL
 * (server) or DATA_DIR (embedded) and PORT from the environment; run only by tasks/bench.ts. Its /healthz
 * answers once the database does (`select 1`), like the service's, so it is also the floor of the restart
 * and idle memory figures (bench/startup.ts): a bare Deno process opening the same database.
 */
import { sql } from "kysely";
import { claimResolutionColumns, claimResolutionCtes } from "@/db/queries/claims.ts";
import { sqlCompiler } from "@/db/queries/compiled.ts";
import { type BareQuery, openBareConnections } from "@/bench/bare_db.ts";
import { startMemoryReducer } from "@/io/memory_reducer.ts";

const onOneConnection = await openBareConnections();

// The service resolves the claim (D11) in one statement; its text is compiled here, once, from the
// service's own builder (no Kysely at request time), with markers where each request's values go.
const NORM = {};
const PATTERN = {};
const resolution = sql`with ${
  claimResolutionCtes({ norm: NORM, pattern: PATTERN, flow: "direct", pinned: null })
}
  select ${claimResolutionColumns}`.compile(sqlCompiler);
const norm = (s: string) => s.trim().replace(/[\s-]+/g, "").toUpperCase();
// The other three statements, as the service's compiled queries build them (db/queries/users.ts, claims.ts,
// parts.ts), with a marker where the request's value goes.
const VALUE = {};
const user = sqlCompiler.selectFrom("users").selectAll()
  .where("email", "=", VALUE as string).where("active", "=", true).compile();
const management = sqlCompiler.selectFrom("claim_management as cm")
  .leftJoin("repairers as r", "r.id", "cm.repairer_id")
  .select(["cm.repairer_id", "r.name as repairer_name"])
  .where("cm.claim_id", "=", VALUE as number).compile();
const arrivedParts = sqlCompiler.selectFrom("parts_orders")
  .select(["id", "description", "part_no"])
  .where("claim_id", "=", VALUE as number).where("status", "=", "Arrived")
  .orderBy("id").compile();
const withValue = (params: readonly unknown[], value: unknown) => params.map((p) => p === VALUE ? value : p);

async function search(query: BareQuery, email: string, rego: string) {
  // The service resolves the acting user first (D9): the same query, so both sides run the same SQL.
  const [found] = await query(user.sql, withValue(user.parameters, email.toLowerCase()));
  if (!found) return { result: { status: "failure", text: "User not found." }, code: 3000 };
  const n = norm(rego);
  const [resolved] = await query(
    resolution.sql,
    resolution.parameters.map((p) =>
      p === NORM ? n : p === PATTERN ? `%${n.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : p
    ),
  );
  if ((resolved.registrations as string[]).length !== 1) {
    return { result: { status: "failure", text: "Rego not found" }, code: 3000 };
  }
  const claim = resolved.claim as { id: number; claim_number: string };
  const [managed] = await query(management.sql, withValue(management.parameters, claim.id));
  const parts = await query(arrivedParts.sql, withValue(arrivedParts.parameters, claim.id));
  return {
    result: {
      data: {
        repairer: managed.repairer_id,
        form_name: "pickup",
        movement_type: "direct",
        rego,
        parts_list: parts.map((p) => ({
          parts_order_id: p.id,
          description: p.description,
          order_status: "Arrived",
          part_no: p.part_no,
        })),
        repairer_name: managed.repairer_name,
        claim_number: claim.claim_number,
      },
      status: "success",
    },
    code: 3000,
  };
}

// The service's memory clean-up in quiet spells (tasks/serve.ts, IDLE_MEMORY_SECONDS, 3 s by default) runs here
// too, so the memory both have left after a load is read alike (bench/search.ts "settled").
const reducer = startMemoryReducer(Number(Deno.env.get("IDLE_MEMORY_SECONDS") ?? 3) * 1000);

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
  if (new URL(req.url).pathname === "/healthz") {
    await onOneConnection((query) => query("select 1", []));
    return new Response("ok");
  }
  reducer.activity();
  const body = await req.json();
  const { user_email, details } = body.payload;
  return Response.json(await onOneConnection((query) => search(query, user_email, details.rego)));
});
