/**
 * Call 2b end to end: a malformed multipart body is refused whole (never stored cut short), a stress of
 * many uploads over a real socket stores every photo byte for byte, and a client that goes away
 * mid-upload is logged as a client abort (one line), not as an unexpected fault (a reference and a stack).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "@/tests/helpers/fast_check.ts";
import { migrateToLatest } from "@/db/migrate.ts";
import { openDb } from "@/db/client.ts";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import {
  concat,
  enc,
  equalBytes,
  fieldPart,
  filePart,
  multipart,
  plantNearDelimiter,
  randomBytes,
  seededRandom,
} from "@/tests/helpers/multipart.ts";
import { jpegPhoto } from "@/testkit/photos.ts";
import { callHandler, startService } from "@/tests/helpers/service_process.ts";
import { waitFor } from "@/tests/helpers/races.ts";
import {
  assertNothingStored,
  expectFailure,
  mint,
  type Minted,
  stored,
  uploadPath,
} from "@/tests/helpers/uploads.ts";

const BOUNDARY = "----IntegrityBoundary9f3k";
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

const headersOf = (m: Minted) => ({ authorization: `Zoho-oauthtoken ${m.token}`, "content-type": TYPE });

appTest(
  "upload: a file holding CRLF--boundary followed by garbage is refused 400, nothing stored",
  async (a) => {
    const jpeg = await jpegPhoto();
    const bodies = {
      "garbage right after the delimiter": multipart(BOUNDARY, [
        filePart(concat(jpeg, enc(`\r\n--${BOUNDARY}garbage`), jpeg)),
      ]),
      "padding, then garbage": multipart(BOUNDARY, [
        filePart(concat(jpeg, enc(`\r\n--${BOUNDARY} \t!`), jpeg)),
      ]),
      // The file itself is fine; what follows it is not: the rest is read and checked too.
      "a malformed part after the file": multipart(BOUNDARY, [
        filePart(jpeg),
        { headers: ["no colon"], body: enc("x") },
      ]),
    };
    for (const [what, body] of Object.entries(bodies)) {
      const m = await mint(a);
      const res = await a.app.request(uploadPath(m), { method: "POST", headers: headersOf(m), body });
      await expectFailure(res, 400, 1051);
      await assertNothingStored(a, m);
      const token = await a.db.selectFrom("upload_tokens").select("used_at").where(
        "image_id",
        "=",
        m.record_id,
      )
        .executeTakeFirstOrThrow();
      assert.equal(token.used_at, null, `${what}: a refused upload does not use the token`);
    }
  },
);

/**
 * The stress: STRESS_UPLOADS uploads in rounds of rising concurrency (1 to 16 at once), each a distinct
 * JPEG (the fixture plus random trailing bytes with planted near-delimiters) sent over a real socket in
 * random chunks. Every one must be answered 3000 and stored byte-identical. Content and chunking come
 * from a seed that fast-check prints when the run fails, so a failure replays.
 */
const STRESS_UPLOADS = 240;
const CONCURRENCY = [1, 2, 4, 8, 16];

appTest(
  "upload stress: 240 uploads at concurrency 1 to 16 in random chunks are stored byte-identical",
  async (a) => {
    const jpeg = await jpegPhoto();
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, a.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const random = seededRandom(seed);
        const uploads: { m: Minted; content: Uint8Array; body: Uint8Array; chunks: number[] }[] = [];
        for (let i = 0; i < STRESS_UPLOADS; i++) {
          const tail = randomBytes(random, random(200_000));
          for (let p = random(4); p > 0 && tail.length > 64; p--) {
            plantNearDelimiter(tail, BOUNDARY, random(tail.length - 64));
          }
          const content = concat(jpeg, enc(`${run}:${i}`), tail); // distinct bytes for each upload
          const body = multipart(BOUNDARY, [fieldPart("note", `upload ${i}`), filePart(content)]);
          const chunks = Array.from({ length: 1 + random(4) }, () => 1 + random(random(2) ? 64 : 70_000));
          uploads.push({ m: await mint(a), content, body, chunks });
        }
        run++;
        let next = 0;
        const perRound = Math.ceil(STRESS_UPLOADS / CONCURRENCY.length);
        for (const [round, concurrency] of CONCURRENCY.entries()) {
          const end = Math.min(STRESS_UPLOADS, (round + 1) * perRound);
          const lane = async () => {
            while (next < end) {
              const u = uploads[next++];
              const res = await fetch(`${base}${uploadPath(u.m)}`, {
                method: "POST",
                headers: headersOf(u.m),
                body: chunked(u.body, u.chunks),
              });
              const answer = await res.json();
              assert.equal(res.status, 200, `seed ${seed}: ${JSON.stringify(answer)}`);
              assert.equal(answer.code, 3000);
              const key = answer.data.filename.split(".")[0];
              const kept = await Deno.readFile(a.storage.path(key));
              assert.ok(equalBytes(kept, u.content), `seed ${seed}: upload ${uploads.indexOf(u)} differs`);
            }
          };
          await Promise.all(Array.from({ length: concurrency }, lane));
        }
        const photos = await a.db.selectFrom("photos").select(["storage_key", "byte_size"]).execute();
        assert.equal(photos.length, STRESS_UPLOADS * run);
        assert.deepEqual((await stored(a)).tmp, [], "no temp file left");
      }),
      { numRuns: 1, endOnFailure: true },
    );
  },
);

