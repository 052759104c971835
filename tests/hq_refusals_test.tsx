/**
 * The dashboard's one mapping of a refused form (a DomainError, by kind) to its page answer
 * (routes/hq/refusals.ts), and the parsing of its list queries (lib/dashboard/lists.ts).
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { answerRefusal } from "@/routes/hq/refusals.ts";
import { hqPage } from "@/components/hq/page.tsx";
import { cursorParam, movementQueryOf, PAGE_SIZE, partPageOf, partQueryOf } from "@/lib/dashboard/lists.ts";
import { DomainError, type ErrorKind, ValidationError } from "@/lib/errors.ts";
import { StatusRaced } from "@/lib/part_status.ts";
import type { SessionEnv } from "@/routes/web/session.ts";
import { pageText, withAssets } from "@/tests/helpers/hq.ts";

/** A page whose form always fails with `error`; it shows the refusal's notice and whether input is kept. */
function refusingApp(error: unknown, subject?: string) {
  const app = new Hono<SessionEnv>();
  app.post("/", (c) =>
    answerRefusal(c, error, {
      subject,
      show: (r) =>
        hqPage(
          c,
          { title: "Form", section: "none", status: r.status },
          <p>{r.notice.text} keep={String(r.keepInput)}</p>,
        ),
    }));
  app.onError((error, c) => c.text(`error handler: ${error.message}`, 500));
  return app;
}

const refuse = async (error: unknown, subject?: string) => {
  await withAssets();
  return await refusingApp(error, subject).request("/", { method: "POST" });
};

Deno.test("hq refusals: each kind answers the page again with its message, 401 for sign-in kinds, else 422", async () => {
  const expected: Record<ErrorKind, number> = {
    invalid: 422,
    not_found: 422,
    nothing_to_move: 422,
    conflict: 422,
    refused: 422,
    credentials: 401,
    locked: 401,
  };
  for (const [kind, status] of Object.entries(expected)) {
    const text = await pageText(
      await refuse(new DomainError(kind as ErrorKind, `Refused as ${kind}.`)),
      status,
    );
    assert.match(text, new RegExp(`Refused as ${kind}\\. keep=true`), kind);
  }
  assert.match(
    await pageText(await refuse(new ValidationError("name", "is required")), 422),
    /name is required/,
  );
});

Deno.test("hq refusals: the page's own subject missing is the 404 page; a race is 409 without the input", async () => {
  const missing = await pageText(await refuse(new DomainError("not_found", "Part not found."), "part"), 404);
  assert.match(missing, /Not found This part does not exist\./);
  const raced = await pageText(await refuse(new StatusRaced("PN-1", "Arrived", 1), "part"), 409);
  assert.match(raced, /PN-1 changed to Arrived while you were looking; nothing was changed\. keep=false/);
  // Not a refusal but a bug: rethrown for the app's error handler.
  const bug = await refuse(new Error("boom"));
  assert.equal(bug.status, 500);
  assert.equal(await bug.text(), "error handler: boom");
});

Deno.test("hq lists: filters are trimmed, the rego normalised for the search, unknown values ignored, the page number bounded", () => {
  assert.deepEqual(
    partQueryOf({ rego: " a-bc ", claim: "", status: "Bogus", repairer: "12", page: "2", other: "x" }),
    {
      query: { rego: "a-bc", status: "Bogus", repairer: "12" },
      filters: { rego: "ABC", claim: undefined, status: undefined, repairerId: 12, text: undefined },
      sort: { column: "since", dir: "desc" },
    },
  );
  assert.deepEqual(partQueryOf({ sort: "qty" }).sort, { column: "qty", dir: "asc" });
  assert.deepEqual(partQueryOf({ sort: "qty", dir: "desc" }).query, { sort: "qty", dir: "desc" });
  assert.deepEqual(partQueryOf({ status: "Arrived", repairer: "abc" }).filters.status, "Arrived");
  assert.equal(partQueryOf({ repairer: "99999999999" }).filters.repairerId, undefined);
  const now = new Date("2026-11-21T09:00:00Z");
  assert.deepEqual(
    movementQueryOf({ type: "reverse", status: "Parts Picked Up", driver: "0" }, now, "UTC").filters,
    {
      type: "reverse",
      status: "Parts Picked Up",
      rego: undefined,
      driverId: undefined,
      pickedUp: undefined,
    },
  );
  assert.deepEqual(movementQueryOf({ type: "sideways" }, now, "UTC").filters.type, undefined);
  // Keyset pages: a cursor round-trips; the old offset `page` (any value) is the first page.
  const since = { column: "since", dir: "desc" } as const;
  const at = { value: "2026-11-20T12:00:00.000001Z", id: 7 };
  assert.deepEqual(partPageOf({ after: cursorParam(since, at) }, since), { limit: PAGE_SIZE, after: at });
  assert.deepEqual(partPageOf({ before: cursorParam(since, at) }, since), { limit: PAGE_SIZE, before: at });
  for (const page of ["3", "-3", "0", "1.5", "abc", "10001", ""]) {
    assert.deepEqual(partPageOf({ page }, since), { limit: PAGE_SIZE }, page);
  }
  assert.deepEqual(partPageOf({}, since), { limit: PAGE_SIZE });
  assert.throws(() => partPageOf({ after: cursorParam(since, at) }, { column: "qty", dir: "desc" }), /after/);
});
