/**
 * `POST /tablet/api/scan` (docs/labels.md "The scan endpoint", lib/labels/resolve.ts): a label code names
 * its part, claim and rego; each refusal is a 422 `{message}`: an unknown code, a wrong check character, a
 * part of another claim than the one on screen, a part not ready for the job, and a supplier's part number
 * that is not unique on the claim on screen (or sent with no claim on screen). PGlite and the server.
 */
import assert from "node:assert/strict";
import type { PartStatus } from "@/db/schema.ts";
import { labelCode } from "@/lib/labels/code.ts";
import { SMALL_BODY_LIMIT } from "@/routes/web/body_limits.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

async function setup(
  a: TestApp,
  statuses: PartStatus[] = ["Arrived", "Ordered", "Pending Repair Shop Pick-Up"],
) {
  const shop = await makeRepairer(a.db);
  const { claim, parts } = await makeClaim(a.db, {
    registration: "SCN 123",
    claimNumber: "CLM-SCAN-1",
    management: shop.id,
    parts: statuses.map((status, i) => ({ status, part_no: `52119-0K04${i}` })),
  });
  const other = await makeClaim(a.db, {
    registration: "OTH 999",
    claimNumber: "CLM-OTHER",
    management: shop.id,
    parts: [{ status: "Arrived", part_no: "52119-0K040" }],
  });
  const t = new Tablet(a);
  await t.signIn(await makeDriver(a));
  return { claim, parts, other, t };
}

async function scan(t: Tablet, body: unknown, status: number) {
  const res = await t.postJson("/tablet/api/scan", body);
  assert.equal(res.status, status, await res.clone().text());
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  return await res.json();
}

appTest(
  "label scan: a code names its part, claim and rego, with or without the claim and job on screen",
  async (a) => {
    const { parts, t } = await setup(a);
    const answer = {
      part_id: parts[0].id,
      part_no: "52119-0K040",
      claim_number: "CLM-SCAN-1",
      rego: "SCN 123",
    };
    const code = labelCode(parts[0].id);
    assert.deepEqual(await scan(t, { code }, 200), answer);
    // As typed: lower case, O for 0, spaces.
    assert.deepEqual(await scan(t, { code: ` ${code.toLowerCase().replaceAll("0", "o")} ` }, 200), answer);
    assert.deepEqual(await scan(t, { code, job: "deliver" }, 200), answer);
    assert.deepEqual(await scan(t, { code, job: "deliver", rego: "scn123" }, 200), answer);
    const collect = await scan(t, { code: labelCode(parts[2].id), job: "collect", rego: "SCN 123" }, 200);
    assert.equal(collect.part_id, parts[2].id);
  },
);

appTest("label scan: an unknown code and a wrong check character are refused, saying which", async (a) => {
  const { t } = await setup(a);
  const unknown = labelCode(999_999);
  assert.deepEqual(await scan(t, { code: unknown }, 422), {
    message: `No part has the label code ${unknown}.`,
  });
  const good = labelCode(1);
  const last = good.at(-1) === "Z" ? "Y" : "Z";
  const bad = good.slice(0, -1) + last;
  const refusal = await scan(t, { code: bad, job: "deliver", rego: "SCN 123" }, 422);
  assert.match(
    refusal.message,
    new RegExp(`^${bad} is not a valid label code: its last character does not match`),
  );
});

appTest(
  "label scan: a part of another claim than the one on screen is refused and names its claim",
  async (a) => {
    const { other, t } = await setup(a);
    const refusal = await scan(
      t,
      { code: labelCode(other.parts[0].id), job: "deliver", rego: "SCN 123" },
      422,
    );
    assert.deepEqual(refusal, {
      message: "52119-0K040 is a part of claim CLM-OTHER (rego OTH 999), not of this claim.",
      part_id: other.parts[0].id,
    });
  },
);

