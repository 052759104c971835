import assert from "node:assert/strict";
import { join } from "node:path";
import { IN_FLIGHT_GRACE_MS, purgePhotos, startPurgeSchedule } from "@/lib/photos/purge.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makePhoto, makeUser, stagePhoto } from "@/testkit/factories.ts";
import { jpegPhoto, pngPhoto, webpPhoto } from "@/testkit/photos.ts";
import { captureLogs } from "@/tests/helpers/observed.ts";
import { insertHandoverImage } from "@/db/queries/handovers.ts";

const DAY = 24 * 3600_000;

/** A user and a part to stage photos for. */
async function setup(a: TestApp) {
  const user = await makeUser(a.db);
  const { claim, parts } = await makeClaim(a.db, { parts: [{ status: "Arrived" }, { status: "Arrived" }] });
  return { user, claim, parts };
}

async function stage(a: TestApp, s: Awaited<ReturnType<typeof setup>>, bytes?: Uint8Array, partIndex = 0) {
  const row = await stagePhoto(a, {
    partId: s.parts[partIndex].id,
    claimId: s.claim.id,
    stage: "direct_dropoff",
    userId: s.user.id,
    withFile: false,
  });
  const photo = await makePhoto(a.db, a.storage, bytes);
  await a.db.updateTable("uploaded_images").set({ photo_id: photo.id }).where("id", "=", row.id).execute();
  return { ...row, photo_id: photo.id };
}

async function ids(a: TestApp, table: "uploaded_images" | "photos") {
  return (await a.db.selectFrom(table).select("id").orderBy("id").execute()).map((r) => r.id);
}

async function keyOf(a: TestApp, photoId: number) {
  return (await a.db.selectFrom("photos").select("storage_key").where("id", "=", photoId)
    .executeTakeFirstOrThrow())
    .storage_key;
}

/** Moves the fake clock to the real time, so file times (real) and the purge's clock agree. */
function syncClockToRealTime(a: TestApp) {
  a.clock.advance(Date.now() - a.clock.now().getTime());
}

/** A Deliver_Parts row using the staged photo as pickup (and delivery) image, as a direct drop-off does. */
async function deliverWith(
  a: TestApp,
  s: Awaited<ReturnType<typeof setup>>,
  stagedId: number,
  photoId: number,
) {
  const repairer = await a.db.selectFrom("claim_management").select("repairer_id").where(
    "claim_id",
    "=",
    s.claim.id,
  )
    .executeTakeFirstOrThrow();
  const now = a.clock.now();
  const movement = await a.db.insertInto("parts_movements").values({
    claim_id: s.claim.id,
    movement_type: "direct",
    movement_status: "Parts Dropped off",
    picked_up_by: s.user.id,
    dropped_off_by: s.user.id,
    pick_up_at: now,
    dropped_off_at: now,
    repairer_id: repairer.repairer_id,
  }).returning("id").executeTakeFirstOrThrow();
  return await a.db.insertInto("deliver_parts").values({
    movement_id: movement.id,
    part_id: s.parts[0].id,
    pickup: true,
    delivery: true,
    qty_ordered: 1,
    pickup_image_id: stagedId,
    delivery_image_id: stagedId,
    pickup_photo_id: photoId,
    delivery_photo_id: photoId,
  }).returningAll().executeTakeFirstOrThrow();
}

appTest(
  "purge: a staged row older than 30 days goes with its token, its unused photo row and file",
  async (a) => {
    const s = await setup(a);
    const old = await stage(a, s);
    await a.db.insertInto("upload_tokens").values({
      token_hash: "a".repeat(64),
      image_id: old.id,
      field_name: "Parts_Image",
      expires_at: a.clock.now(),
    }).execute();
    const key = await keyOf(a, old.photo_id!);
    a.clock.advance(31 * DAY);

    const report = await purgePhotos(a);
    assert.deepEqual(report, { stagedRows: 1, photoRows: 1, files: 1, tmpFiles: 0 });
    assert.deepEqual(await ids(a, "uploaded_images"), []);
    assert.deepEqual(await ids(a, "photos"), []);
    assert.deepEqual(await a.db.selectFrom("upload_tokens").selectAll().execute(), []);
    assert.equal(await a.storage.exists(key), false);
    // Nothing left to do on a second run.
    assert.deepEqual(await purgePhotos(a), { stagedRows: 0, photoRows: 0, files: 0, tmpFiles: 0 });
  },
);

