/**
 * Baseline for the search benchmark: a bare `Deno.serve` handler running the same SQL as the service's
 * direct search, with no framework, no validation and no query builder at request time (the claim
 * resolution's text is compiled once from the service's builder, so it cannot drift). Reads DATABASE_URL
 * (server) or DATA_DIR (embedded) and PORT from the environment; run only by tasks/bench.ts. Its /healthz
 * answers once the database does (`select 1`), like the service's, so it is also the floor of the restart
 * and idle memory figures (bench/startup.ts): a bare Deno process opening the same database.
 */
import { sql } from "kysely";
import { claimResolutionColumns, claimResolutionCtes } from "@/db/queries/claims.ts";
import { sqlCompiler } from "@/db/queries/compiled.ts";
import { openBareDb } from "@/bench/bare_db.ts";

const query = await openBareDb();

// The service resolves the claim (D11) in one statement; its text is compiled here, once, from the
// service's own builder (no Kysely at request time), with markers where each request's values go.
const NORM = {};
const PATTERN = {};
const resolution = sql`with ${
  claimResolutionCtes({ norm: NORM, pattern: PATTERN, flow: "direct", pinned: null })
}
  select ${claimResolutionColumns}`.compile(sqlCompiler);
const norm = (s: string) => s.trim().replace(/[\s-]+/g, "").toUpperCase();

async function search(email: string, rego: string) {
  // The service resolves the acting user first (D9): the same query, so both sides run the same SQL.
  const [user] = await query("select * from users where email = $1 and active = true", [email.toLowerCase()]);
  if (!user) return { result: { status: "failure", text: "User not found." }, code: 3000 };
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
  const [management] = await query(
    `select cm.repairer_id, r.name as repairer_name from claim_management cm
     left join repairers r on r.id = cm.repairer_id where cm.claim_id = $1`,
    [claim.id],
  );
  const parts = await query(
    "select id, description, part_no from parts_orders where claim_id = $1 and status = 'Arrived' order by id",
    [claim.id],
  );
  return {
    result: {
      data: {
        repairer: management.repairer_id,
        form_name: "pickup",
        movement_type: "direct",
        rego,
        parts_list: parts.map((p) => ({
          parts_order_id: p.id,
          description: p.description,
          order_status: "Arrived",
          part_no: p.part_no,
        })),
        repairer_name: management.repairer_name,
        claim_number: claim.claim_number,
      },
      status: "success",
    },
    code: 3000,
  };
}

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
  if (new URL(req.url).pathname === "/healthz") {
    await query("select 1", []);
    return new Response("ok");
  }
  const body = await req.json();
  return Response.json(await search(body.payload.user_email, body.payload.details.rego));
});
