/**
 * Return requests raced on the PostgreSQL server (docs/return-requests.md "Races"), through the dashboard's
 * own HTTP routes, each side started after a random delay until both outcomes were seen
 * (tests/helpers/races.ts):
 * - an approval against a decline of the same request (two dispatchers): exactly one decides it, the other
 *   is told who did and writes nothing;
 * - an approval against another dispatcher's correction of one of the parts: whichever is first wins, the
 *   other writes nothing for that part, and the part's status always matches its last history row.
 */
import assert from "node:assert/strict";
import type { PartStatus } from "@/db/schema.ts";
import { serverAppTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { requestReturn } from "@/lib/return_requests.ts";
import { type HqClient, signedIn } from "@/tests/helpers/hq.ts";
import { jittered, raceUntilBothWin } from "@/tests/helpers/races.ts";

const AT_SHOP: PartStatus = "Delivered to Repair Shop directly";

async function openRequest(a: TestApp, partCount: number) {
  const { claim, parts } = await makeClaim(a.db, {
    parts: Array.from({ length: partCount }, () => ({ status: AT_SHOP })),
  });
  const driver = await makeUser(a.db, { role: "driver" });
  const { request } = await requestReturn(a, driver, {
    rego: claim.registration,
    partIds: parts.map((p) => p.id),
    clientKey: crypto.randomUUID(),
  });
  return { request, parts };
}

async function partState(a: TestApp, partId: number) {
  const part = await a.db.selectFrom("parts_orders").select("status").where("id", "=", partId)
    .executeTakeFirstOrThrow();
  const history = await a.db.selectFrom("part_status_history").selectAll().where("part_id", "=", partId)
    .orderBy("id").execute();
  return { status: part.status, history };
}

const bodyOf = async (res: Response) => ({ status: res.status, text: await res.text() });

serverAppTest(
  "return request races: an approval and a decline of the same request: exactly one decides it",
  async (a) => {
    const [one, two]: HqClient[] = [await signedIn(a, "dispatcher"), await signedIn(a, "dispatcher")];
    await raceUntilBothWin(["approve", "decline"], async () => {
      const { request, parts } = await openRequest(a, 2);
      const [approve, decline] = await Promise.all([
        jittered(() => one.post(`/hq/return-requests/${request.id}/approve`).then(bodyOf)),
        jittered(() =>
          two.post(`/hq/return-requests/${request.id}/decline`, { reason: "Not yet" }).then(bodyOf)
        ),
      ]);
      const row = await a.db.selectFrom("return_requests").selectAll().where("id", "=", request.id)
        .executeTakeFirstOrThrow();
      const states = await Promise.all(parts.map((p) => partState(a, p.id)));
      const audit = await a.db.selectFrom("audit_log").select("action")
        .where("subject", "=", `return_request:${request.id}`).execute();
      assert.equal(audit.length, 1, "one decision audited");
      if (row.state === "approved") {
        assert.equal(approve.status, 303);
        assert.equal(decline.status, 422);
        assert.match(
          decline.text,
          new RegExp(`was already approved by ${one.user.name}; nothing was changed`),
        );
        for (const s of states) {
          assert.equal(s.status, "Pending Repair Shop Pick-Up");
          assert.equal(s.history.length, 1);
        }
        return "approve";
      }
      assert.equal(row.state, "declined");
      assert.equal(decline.status, 303);
      assert.equal(approve.status, 422);
      assert.match(approve.text, new RegExp(`was already declined by ${two.user.name}; nothing was changed`));
      for (const s of states) {
        assert.equal(s.status, AT_SHOP);
        assert.equal(s.history.length, 0);
      }
      return "decline";
    });
  },
  { poolSize: 6 },
);

serverAppTest(
  "return request races: an approval against a correction of its part: one wins, the other writes nothing",
  async (a) => {
    const [one, two]: HqClient[] = [await signedIn(a, "dispatcher"), await signedIn(a, "dispatcher")];
    await raceUntilBothWin(["approval", "correction"], async () => {
      const { request, parts } = await openRequest(a, 1);
      const [approve, correct] = await Promise.all([
        jittered(() => one.post(`/hq/return-requests/${request.id}/approve`).then(bodyOf)),
        jittered(() =>
          two.post(`/hq/parts/${parts[0].id}/status`, {
            from: AT_SHOP,
            to: "Arrived",
            reason: "Never left HQ",
          }).then(bodyOf)
        ),
      ]);
      const s = await partState(a, parts[0].id);
      assert.equal(s.history.length, 1, "exactly one change of the part");
      assert.equal(s.history[0].to_status, s.status, "the status is its last history row's");
      const row = await a.db.selectFrom("return_requests").select("state").where("id", "=", request.id)
        .executeTakeFirstOrThrow();
      if (s.status === "Pending Repair Shop Pick-Up") {
        assert.equal(approve.status, 303);
        assert.equal(correct.status, 409);
        assert.match(correct.text, /changed to Pending Repair Shop Pick-Up while you were looking/);
        assert.equal(row.state, "approved");
        return "approval";
      }
      assert.equal(s.status, "Arrived");
      assert.equal(correct.status, 303);
      // Its one part moved: nothing to approve, the request stays open for a decline.
      assert.equal(approve.status, 422);
      assert.match(approve.text, /is at the repair shop any more/);
      assert.equal(row.state, "open");
      return "correction";
    });
  },
  { poolSize: 6 },
);
