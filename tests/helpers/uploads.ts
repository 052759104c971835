/**
 * Call 2b (the photo upload) from the tests' side: a token minted through call 2a for a fresh part, the
 * upload address, the refusal shape, and what the storage and the photos table hold afterwards.
 */
import assert from "node:assert/strict";
import type { MovementStage } from "@/db/schema.ts";
import type { HandlerAnswer, TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";

export const UPLOAD_REPORT = "Parts_Movement_Uploaded_Images_Temp_Report";

export interface Minted {
  record_id: number;
  token: string;
  app_owner: string;
  app_name: string;
}

/**
 * Call 2a for a fresh part; returns its answer. `call` posts to the handler: the in-process app's, or a
 * spawned service's (its database is `db`).
 */
export async function mint(
  a: { db: TestApp["db"]; call(payload: unknown): Promise<HandlerAnswer> },
  stage: MovementStage = "direct_dropoff",
): Promise<Minted> {
  const user = await makeUser(a.db);
  const status = stage === "direct_dropoff" ? "Arrived" : "Pending Repair Shop Pick-Up";
  const { claim, parts } = await makeClaim(a.db, { parts: [{ status }] });
  const body = await a.call({
    event_type: "parts_movement_upload_token",
    Parts_Order: String(parts[0].id),
    Movement_Stage: stage,
    rego: claim.registration,
    user_email: user.email,
  });
  assert.equal(body.result.status, "success", JSON.stringify(body));
  return body.result.data as unknown as Minted;
}

export function uploadPath(
  m: Minted,
  over: Partial<{ owner: string; app: string; report: string; record: string; field: string }> = {},
) {
  return `/api/v2.1/data/${over.owner ?? m.app_owner}/${over.app ?? m.app_name}/report/${
    over.report ?? UPLOAD_REPORT
  }/` +
    `${over.record ?? m.record_id}/${over.field ?? "Parts_Image"}/upload`;
}

/** Asserts a refusal in the upload's shape, `{code, message}` as JSON with `status`; returns the body. */
export async function expectFailure(res: Response, status: number, code: number, message?: string | RegExp) {
  assert.equal(res.status, status, await res.clone().text());
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["code", "message"]);
  assert.equal(body.code, code);
  if (typeof message === "string") assert.equal(body.message, message);
  else if (message) assert.match(body.message, message);
  return body;
}

/** Files in storage tmp/ and committed photo keys. */
export async function stored(a: Pick<TestApp, "storage">) {
  const tmp: string[] = [];
  try {
    for await (const e of Deno.readDir(a.storage.tmpDir)) tmp.push(e.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return { tmp, keys: await Array.fromAsync(a.storage.keys()) };
}

/** No file in storage (committed or temporary), no photo row, and the record (if given) holds none. */
export async function assertNothingStored(a: Pick<TestApp, "storage" | "db">, m?: Minted) {
  assert.deepEqual(await stored(a), { tmp: [], keys: [] });
  const photos = await a.db.selectFrom("photos").select("id").execute();
  assert.deepEqual(photos, []);
  if (m) {
    const row = await a.db.selectFrom("uploaded_images").select("photo_id").where("id", "=", m.record_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.photo_id, null);
  }
}