appTest("label scan: a part not in the job's starting status is not ready for this job", async (a) => {
  const { parts, t } = await setup(a);
  // Ordered: not at HQ yet; on the rego step (no claim on screen) as on the parts step.
  for (const body of [{ job: "deliver" }, { job: "deliver", rego: "SCN 123" }]) {
    assert.deepEqual(await scan(t, { code: labelCode(parts[1].id), ...body }, 422), {
      message: "52119-0K041 is not ready to deliver: it is not waiting at HQ.",
      part_id: parts[1].id,
    });
  }
  assert.deepEqual(await scan(t, { code: labelCode(parts[0].id), job: "collect", rego: "SCN 123" }, 422), {
    message: "52119-0K040 is not ready to collect: it is not flagged for return.",
    part_id: parts[0].id,
  });
  assert.deepEqual(await scan(t, { code: labelCode(parts[0].id), job: "return" }, 422), {
    message: "52119-0K040 is not ready to return to HQ: it is not on the truck.",
    part_id: parts[0].id,
  });
});

appTest(
  "label scan: a supplier's part number names a part only where it is unique on the claim on screen",
  async (a) => {
    const { parts, t } = await setup(a, ["Arrived", "Arrived", "Arrived"]);
    // The database keeps part numbers unique on a claim; read ignoring case and spaces, two may still match.
    await a.db.updateTable("parts_orders").set({ part_no: "DUP-1" }).where("id", "=", parts[1].id).execute();
    await a.db.updateTable("parts_orders").set({ part_no: "dup-1 " }).where("id", "=", parts[2].id).execute();
    // Unique on the claim on screen (the other claim has the same number: not on screen, not counted).
    assert.deepEqual(await scan(t, { code: " 52119-0k040 ", job: "deliver", rego: "SCN 123" }, 200), {
      part_id: parts[0].id,
      part_no: "52119-0K040",
      claim_number: "CLM-SCAN-1",
      rego: "SCN 123",
    });
    assert.deepEqual(await scan(t, { code: "DUP-1", job: "deliver", rego: "SCN 123" }, 422), {
      message: "Several parts of this claim have the part number DUP-1: scan their PM- labels instead.",
    });
    assert.deepEqual(await scan(t, { code: "NOPE-7", rego: "SCN 123" }, 422), {
      message: "No part of this claim has the part number NOPE-7.",
    });
    assert.deepEqual(await scan(t, { code: "52119-0K040", job: "deliver" }, 422), {
      message:
        "52119-0K040 is not a label code (they start with PM-). Open the claim first to match a part number.",
    });
    // A supplier's number that itself starts with PM-: on the claim on screen it is that part.
    await a.db.updateTable("parts_orders").set({ part_no: "PM-77" }).where("id", "=", parts[0].id).execute();
    assert.equal((await scan(t, { code: "pm-77", rego: "SCN 123" }, 200)).part_id, parts[0].id);
    assert.match((await scan(t, { code: "PM-77" }, 422)).message, /^PM-77 is not a valid label code/);
  },
);

appTest("label scan: the input is checked (zod) and a rego on screen must find its claim", async (a) => {
  const { t } = await setup(a);
  assert.deepEqual(await scan(t, { code: "" }, 422), { message: "Invalid request: code is too short." });
  assert.deepEqual(await scan(t, { code: "x".repeat(65) }, 422), {
    message: "Invalid request: code is too long.",
  });
  assert.deepEqual(await scan(t, { code: "PM-1\u0000" }, 422), {
    message: "Invalid request: code must not contain control characters.",
  });
  assert.deepEqual(await scan(t, { code: "PM-00012", job: "fly" }, 422), {
    message: "Invalid request: job must be one of deliver, collect, return.",
  });
  assert.deepEqual(await scan(t, { code: labelCode(1), rego: "NOSUCH" }, 422), { message: "Rego not found" });
  const res = await t.request("/tablet/api/scan", {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": t.csrf },
    body: "{",
  });
  assert.equal(res.status, 422);
  assert.deepEqual(await res.json(), { message: "Request body must be JSON." });
  // Read under the tablet API's 64 KiB cap, as its other JSON endpoints.
  const big = await t.postJson("/tablet/api/scan", { code: labelCode(1), pad: "x".repeat(SMALL_BODY_LIMIT) });
  assert.equal(big.status, 413);
  await big.body?.cancel();
});
