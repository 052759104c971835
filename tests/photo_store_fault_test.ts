/**
 * Fault: the S3 photo store goes down in the middle of an upload (the S3 server is stopped while the body is
 * still arriving). The driver gets clean retryable answers (503, code 5030, a plain message, no stack), the
 * token is not used up, no movement can be recorded without its photo, and once the store is back the same
 * service (no restart) takes the retried upload and the submission, and serves the photo byte-identical.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { S3PhotoStore } from "@/io/photo_stores/s3.ts";
import { STORE_UNAVAILABLE } from "@/lib/photos/upload.ts";
import { createApp } from "@/main.ts";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import {
  fetchPhoto,
  type Minted,
  mintToken,
  signedInCookie,
  submitDropOff,
  viaApp,
} from "@/tests/helpers/driver_flow.ts";
import { photoForm } from "@/testkit/photos.ts";
import { startS3Server } from "@/testkit/s3_server.ts";

/** A JPEG of ~3 MB: the fixture, then random padding (decoders stop at the end of the image). */
async function bigJpeg(): Promise<Uint8Array> {
  const jpeg = await Deno.readFile(new URL("./fixtures/photo.jpg", import.meta.url));
  const bytes = new Uint8Array(3_000_000);
  bytes.set(jpeg);
  for (let i = jpeg.length; i < bytes.length; i += 65536) {
    crypto.getRandomValues(bytes.subarray(i, Math.min(bytes.length, i + 65536)));
  }
  return bytes;
}

/** The multipart body in two halves; the second is sent only once `between()` has run. */
async function twoHalves(bytes: Uint8Array, between: () => Promise<void>) {
  const form = new Response(photoForm(bytes));
  const body = new Uint8Array(await form.arrayBuffer());
  const half = body.length >> 1;
  let step = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (step === 0) controller.enqueue(body.slice(0, half));
      else if (step === 1) {
        await between();
        controller.enqueue(body.slice(half));
      } else controller.close();
      step++;
    },
  });
  return { stream, contentType: form.headers.get("content-type")! };
}

const uploadPath = (m: Minted) =>
  `/api/v2.1/data/${m.app_owner}/${m.app_name}/report/${m.report_name}/${m.record_id}/${m.field_name}/upload`;

appTest(
  "fault: the S3 store stops mid-upload: retryable 503s, no movement without its photo, recovery",
  async (a) => {
    await using s3 = await startS3Server();
    const storage = new S3PhotoStore(s3.config, join(a.dataDir, "photos", "tmp"));
    const app = createApp({ ...a, storage });
    const send = viaApp(app);
    try {
      const shop = await makeRepairer(a.db);
      const user = await makeUser(a.db, { role: "driver" });
      const { claim, parts } = await makeClaim(a.db, { management: shop.id, parts: [{ status: "Arrived" }] });
      const driver = { email: user.email, publicKey: a.config.publicKey };
      const photo = await bigJpeg();
      const m = await mintToken(send, driver, claim.registration, parts[0].id);
      const errors: unknown[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => errors.push(args);
      const answers: Response[] = [];
      try {
        // The store stops while the first half of the body is in and the second not yet sent.
        const { stream, contentType } = await twoHalves(photo, () => s3.stop());
        answers.push(
          await send(uploadPath(m), {
            method: "POST",
            headers: { authorization: `Zoho-oauthtoken ${m.token}`, "content-type": contentType },
            body: stream,
            duplex: "half",
          } as RequestInit),
        );
        // The app retries while the store is still down: the same clean answer each time.
        for (let i = 0; i < 2; i++) {
          answers.push(
            await send(uploadPath(m), {
              method: "POST",
              headers: { authorization: `Zoho-oauthtoken ${m.token}` },
              body: photoForm(photo),
            }),
          );
        }
      } finally {
        console.error = original;
      }
      for (const res of answers) {
        assert.equal(res.status, 503);
        assert.match(res.headers.get("content-type")!, /^application\/json/);
        assert.deepEqual(await res.json(), { code: 5030, message: STORE_UNAVAILABLE });
      }
      assert.equal(errors.length, answers.length, "each store fault is logged for the operator");
      assert.match(String((errors[0] as unknown[])[0]), /Photo store \(s3\) unavailable/);

      // Nothing recorded: no photo row, the staged record holds none, the token is unused.
      assert.equal((await a.db.selectFrom("photos").select("id").execute()).length, 0);
      const staged = await a.db.selectFrom("uploaded_images").selectAll().where("id", "=", m.record_id)
        .executeTakeFirstOrThrow();
      assert.equal(staged.photo_id, null);
      const token = await a.db.selectFrom("upload_tokens").select("used_at").where(
        "image_id",
        "=",
        m.record_id,
      )
        .executeTakeFirstOrThrow();
      assert.equal(token.used_at, null);
      // No movement without its photo.
      const refused = await submitDropOff(send, driver, claim.registration, shop.id, [
        { part: parts[0].id, image: m.record_id },
      ]);
      assert.equal(refused.result.status, "failure", JSON.stringify(refused));
      assert.equal((await a.db.selectFrom("deliver_parts").select("id").execute()).length, 0);
      assert.equal(
        (await a.db.selectFrom("parts_orders").select("status").where("id", "=", parts[0].id)
          .executeTakeFirstOrThrow()).status,
        "Arrived",
      );
      assert.deepEqual(await Array.fromAsync(Deno.readDir(join(a.dataDir, "photos", "tmp"))), []);

      // The store is back: the same process takes the retry with the same token, then the submission.
      await s3.start();
      const retry = await send(uploadPath(m), {
        method: "POST",
        headers: { authorization: `Zoho-oauthtoken ${m.token}` },
        body: photoForm(photo),
      });
      assert.equal(retry.status, 200, await retry.clone().text());
      const done = await submitDropOff(send, driver, claim.registration, shop.id, [
        { part: parts[0].id, image: m.record_id },
      ]);
      assert.equal(done.result.status, "success", JSON.stringify(done));
      const row = await a.db.selectFrom("deliver_parts").select("delivery_photo_id")
        .executeTakeFirstOrThrow();
      const res = await fetchPhoto(send, await signedInCookie(a.db, user.id), row.delivery_photo_id!);
      assert.equal(res.status, 200);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), photo);
    } finally {
      storage.close();
    }
  },
);
