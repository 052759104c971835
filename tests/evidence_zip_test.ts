import assert from "node:assert/strict";
import { join } from "node:path";
import { parseCsv } from "@/io/csv.ts";
import type { Leg } from "@/lib/dashboard/claim.ts";
import { evidenceFiles } from "@/lib/evidence/zip.ts";
import { UNZIP_PATH } from "@/tasks/prepare_tests.ts";
import { appTest } from "@/testkit/app.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { claimStory } from "@/tests/helpers/claim_story.ts";
import { equalBytes } from "@/tests/helpers/multipart.ts";

const sha256Hex = async (bytes: Uint8Array<ArrayBuffer>) =>
  Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");

async function unzip(args: string[]): Promise<string> {
  const out = await new Deno.Command(UNZIP_PATH, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `unzip ${args.join(" ")} failed:\n${text}`);
  return text;
}

interface ManifestRow {
  file: string;
  sha256: string;
  bytes: number;
  part_no: string;
  leg: string;
  movement_id: number;
  driver: string;
  place: string;
  time: string;
}

appTest(
  "evidence zip: opens with unzip; every photo matches its manifest SHA-256 and the stored photo byte for byte; every leg listed",
  async (a) => {
    const s = await claimStory(a);
    const d = await signedIn(a, "dispatcher");
    const res = await d.get(`/hq/claims/${encodeURIComponent(s.claim.claim_number)}/evidence.zip`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.equal(res.headers.get("content-disposition"), 'attachment; filename="evidence-CLM-EV_1.zip"');

    const dir = await Deno.makeTempDir({ prefix: "evidence-" });
    try {
      const zipPath = join(dir, "pack.zip");
      await Deno.writeFile(zipPath, new Uint8Array(await res.arrayBuffer()));
      assert.match(await unzip(["-t", zipPath]), /No errors detected/);
      const out = join(dir, "out");
      await unzip(["-q", zipPath, "-d", out]);

      const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
      assert.equal(manifest.claim_number, "CLM-EV/1");
      assert.equal(manifest.time_zone, "Australia/Sydney");
      const rows: ManifestRow[] = manifest.files;
      // Every leg of every part, with driver, place and the depot's time.
      assert.deepEqual(
        rows.map((r) => [r.part_no, r.leg, r.driver, r.place, r.time]),
        [
          ["PN-A", "direct_dropoff", "Dana Driver", "Evidence Panels", "2026-11-21T21:00:00.000+11:00"],
          ["PN/B", "reverse_pickup", "Dana Driver", "Evidence Panels", "2026-11-21T23:00:00.000+11:00"],
          ["PN/B", "reverse_dropoff", "Dana Driver", "Depot North", "2026-11-22T00:00:00.000+11:00"],
        ],
      );
      assert.deepEqual(rows.map((r) => r.file), [
        "PN-A_direct_dropoff_2026-11-21T21-00-00+1100.jpg",
        "PN_B_reverse_pickup_2026-11-21T23-00-00+1100.jpg",
        "PN_B_reverse_dropoff_2026-11-22T00-00-00+1100.jpg",
      ]);
      const legKeys = [
        `${s.partA.id}:direct_dropoff`,
        `${s.partB.id}:reverse_pickup`,
        `${s.partB.id}:reverse_dropoff`,
      ];
      for (const [i, row] of rows.entries()) {
        const bytes = await Deno.readFile(join(out, row.file));
        const recorded = await a.db.selectFrom("photos").select(["storage_key", "byte_size"])
          .where("storage_key", "=", row.sha256).executeTakeFirstOrThrow();
        assert.equal(await sha256Hex(bytes), row.sha256, `${row.file} hashes to its manifest SHA-256`);
        assert.equal(row.sha256, recorded.storage_key, "the SHA-256 recorded when the photo was stored");
        assert.equal(row.bytes, bytes.length);
        assert.equal(recorded.byte_size, bytes.length);
        assert.ok(equalBytes(bytes, (await a.storage.read(row.sha256))!), `${row.file} is the stored photo`);
        assert.ok(
          equalBytes(bytes, s.photos.get(legKeys[i])!),
          `${row.file} is the photo the driver uploaded`,
        );
      }

      // The CSV manifest says the same.
      const csv = parseCsv(await Deno.readTextFile(join(out, "manifest.csv")));
      assert.deepEqual(csv[0], [
        "file",
        "sha256",
        "bytes",
        "part_no",
        "part_id",
        "leg",
        "movement_id",
        "driver",
        "place",
        "time",
        "receiver_name",
        "handover_time",
        "handover_digest",
        "unsigned_reason",
      ]);
      assert.deepEqual(
        csv.slice(1).map((r) => [r[0], r[1], Number(r[2]), r[3], r[5], Number(r[6]), r[7], r[8], r[9]]),
        rows.map((
          r,
        ) => [r.file, r.sha256, r.bytes, r.part_no, r.leg, r.movement_id, r.driver, r.place, r.time]),
      );

      // The printable page, showing the packed photos beside it, with its stylesheet.
      const html = await Deno.readTextFile(join(out, "claim.html"));
      assert.match(html, /Claim CLM-EV\/1/);
      for (const r of rows) assert.match(html, new RegExp(`<img src="${r.file.replace(/[.+]/g, "\\$&")}"`));
      assert.match(html, /<link rel="stylesheet" href="styles.css"\/>/);
      assert.doesNotMatch(html, /href="\//, "no link to the dashboard: the copy is read offline");
      assert.match(await Deno.readTextFile(join(out, "styles.css")), /@media print/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
  { config: { depotTimeZone: "Australia/Sydney" } },
);

appTest(
  "evidence zip: a photo missing from the store gets a 503 page before any byte of a pack",
  async (a) => {
    const s = await claimStory(a);
    const d = await signedIn(a, "dispatcher");
    const gone = await a.db.selectFrom("deliver_parts as dp").innerJoin(
      "photos as p",
      "p.id",
      "dp.delivery_photo_id",
    )
      .select("p.storage_key").where("dp.movement_id", "=", s.trip).executeTakeFirstOrThrow();
    await a.storage.remove(gone.storage_key);
    const res = await d.get(`/hq/claims/${encodeURIComponent(s.claim.claim_number)}/evidence.zip`);
    const text = await pageText(res, 503);
    assert.match(text, /Evidence pack incomplete/);
    assert.match(text, /PN_B_reverse_dropoff_2026-11-22T00-00-00\+1100\.jpg/);
    assert.doesNotMatch(text, /PN-A_direct_dropoff/, "only the missing photo is named");
  },
  { config: { depotTimeZone: "Australia/Sydney" } },
);

Deno.test("evidence zip: file names are sanitised and unique; legs without a photo are left out", () => {
  const leg = (partNo: string, photo: boolean): Leg => ({
    partId: 1,
    partNo,
    movementId: 1,
    movementType: "reverse",
    leg: "reverse_pickup",
    at: new Date("2026-11-21T09:00:00Z"),
    driver: "D",
    place: "P",
    photo: photo ? { id: 1, sha256: "a".repeat(64), bytes: 3, contentType: "image/png" } : null,
    handover: null,
    recordedVia: "tablet",
  });
  const names = evidenceFiles([leg("../x y", true), leg("../x y", true), leg("none", false)], "UTC")
    .map((f) => f.fileName);
  assert.deepEqual(names, [
    "__x_y_reverse_pickup_2026-11-21T09-00-00Z.png",
    "__x_y_reverse_pickup_2026-11-21T09-00-00Z-2.png",
  ]);
});

Deno.test("evidence zip: a WebP photo (the tablet's, docs/uplink.md) keeps its type in its file name", () => {
  const [file] = evidenceFiles([{
    partId: 1,
    partNo: "PN-1",
    movementId: 1,
    movementType: "direct",
    leg: "direct_dropoff",
    at: new Date("2026-11-21T09:00:00Z"),
    driver: "D",
    place: "P",
    photo: { id: 1, sha256: "a".repeat(64), bytes: 3, contentType: "image/webp" },
    handover: null,
    recordedVia: "tablet",
  }], "UTC");
  assert.equal(file.fileName, "PN-1_direct_dropoff_2026-11-21T09-00-00Z.webp");
});
