import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type { PartsOrdersTable } from "@/db/schema.ts";
import type { Selectable } from "kysely";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeHq, makePhoto, makeUser } from "@/testkit/factories.ts";

type Part = Selectable<PartsOrdersTable>;

const tokenCall = (fields: Record<string, unknown>) => ({
  event_type: "parts_movement_upload_token",
  ...fields,
});

/** A driver and a claim with one part of the given status. */
async function setup(a: TestApp, status: Part["status"] = "Arrived", registration?: string) {
  const user = await makeUser(a.db, { role: "driver" });
  const { claim, parts } = await makeClaim(a.db, { registration, parts: [{ status }] });
  return { user, claim, part: parts[0] };
}

/** A reverse movement still `Parts Picked Up` carrying `parts` (leg 1 done, leg 2 to come). */
async function makeReturnTrip(a: TestApp, claimId: number, driverId: number, parts: Part[]) {
  const hq = await makeHq(a.db);
  const movement = await a.db.insertInto("parts_movements").values({
    claim_id: claimId,
    movement_type: "reverse",
    movement_status: "Parts Picked Up",
    picked_up_by: driverId,
    pick_up_at: a.clock.now(),
    location_type: "HQ",
    hq_location_id: hq.id,
  }).returningAll().executeTakeFirstOrThrow();
  const photo = await makePhoto(a.db, a.storage);
  for (const part of parts) {
    await a.db.insertInto("deliver_parts").values({
      movement_id: movement.id,
      part_id: part.id,
      pickup: true,
      qty_ordered: part.qty_ordered,
      pickup_photo_id: photo.id,
    }).execute();
  }
  return movement;
}

async function failureText(a: TestApp, payload: Record<string, unknown>) {
  const res = await a.handler(payload);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  const body = await res.json();
  assert.equal(body.code, 3000);
  assert.equal(body.result.status, "failure", JSON.stringify(body));
  return body.result.text as string;
}

async function stagedCount(a: TestApp) {
  const { n } = await a.db.selectFrom("uploaded_images").select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return n;
}

appTest(
  "parts_movement_upload_token: answers exactly the 2a fields, stages the record and stores only the token's hash",
  async (a) => {
    const { user, claim, part } = await setup(a);
    const res = await a.handler(tokenCall({
      Parts_Order: String(part.id),
      Movement_Stage: "direct_dropoff",
      rego: claim.registration.toLowerCase(),
      user_email: user.email,
    }));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const body = await res.json();
    assert.equal(body.code, 3000);
    assert.equal(body.result.status, "success");
    const data = body.result.data;
    assert.deepEqual(Object.keys(data).sort(), [
      "app_name",
      "app_owner",
      "environment",
      "field_name",
      "form_name",
      "record_id",
      "report_name",
      "token",
    ]);
    assert.equal(data.app_owner, "depot");
    assert.equal(data.app_name, "parts-movement");
    assert.equal(data.form_name, "Parts_Uploaded_Images");
    assert.equal(data.report_name, "Parts_Movement_Uploaded_Images_Temp_Report");
    assert.equal(data.field_name, "Parts_Image");
    assert.equal(typeof data.record_id, "number");
    assert.equal(data.environment, true);
    // 32 random bytes, base64url without padding.
    assert.match(data.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(data.token, "base64url").length, 32);

    const staged = await a.db.selectFrom("uploaded_images").selectAll().where("id", "=", data.record_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...staged, uploaded_time: staged.uploaded_time.toISOString() },
      {
        id: data.record_id,
        part_id: part.id,
        claim_id: claim.id,
        movement_stage: "direct_dropoff",
        uploaded_by: user.id,
        uploaded_time: a.clock.now().toISOString(),
        photo_id: null,
        replaced_at: null,
        submitted: false,
      },
    );
    const tokens = await a.db.selectFrom("upload_tokens").selectAll().execute();
    assert.equal(tokens.length, 1);
    assert.equal(tokens[0].token_hash, createHash("sha256").update(data.token).digest("hex"));
    assert.notEqual(tokens[0].token_hash, data.token);
    assert.equal(tokens[0].image_id, data.record_id);
    assert.equal(tokens[0].field_name, "Parts_Image");
    assert.equal(tokens[0].used_at, null);
    assert.equal(tokens[0].expires_at.getTime(), a.clock.now().getTime() + 600_000);
  },
);

