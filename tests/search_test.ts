import assert from "node:assert/strict";
import { appTest, type TestApp } from "@/tests/helpers/app.ts";
import { makeClaim, makeHq, makeRepairer, makeUser } from "@/tests/helpers/factories.ts";

async function driver(a: TestApp) {
  return (await makeUser(a.db, { role: "driver" })).email;
}

const search = (email: string, rego: unknown, movement_type: unknown = "direct") => ({
  event_type: "Parts_search_details",
  user_email: email,
  details: { rego, movement_type },
});

appTest("Parts_search_details direct: answers the repairer, echoed rego and the Arrived parts, IDs as numbers", async (a) => {
  const email = await driver(a);
  const shop = await makeRepairer(a.db);
  const { parts } = await makeClaim(a.db, {
    registration: "ABC 123",
    management: shop.id,
    parts: [{ status: "Arrived", description: "Front bumper" }, { status: "Ordered" }, { status: "Arrived" }],
  });
  const res = await a.handler(search(email, "abc-123"));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  const body = await res.json();
  assert.equal(body.code, 3000);
  assert.equal(body.result.status, "success");
  const data = body.result.data;
  assert.equal(data.repairer, shop.id);
  assert.equal(data.form_name, "pickup");
  assert.equal(data.movement_type, "direct");
  assert.equal(data.rego, "abc-123");
  assert.deepEqual(
    data.parts_list.map((p: Record<string, unknown>) => [p.parts_order_id, p.description, p.order_status]),
    [[parts[0].id, "Front bumper", "Arrived"], [parts[2].id, parts[2].description, "Arrived"]],
  );
  assert.equal(typeof data.parts_list[0].parts_order_id, "number");
});