appTest("purge: staged rows younger than 30 days and their photos are kept", async (a) => {
  const s = await setup(a);
  const young = await stage(a, s);
  a.clock.advance(29 * DAY);
  assert.deepEqual(await purgePhotos(a), { stagedRows: 0, photoRows: 0, files: 0, tmpFiles: 0 });
  assert.deepEqual(await ids(a, "uploaded_images"), [young.id]);
  assert.ok(await a.storage.exists(await keyOf(a, young.photo_id!)));
});

appTest(
  "purge: a photo used by Deliver_Parts is kept when its staged row goes; the staged link is cleared",
  async (a) => {
    const s = await setup(a);
    const used = await stage(a, s);
    const delivery = await deliverWith(a, s, used.id, used.photo_id!);
    const key = await keyOf(a, used.photo_id!);
    a.clock.advance(31 * DAY);

    const report = await purgePhotos(a);
    assert.equal(report.stagedRows, 1);
    assert.equal(report.photoRows, 0);
    assert.deepEqual(await ids(a, "photos"), [used.photo_id]);
    assert.ok(await a.storage.exists(key));
    const after = await a.db.selectFrom("deliver_parts").selectAll().where("id", "=", delivery.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.pickup_image_id, null);
    assert.equal(after.delivery_image_id, null);
    assert.equal(after.pickup_photo_id, used.photo_id);
    assert.equal(after.delivery_photo_id, used.photo_id);
  },
);

appTest("purge: a photo shared (same bytes) by an old and a recent staged row is kept", async (a) => {
  const s = await setup(a);
  const old = await stage(a, s, await pngPhoto());
  a.clock.advance(20 * DAY);
  const recent = await stage(a, s, await pngPhoto(), 1);
  assert.equal(old.photo_id, recent.photo_id);
  a.clock.advance(11 * DAY);
  const report = await purgePhotos(a);
  assert.deepEqual(report, { stagedRows: 1, photoRows: 0, files: 0, tmpFiles: 0 });
  assert.ok(await a.storage.exists(await keyOf(a, recent.photo_id!)));
});

appTest("purge: a purged photo's thumbnail file goes too", async (a) => {
  const s = await setup(a);
  const old = await stage(a, s, await webpPhoto());
  const thumb = await makePhoto(a.db, a.storage, await jpegPhoto()); // stands in for a made thumbnail
  await a.db.deleteFrom("photos").where("id", "=", thumb.id).execute();
  await a.db.updateTable("photos").set({ thumb_key: thumb.storage_key }).where("id", "=", old.photo_id!)
    .execute();
  a.clock.advance(31 * DAY);
  const report = await purgePhotos(a);
  assert.deepEqual(report, { stagedRows: 1, photoRows: 1, files: 2, tmpFiles: 0 });
  assert.deepEqual(await Array.fromAsync(a.storage.keys()), []);
});

appTest(
  "purge: files no photo row names and stale tmp/ leftovers go once past the in-flight grace",
  async (a) => {
    syncClockToRealTime(a);
    const orphan = await a.storage.writeStream(ReadableStream.from([await pngPhoto()]), {
      maxBytes: 1 << 20,
    });
    const s = await setup(a);
    const kept = await stage(a, s);
    await Deno.mkdir(a.storage.tmpDir, { recursive: true });
    await Deno.writeFile(join(a.storage.tmpDir, "dead-upload"), new Uint8Array(10));

    // Within the grace, an orphan may be an upload about to record its row, a tmp file one still arriving.
    assert.deepEqual(await purgePhotos(a), { stagedRows: 0, photoRows: 0, files: 0, tmpFiles: 0 });
    assert.ok(await a.storage.exists(orphan.key));

    a.clock.advance(IN_FLIGHT_GRACE_MS + 60_000);
    assert.deepEqual(await purgePhotos(a), { stagedRows: 0, photoRows: 0, files: 1, tmpFiles: 1 });
    assert.equal(await a.storage.exists(orphan.key), false);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(a.storage.tmpDir)), []);
    assert.ok(await a.storage.exists(await keyOf(a, kept.photo_id!)));
  },
);