appTest(
  "parts_movement_upload_token: Parts_Order as a number works; each call makes its own record and token",
  async (a) => {
    const { user, claim, part } = await setup(a);
    const payload = tokenCall({
      Parts_Order: part.id,
      Movement_Stage: "direct_dropoff",
      rego: claim.registration,
      user_email: user.email,
    });
    const first = await a.call(payload);
    const second = await a.call(payload);
    assert.equal(first.result.status, "success");
    assert.equal(second.result.status, "success");
    assert.notEqual(first.result.data!.record_id, second.result.data!.record_id);
    assert.notEqual(first.result.data!.token, second.result.data!.token);
    assert.equal(await stagedCount(a), 2);
  },
);

for (const appEnv of ["development", "stage"] as const) {
  appTest(`parts_movement_upload_token: environment true in ${appEnv}`, async (a) => {
    const { user, claim, part } = await setup(a);
    const body = await a.call(
      tokenCall({
        Parts_Order: part.id,
        Movement_Stage: "direct_dropoff",
        rego: claim.registration,
        user_email: user.email,
      }),
    );
    assert.equal(body.result.data!.environment, true);
  }, { config: { appEnv } });
}

appTest(
  "parts_movement_upload_token: no environment field in production; app_owner, app_name and lifetime from config",
  async (a) => {
    const { user, claim, part } = await setup(a);
    const body = await a.call(
      tokenCall({
        Parts_Order: part.id,
        Movement_Stage: "direct_dropoff",
        rego: claim.registration,
        user_email: user.email,
      }),
    );
    const data = body.result.data!;
    assert.equal("environment" in data, false);
    assert.equal(data.app_owner, "acme");
    assert.equal(data.app_name, "parts-prod");
    const token = await a.db.selectFrom("upload_tokens").selectAll().executeTakeFirstOrThrow();
    assert.equal(token.expires_at.getTime(), a.clock.now().getTime() + 90_000);
  },
  { config: { appEnv: "production", appOwner: "acme", appName: "parts-prod", uploadTokenTtlSeconds: 90 } },
);

appTest("parts_movement_upload_token: reverse_pickup for a part Pending Repair Shop Pick-Up", async (a) => {
  const { user, claim, part } = await setup(a, "Pending Repair Shop Pick-Up");
  const body = await a.call(
    tokenCall({
      Parts_Order: part.id,
      Movement_Stage: "reverse_pickup",
      rego: claim.registration,
      user_email: user.email,
    }),
  );
  assert.equal(body.result.status, "success");
  const staged = await a.db.selectFrom("uploaded_images").selectAll().executeTakeFirstOrThrow();
  assert.equal(staged.movement_stage, "reverse_pickup");
});

appTest(
  "parts_movement_upload_token: reverse_dropoff for a part on the claim's open return trip",
  async (a) => {
    const { user, claim, part } = await setup(a, "Picked Up from Repair Shop");
    await makeReturnTrip(a, claim.id, user.id, [part]);
    const body = await a.call(
      tokenCall({
        Parts_Order: part.id,
        Movement_Stage: "reverse_dropoff",
        rego: claim.registration,
        user_email: user.email,
      }),
    );
    assert.equal(body.result.status, "success", JSON.stringify(body));
    const staged = await a.db.selectFrom("uploaded_images").selectAll().executeTakeFirstOrThrow();
    assert.equal(staged.movement_stage, "reverse_dropoff");
  },
);

appTest(
  "parts_movement_upload_token: reverse_dropoff for a part not on the open return trip is refused",
  async (a) => {
    const user = await makeUser(a.db);
    const { claim, parts } = await makeClaim(a.db, {
      parts: [{ status: "Picked Up from Repair Shop" }, {
        status: "Picked Up from Repair Shop",
        part_no: "LOOSE-1",
      }],
    });
    await makeReturnTrip(a, claim.id, user.id, [parts[0]]);
    const text = await failureText(
      a,
      tokenCall({
        Parts_Order: parts[1].id,
        Movement_Stage: "reverse_dropoff",
        rego: claim.registration,
        user_email: user.email,
      }),
    );
    assert.equal(text, "LOOSE-1 is not part of this return trip.");
    assert.equal(await stagedCount(a), 0);
  },
);

appTest("parts_movement_upload_token: unknown rego answers Rego not found", async (a) => {
  const { user, part } = await setup(a);
  const text = await failureText(
    a,
    tokenCall({
      Parts_Order: part.id,
      Movement_Stage: "direct_dropoff",
      rego: "NOPE999",
      user_email: user.email,
    }),
  );
  assert.equal(text, "Rego not found");
  assert.equal(await stagedCount(a), 0);
});

