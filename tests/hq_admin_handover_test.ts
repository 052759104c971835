/** `/hq/admin/handover` (docs/handover.md "Policy"): the policy per job, set by an admin and audited. */
import assert from "node:assert/strict";
import { handoverPolicies } from "@/lib/handover/policy.ts";
import { appTest } from "@/testkit/app.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";

const checked = (html: string, leg: string) =>
  /value="(\w+)" checked/.exec(html.slice(html.indexOf(`data-leg="${leg}"`)))?.[1];

appTest("admin handover: the page shows each job's policy; saving one change audits it once", async (a) => {
  const admin = await signedIn(a, "admin");
  const page = await admin.get("/hq/admin/handover");
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /Deliver to a repair shop/);
  assert.match(
    html,
    /href="\/hq\/admin\/handover"[^>]*aria-current="page"|aria-current="page"[^>]*href="\/hq\/admin\/handover"/,
  );
  assert.deepEqual(
    ["direct_dropoff", "reverse_pickup", "reverse_dropoff"].map((leg) => checked(html, leg)),
    ["required", "required", "optional"],
  );

  const saved = await admin.post("/hq/admin/handover", {
    direct_dropoff: "optional",
    reverse_pickup: "required",
    reverse_dropoff: "off",
  });
  assert.equal(saved.status, 303);
  assert.equal(saved.headers.get("location"), "/hq/admin/handover?done=saved");
  assert.deepEqual(await handoverPolicies(a.db), {
    direct_dropoff: "optional",
    reverse_pickup: "required",
    reverse_dropoff: "off",
  });
  const audit = await a.db.selectFrom("audit_log").select([
    "action",
    "subject",
    "before",
    "after",
    "actor_id",
  ])
    .where("action", "=", "handover.policy").orderBy("id").execute();
  assert.deepEqual(audit.map((e) => [e.subject, e.before, e.after, e.actor_id]), [
    ["handover_policy:direct_dropoff", { leg: "direct_dropoff", policy: "required" }, {
      leg: "direct_dropoff",
      policy: "optional",
    }, admin.user.id],
    ["handover_policy:reverse_dropoff", { leg: "reverse_dropoff", policy: "optional" }, {
      leg: "reverse_dropoff",
      policy: "off",
    }, admin.user.id],
  ]);
  const after = await (await admin.get("/hq/admin/handover?done=saved")).text();
  assert.match(after, /Handover policy saved\./);
  assert.equal(checked(after, "direct_dropoff"), "optional");
});

appTest("admin handover: a value that is no policy is refused (422) and nothing changes", async (a) => {
  const admin = await signedIn(a, "admin");
  const res = await admin.post("/hq/admin/handover", {
    direct_dropoff: "off",
    reverse_pickup: "sometimes",
    reverse_dropoff: "optional",
  });
  assert.match(await pageText(res, 422), /Choose required, optional or off for each job\./);
  assert.deepEqual(await handoverPolicies(a.db), {
    direct_dropoff: "required",
    reverse_pickup: "required",
    reverse_dropoff: "optional",
  });
  assert.equal((await a.db.selectFrom("audit_log").select("id").execute()).length, 0);
});

appTest("admin handover: dispatchers may not see or change it", async (a) => {
  const dispatcher = await signedIn(a, "dispatcher");
  assert.equal((await dispatcher.get("/hq/admin/handover")).status, 403);
  assert.equal((await dispatcher.post("/hq/admin/handover", { direct_dropoff: "off" })).status, 403);
  assert.equal((await handoverPolicies(a.db)).direct_dropoff, "required");
});