/** `bytes` as a stream of pieces of the given sizes (cycling), so fetch sends it chunked as they come. */
function chunked(bytes: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = sizes[i++ % sizes.length];
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
}

Deno.test({
  name: "upload: a client that aborts mid-upload is logged as a client abort (one line, no fault reference)",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-abort-" });
    // The service's own embedded database, seeded before it starts (it then holds it alone).
    const db = openDb({ dir: join(dataDir, "db") });
    await migrateToLatest(db);
    const user = await makeUser(db);
    const { claim, parts } = await makeClaim(db, { parts: [{ status: "Arrived" }] });
    await db.destroy();
    const service = await startService({ DATA_DIR: dataDir, APP_ENV: "stage" });
    try {
      const minted = await callHandler(service, {
        event_type: "parts_movement_upload_token",
        Parts_Order: String(parts[0].id),
        Movement_Stage: "direct_dropoff",
        rego: claim.registration,
        user_email: user.email,
      });
      assert.equal(minted.kind, "success", JSON.stringify(minted));
      const m = (minted as { data: unknown }).data as Minted;
      const jpeg = await jpegPhoto();
      const body = multipart(BOUNDARY, [filePart(concat(jpeg, new Uint8Array(400_000)))]);

      // Headers promise the whole body; a third of it arrives, then the connection closes.
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(service.url).port) });
      const head = `POST ${uploadPath(m)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${TYPE}\r\n` +
        `Authorization: Zoho-oauthtoken ${m.token}\r\nContent-Length: ${body.length}\r\n\r\n`;
      await conn.write(concat(enc(head), body.subarray(0, Math.floor(body.length / 3))));
      // The service is reading the body once it opened the photo's file being received (photos/tmp/; the
      // bytes sent stay under its first 256 KiB write, io/batched_writer.ts).
      const receiving = join(dataDir, "photos", "tmp");
      const received = async (dir = receiving): Promise<string[]> => {
        const files: string[] = [];
        try {
          for await (const e of Deno.readDir(dir)) {
            if (e.isFile) files.push(join(dir, e.name));
            else if (e.isDirectory) files.push(...await received(join(dir, e.name))); // an instance's own
          }
        } catch (e) {
          if (!(e instanceof Deno.errors.NotFound)) throw e; // not made yet, or just removed
        }
        return files;
      };
      await waitFor(async () => (await received()).length > 0, 30_000, "the photo being received");
      conn.close();

      const line = "client aborted the request body";
      await waitFor(() => service.stderr().includes(line), 30_000, "the client-abort line")
        .catch(() => assert.fail(`no client-abort line in:\n${service.stderr()}`));
      const log = service.stderr();
      // One warning (a JSON line outside development, io/log.ts), never the fault entry with its stack.
      const abortLine = log.split("\n").find((l) => l.includes(line));
      assert.ok(abortLine, `no client-abort line in:\n${log}`);
      assert.equal(JSON.parse(abortLine).level, "WARN", abortLine);
      assert.doesNotMatch(log, /Fault in/, "no fault entry for a client abort");
      assert.doesNotMatch(log, /\bat .*\.ts:\d+:\d+/, "no stack for a client abort");
      await waitFor(async () => (await received()).length === 0, 30_000, "the cut photo's file removed");

      // Nothing kept, the token still usable: the phone's retry stores the photo.
      const retry = await fetch(`${service.url}${uploadPath(m)}`, {
        method: "POST",
        headers: headersOf(m),
        body: multipart(BOUNDARY, [filePart(jpeg)]),
      });
      assert.equal(retry.status, 200, await retry.clone().text());
      assert.equal((await retry.json()).code, 3000);
    } finally {
      await service.kill("SIGTERM");
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
});