appTest(
  "parts_movement_upload_token: a part of another claim, or no such part, answers Part not found.",
  async (a) => {
    const { user, claim } = await setup(a);
    const other = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
    for (const id of [other.parts[0].id, 999_999]) {
      const text = await failureText(
        a,
        tokenCall({
          Parts_Order: id,
          Movement_Stage: "direct_dropoff",
          rego: claim.registration,
          user_email: user.email,
        }),
      );
      assert.equal(text, "Part not found.");
    }
    assert.equal(await stagedCount(a), 0);
  },
);

appTest(
  "parts_movement_upload_token: a part not in the stage's status gets the flow's no-longer message",
  async (a) => {
    const user = await makeUser(a.db);
    const { claim, parts } = await makeClaim(a.db, {
      parts: [
        { status: "Delivered to Repair Shop directly", part_no: "52119-0K040" },
        { status: "Arrived", part_no: "ARR-1" },
        { status: "Pending Repair Shop Pick-Up", part_no: "PEND-1" },
      ],
    });
    const ask = (part: Part, stage: string) =>
      failureText(
        a,
        tokenCall({
          Parts_Order: part.id,
          Movement_Stage: stage,
          rego: claim.registration,
          user_email: user.email,
        }),
      );
    assert.equal(await ask(parts[0], "direct_dropoff"), "52119-0K040 is no longer available for delivery.");
    assert.equal(await ask(parts[1], "reverse_pickup"), "ARR-1 is no longer flagged for return.");
    assert.equal(await ask(parts[2], "reverse_dropoff"), "PEND-1 is no longer awaiting return.");
    assert.equal(await stagedCount(a), 0);
  },
);

appTest(
  "parts_movement_upload_token: validation failures use the D9 text, before the user is looked up",
  async (a) => {
    const { user, claim, part } = await setup(a);
    const base = {
      Parts_Order: part.id,
      Movement_Stage: "direct_dropoff",
      rego: claim.registration,
      user_email: user.email,
    };
    assert.equal(
      await failureText(
        a,
        tokenCall({ ...base, Movement_Stage: "pickup", user_email: "nobody@depot.example" }),
      ),
      "Invalid request: Movement_Stage must be one of direct_dropoff, reverse_pickup, reverse_dropoff.",
    );
    assert.equal(
      await failureText(a, tokenCall({ ...base, Parts_Order: undefined })),
      "Invalid request: Parts_Order is required.",
    );
    assert.equal(
      await failureText(a, tokenCall({ ...base, Parts_Order: "12a" })),
      "Invalid request: Parts_Order must be an ID.",
    );
    assert.equal(
      await failureText(a, tokenCall({ ...base, rego: undefined })),
      "Invalid request: rego is required.",
    );
    assert.equal(
      await failureText(a, tokenCall({ ...base, user_email: "not-an-email" })),
      "Invalid request: user_email must be an e-mail address.",
    );
    assert.equal(await stagedCount(a), 0);
  },
);

appTest("parts_movement_upload_token: an unknown or inactive user answers User not found.", async (a) => {
  const { claim, part } = await setup(a);
  const inactive = await makeUser(a.db, { active: false });
  for (const email of ["ghost@depot.example", inactive.email]) {
    const text = await failureText(
      a,
      tokenCall({
        Parts_Order: part.id,
        Movement_Stage: "direct_dropoff",
        rego: claim.registration,
        user_email: email,
      }),
    );
    assert.equal(text, "User not found.");
  }
  assert.equal(await stagedCount(a), 0);
});

appTest(
  "parts_movement_upload_token: the rego resolves by the D11 rules (too short, several vehicles) and D30's length",
  async (a) => {
    const { user, part } = await setup(a, "Arrived", "XYZ 100");
    await makeClaim(a.db, { registration: "XYZ 101", parts: [{ status: "Arrived" }] });
    const ask = (rego: string) =>
      failureText(
        a,
        tokenCall({ Parts_Order: part.id, Movement_Stage: "direct_dropoff", rego, user_email: user.email }),
      );
    assert.equal(await ask("X"), "Enter at least 2 characters of the rego.");
    assert.equal(await ask("xyz1"), "Several vehicles match xyz1: XYZ 100, XYZ 101. Enter the full rego.");
  },
);