appTest(
  "purge: a file touched after the purge started (a re-upload of the same bytes) keeps its file",
  async (a) => {
    const s = await setup(a);
    const old = await stage(a, s);
    const key = await keyOf(a, old.photo_id!);
    a.clock.advance(31 * DAY);
    // The same bytes arrive again while the purge runs: storage refreshes the file's time.
    const future = new Date(a.clock.now().getTime() + 60_000);
    await Deno.utime(a.storage.path(key), future, future);
    const report = await purgePhotos(a);
    assert.deepEqual(report, { stagedRows: 1, photoRows: 1, files: 0, tmpFiles: 0 });
    assert.ok(await a.storage.exists(key));
  },
);

appTest("purge: the schedule runs the purge, again after the interval, and stops cleanly", async (a) => {
  const s = await setup(a);
  await stage(a, s);
  a.clock.advance(31 * DAY);
  // Staged before the schedule starts: with the fake clock ahead of the files' real times, a run during a
  // write would take the upload's temporary file for a crash leftover (in production the clocks agree).
  await stage(a, s, await pngPhoto(), 1);
  const lines: string[] = [];
  const schedule = startPurgeSchedule(a, { firstDelayMs: 0, intervalMs: 30, log: (l) => lines.push(l) });
  try {
    for (let i = 0; i < 200 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(lines[0], "purge: 1 staged rows, 1 photo rows, 1 files, 0 temporary files removed");
    // A later run finds the work that became due meanwhile (runs in between may find nothing).
    a.clock.advance(31 * DAY);
    const done = async () => lines.length >= 2 && (await ids(a, "uploaded_images")).length === 0;
    for (let i = 0; i < 300 && !(await done()); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(await ids(a, "uploaded_images"), []);
    assert.ok(lines.length >= 2, `runs logged: ${lines.length}`);
  } finally {
    await schedule.stop();
  }
});

appTest("purge: a failing run is logged and the schedule carries on", async (a) => {
  using logs = captureLogs({ format: "text", level: "error" });
  const errors = logs.lines;
  const db = new Proxy(a.db, {
    get: (target, prop) =>
      prop === "deleteFrom"
        ? () => {
          throw new Error("database down");
        }
        : Reflect.get(target, prop),
  });
  const broken = { ...a, db };
  const schedule = startPurgeSchedule(broken, { firstDelayMs: 0, intervalMs: 20 });
  try {
    for (let i = 0; i < 200 && errors.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  } finally {
    await schedule.stop();
  }
  assert.ok(errors.length >= 2, `runs logged: ${errors.length}`);
  assert.match(errors[0], /purge failed \(next run in 0 min\): Error: database down/);
});

Deno.test({
  name: "purge: `deno task purge` runs on a fresh data folder and says what it removed",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-purge-cli-" });
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["task", "-q", "purge"],
        cwd: new URL("..", import.meta.url).pathname,
        env: { DATA_DIR: dataDir, DATABASE_URL: "", APP_ENV: "development", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.equal(stdout.trim(), "Purged 0 staged rows, 0 photo rows, 0 files, 0 temporary files.");
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

appTest(
  "purge: stale files in the instances' own staging folders go too, live ones stay; a start clears only its own",
  async (a) => {
    syncClockToRealTime(a);
    const tmp = a.storage.tmpRoot;
    const mine = join(tmp, "instance-here-8000");
    const theirs = join(tmp, "instance-there-8001");
    for (const dir of [mine, theirs]) await Deno.mkdir(dir, { recursive: true });
    await Deno.writeFile(join(mine, "killed"), new Uint8Array(10));
    await Deno.writeFile(join(theirs, "arriving"), new Uint8Array(10));

    // A start clears what its own folder held before it (an upload of this run is younger).
    a.storage.stageInOwnFolder("here-8000");
    assert.equal(a.storage.tmpDir, mine);
    assert.equal(await a.storage.clearOwnFolder(new Date(Date.now() - 3_600_000)), 0, "younger: kept");
    assert.equal(await a.storage.clearOwnFolder(new Date(Date.now() + 1_000)), 1);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(mine)), []);
    assert.ok(await Deno.stat(join(theirs, "arriving")), "another instance's folder is not its");

    // The purge sweeps every instance's folder past the in-flight grace.
    assert.equal((await purgePhotos(a)).tmpFiles, 0);
    a.clock.advance(IN_FLIGHT_GRACE_MS + 60_000);
    assert.equal((await purgePhotos(a)).tmpFiles, 1);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(theirs)), []);
  },
);

appTest(
  "purge: staged rows a retake replaced go with their photos, even when the server stopped before its sweep",
  async (a) => {
    syncClockToRealTime(a);
    const s = await setup(a);
    const first = await stage(a, s);
    await a.db.updateTable("uploaded_images").set({ replaced_at: a.clock.now() }).where("id", "=", first.id)
      .execute();
    a.clock.advance(IN_FLIGHT_GRACE_MS + 60_000);
    const key = await keyOf(a, first.photo_id!);
    const report = await purgePhotos(a);
    assert.equal(report.stagedRows, 1);
    assert.equal(report.photoRows, 1);
    assert.equal(await a.storage.exists(key), false);
  },
);

appTest(
  "purge: a handover image no submission took goes after 30 days with its photo; one a handover took stays",
  async (a) => {
    const s = await setup(a);
    const staged = await stage(a, s);
    const delivery = await deliverWith(a, s, staged.id, staged.photo_id!);
    const unused = await makePhoto(a.db, a.storage, await pngPhoto());
    const taken = await makePhoto(a.db, a.storage, await webpPhoto());
    const unusedId = await insertHandoverImage(a.db, {
      kind: "signature",
      photoId: unused.id,
      userId: s.user.id,
      at: a.clock.now(),
    });
    const takenId = await insertHandoverImage(a.db, {
      kind: "signature",
      photoId: taken.id,
      userId: s.user.id,
      at: a.clock.now(),
    });
    await a.db.updateTable("handover_images").set({
      movement_id: delivery.movement_id,
      leg: "direct_dropoff",
    })
      .where("id", "=", takenId).execute();
    await a.db.insertInto("handovers").values({
      movement_id: delivery.movement_id,
      leg: "direct_dropoff",
      receiver_name: "Sam",
      signature_photo_id: taken.id,
      recorded_at: a.clock.now(),
      recorded_by: s.user.id,
      digest: "0".repeat(64),
    }).execute();
    a.clock.advance(29 * DAY);
    assert.equal((await purgePhotos(a)).photoRows, 0, "younger than 30 days: kept");
    a.clock.advance(2 * DAY);

    const report = await purgePhotos(a);
    // The part's staged row and the unused handover image go; the photos the movement and handover use stay.
    assert.equal(report.stagedRows, 2);
    assert.equal(report.photoRows, 1);
    const left = await a.db.selectFrom("handover_images").select("id").execute();
    assert.deepEqual(left.map((r) => r.id), [takenId]);
    assert.notEqual(unusedId, takenId);
    assert.deepEqual(await ids(a, "photos"), [staged.photo_id, taken.id].sort((x, y) => x! - y!));
    assert.equal(await a.storage.exists(unused.storage_key), false);
    assert.ok(await a.storage.exists(taken.storage_key));
  },
);
