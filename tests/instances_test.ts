/**
 * Several instances behave as one service: two real server processes (tasks/start.ts)
 * on one PostgreSQL server, each with its own DATA_DIR (they share nothing local), photos in the shared
 * store: `postgres` (the database itself) in one test, `s3` (a local S3-protocol server) in the other.
 *
 * A driver's token is minted on A, the photo uploaded to B, the drop-off submitted on A, and the photo
 * (and its thumbnail, made by B) fetched from both with one session cookie: byte-identical. Then a load of
 * drop-offs spread over both instances while both announcement workers run against a real loopback chat:
 * every announcement is posted exactly once (the outbox claims rows with SKIP LOCKED across processes).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Db } from "@/db/client.ts";
import { startChatReceiver } from "@/tests/helpers/chat_receiver.ts";
import { serverTest } from "@/testkit/db.ts";
import {
  type Driver,
  fetchPhoto,
  mintToken,
  type Send,
  signedInCookie,
  submitDropOff,
  uploadPhoto,
  viaUrl,
} from "@/tests/helpers/driver_flow.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { startS3Server } from "@/testkit/s3_server.ts";
import { type ServiceProcess, startService } from "@/tests/helpers/service_process.ts";

const PM = "/parts-movement";
const NRJ = "/new-repair-jobs";
const LOAD = 8;

/** A JPEG of `size` bytes: the fixture, then random padding (a decoder stops at the image's end). */
async function paddedJpeg(size: number): Promise<Uint8Array> {
  const jpeg = await Deno.readFile(new URL("./fixtures/photo.jpg", import.meta.url));
  const bytes = new Uint8Array(size);
  bytes.set(jpeg);
  for (let i = jpeg.length; i < size; i += 65536) {
    crypto.getRandomValues(bytes.subarray(i, Math.min(size, i + 65536)));
  }
  return bytes;
}

/** Every file below `dir` (none if it does not exist). */
async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) files.push(...await filesUnder(`${dir}/${e.name}`));
      else files.push(`${dir}/${e.name}`);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** One driver's drop-off of one fresh part: token on `mint`, photo to `upload`, submission on `mint`. */
async function dropOff(db: Db, driver: Driver, mint: Send, upload: Send, photo: Uint8Array) {
  const shop = await makeRepairer(db);
  const { claim, parts } = await makeClaim(db, { management: shop.id, parts: [{ status: "Arrived" }] });
  const m = await mintToken(mint, driver, claim.registration, parts[0].id);
  const res = await uploadPhoto(upload, m, photo);
  assert.equal(res.status, 200, await res.clone().text());
  const answer = await submitDropOff(mint, driver, claim.registration, shop.id, [
    { part: parts[0].id, image: m.record_id },
  ]);
  assert.equal(answer.result.status, "success", JSON.stringify(answer));
  return answer.result.data.parts_movement_id as number;
}

async function waitForDelivered(db: Db): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (true) {
    const left = await db.selectFrom("announcements").select((e) => e.fn.countAll<number>().as("n"))
      .where("state", "!=", "delivered").executeTakeFirstOrThrow();
    if (Number(left.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${left.n} announcements not delivered within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const backend of ["postgres", "s3"] as const) {
  serverTest(
    `instances: two processes on one PostgreSQL server with ${backend} photos act as one`,
    async (t) => {
      await using chat = startChatReceiver();
      await using s3 = backend === "s3" ? await startS3Server() : undefined;
      const user = await makeUser(t.db, { role: "driver" });
      const driver = { email: user.email, publicKey: "instances-key" };
      const dirs = [
        await Deno.makeTempDir({ prefix: "pm-inst-a-" }),
        await Deno.makeTempDir({ prefix: "pm-inst-b-" }),
      ];
      const services: ServiceProcess[] = [];
      try {
        for (const dir of dirs) {
          services.push(
            await startService({
              DATABASE_URL: t.url!,
              DATA_DIR: dir,
              PUBLIC_KEY: driver.publicKey,
              PHOTO_STORE: backend,
              ...s3?.env,
              CHAT_FORMAT: "json",
              CHAT_WEBHOOK_PARTS_MOVEMENT: chat.url(PM),
              CHAT_WEBHOOK_NEW_REPAIR_JOBS: chat.url(NRJ),
            }),
          );
        }
        const [a, b] = services.map((s) => viaUrl(s.url));

        // Token from A, upload to B, submission on A; the photo from B and from A, byte-identical.
        const photo = await paddedJpeg(2_500_000); // three chunk rows in postgres
        const movementId = await dropOff(t.db, driver, a, b, photo);
        const row = await t.db.selectFrom("deliver_parts").select("delivery_photo_id")
          .where("movement_id", "=", movementId).executeTakeFirstOrThrow();
        const cookie = await signedInCookie(t.db, user.id); // one session, valid on every instance
        for (const [name, send] of [["B", b], ["A", a]] as const) {
          const res = await fetchPhoto(send, cookie, row.delivery_photo_id!);
          assert.equal(res.status, 200, `photo from ${name}`);
          assert.equal(sha256(new Uint8Array(await res.arrayBuffer())), sha256(photo), `photo from ${name}`);
        }
        // The thumbnail made by B is the one A serves.
        const thumbs = [];
        for (const send of [b, a]) {
          const res = await send(`/photos/${row.delivery_photo_id}/thumb`, { headers: { cookie } });
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("content-type"), "image/jpeg");
          thumbs.push(new Uint8Array(await res.arrayBuffer()));
        }
        assert.deepEqual(thumbs[1], thumbs[0]);
        // Not a byte of it in either instance's own folder (B staged it there, then committed it away).
        for (const dir of dirs) assert.deepEqual(await filesUnder(`${dir}/photos`), [], `${dir}/photos`);

        // A load spread over both instances, both workers draining the one outbox.
        // Distinct photos, as drivers' are (s3rver, unlike S3, lets a reader see a PUT of the same key
        // half-done: the upload's verification catches that and answers retryable).
        const photos = await Promise.all(Array.from({ length: LOAD }, () => paddedJpeg(200_000)));
        await Promise.all(
          Array.from(
            { length: LOAD },
            (_, i) => i % 2 ? dropOff(t.db, driver, a, b, photos[i]) : dropOff(t.db, driver, b, a, photos[i]),
          ),
        );
        await waitForDelivered(t.db);
        const outbox = await t.db.selectFrom("announcements").select("message_id").execute();
        assert.ok(outbox.length >= LOAD + 1, `${outbox.length} announcements`);
        const posted = chat.posts.map((p) => p.headers["x-message-id"]);
        assert.ok(chat.posts.every((p) => p.accepted));
        assert.deepEqual(
          posted.slice().sort(),
          outbox.map((o) => o.message_id).sort(),
          "each posted exactly once",
        );
        for (const s of services) {
          assert.equal(await Promise.race([s.exited.then(() => "exited"), "running"]), "running");
        }
      } catch (error) {
        for (const [i, s] of services.entries()) console.error(`instance ${"AB"[i]}:\n${s.stderr()}`);
        throw error;
      } finally {
        for (const s of services) {
          await s.kill("SIGTERM");
        }
        for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  );
}
