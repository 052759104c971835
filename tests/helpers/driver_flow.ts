/**
 * A driver's drop-off over HTTP, call by call as the mobile app makes it (docs/protocol.md 2a, 2b, the
 * submission), against any `send`: an in-process app (`viaApp`) or a running instance (`viaUrl`), so a
 * test can mint on one instance, upload to another and submit on a third.
 */
import assert from "node:assert/strict";
import type { Db } from "@/db/client.ts";
import type { MovementStage } from "@/db/schema.ts";
import { sessionCookie } from "@/routes/web/session.ts";
import { makeSession } from "@/tests/helpers/hq.ts";
import { dropOffPayload } from "@/testkit/movements.ts";
import { photoForm } from "@/testkit/photos.ts";

export type Send = (path: string, init?: RequestInit) => Promise<Response>;

export const viaUrl = (base: string): Send => (path, init) => fetch(base + path, init);
export const viaApp =
  (app: { request(path: string, init?: RequestInit): Response | Promise<Response> }): Send =>
  (
    path,
    init,
  ) => Promise.resolve(app.request(path, init));

export interface Minted {
  record_id: number;
  token: string;
  app_owner: string;
  app_name: string;
  report_name: string;
  field_name: string;
}

export interface Driver {
  email: string;
  publicKey: string;
}

/** POSTs `{payload}` to the handler; returns the parsed answer (asserting HTTP 200). */
export async function handler(send: Send, publicKey: string, payload: unknown) {
  const res = await send(`/api/handler?publickey=${encodeURIComponent(publicKey)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ payload }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

/** Call 2a for `partId` at a movement stage (a direct drop-off unless told). */
export async function mintToken(
  send: Send,
  driver: Driver,
  rego: string,
  partId: number,
  stage: MovementStage = "direct_dropoff",
): Promise<Minted> {
  const body = await handler(send, driver.publicKey, {
    event_type: "parts_movement_upload_token",
    Parts_Order: String(partId),
    Movement_Stage: stage,
    rego,
    user_email: driver.email,
  });
  assert.equal(body.result.status, "success", JSON.stringify(body));
  return body.result.data;
}

/** Call 2b: the photo as the multipart `file` part. Returns the raw answer. */
export function uploadPhoto(send: Send, m: Minted, bytes: Uint8Array): Promise<Response> {
  return send(
    `/api/v2.1/data/${m.app_owner}/${m.app_name}/report/${m.report_name}/${m.record_id}/${m.field_name}/upload`,
    {
      method: "POST",
      headers: { authorization: `Zoho-oauthtoken ${m.token}` },
      body: photoForm(bytes),
    },
  );
}

/** The direct drop-off of the parts with their staged image ids; returns the handler's answer. */
export function submitDropOff(
  send: Send,
  driver: Driver,
  rego: string,
  shopId: number,
  parts: { part: number; image: number }[],
) {
  return handler(
    send,
    driver.publicKey,
    dropOffPayload(
      driver.email,
      rego,
      { id: shopId },
      parts.map((p) => ({ parts_order_id: String(p.part), confirm: true, image_id: String(p.image) })),
    ),
  );
}

/**
 * The Cookie header of a session for `userId` made directly in the database; it works on every instance
 * (development cookie name: the instances run with the default APP_ENV).
 */
export async function signedInCookie(db: Db, userId: number): Promise<string> {
  const { token } = await makeSession(db, userId, new Date());
  return `${sessionCookie({ appEnv: "development" }).name}=${token}`;
}

/** The photo of a Deliver_Parts row as `GET /photos/:id` serves it. */
export async function fetchPhoto(send: Send, cookie: string, photoId: number): Promise<Response> {
  return await send(`/photos/${photoId}`, { headers: { cookie } });
}
