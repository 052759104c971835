/**
 * A handover where it is shown (docs/handover.md "Where it is shown", "Evidence pack"): the evidence ZIP holds
 * each signature and left-at photo, its manifest names the receiver, and each digest is recomputed from the
 * ZIP's own files with `sha256sum`, as docs/handover.md tells anyone to; the claim, movement and part pages
 * and the tablet's receipt show who signed; the mobile app's legs read "no signature (mobile app)".
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseCsv } from "@/io/csv.ts";
import { UNZIP_PATH } from "@/tasks/prepare_tests.ts";
import type { TestApp } from "@/testkit/app.ts";
import { appTest } from "@/testkit/app.ts";
import { makeClaim, makeHq, makeRepairer } from "@/testkit/factories.ts";
import { claimStory } from "@/tests/helpers/claim_story.ts";
import { json, leftPhoto, photographed, setPolicies, signature } from "@/tests/helpers/handover.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

async function run(command: string, args: string[], stdin?: string): Promise<string> {
  const child = new Deno.Command(command, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, `${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return text;
}

/** `sha256sum <file>`'s hash. */
const sha256sum = async (path: string) => (await run("sha256sum", [path])).split(" ")[0];

/**
 * A claim moved on the tablet: PN-1 delivered to the shop and signed for; PN-2 collected from the shop
 * (signed for), then returned to HQ with nobody to sign.
 */
async function tabletStory(a: TestApp) {
  await makeHq(a.db, "Depot North");
  const shop = await makeRepairer(a.db, "North Smash Repairs");
  const { claim, parts } = await makeClaim(a.db, {
    claimNumber: "CLM-HO/1",
    registration: "HND 001",
    management: shop.id,
    parts: [{ status: "Arrived", part_no: "PN-1" }, {
      status: "Pending Repair Shop Pick-Up",
      part_no: "PN-2",
    }],
  });
  const driver = await makeDriver(a, { name: "Dana Driver" });
  const t = new Tablet(a);
  await t.signIn(driver);
  const delivered = await json(
    await t.postJson("/tablet/api/movements", {
      job: "deliver",
      rego: "HND 001",
      repairer_id: shop.id,
      parts: await photographed(t, "deliver", "HND 001", [parts[0].id]),
      handover: { receiver_name: "Sam Shopkeeper", signature_image_id: await signature(t, 2) },
    }),
  );
  const trip = await json(
    await t.postJson("/tablet/api/movements", {
      job: "collect",
      rego: "HND 001",
      parts: await photographed(t, "collect", "HND 001", [parts[1].id]),
      handover: { receiver_name: "Robin Foreman", signature_image_id: await signature(t, 4) },
    }),
  );
  await json(
    await t.postJson("/tablet/api/movements", {
      job: "return",
      rego: "HND 001",
      movement_id: trip.movement_id,
      parts: await photographed(t, "return", "HND 001", [parts[1].id]),
      handover: { unsigned_reason: "shop_closed", left_image_id: await leftPhoto(t) },
    }),
  );
  return { t, claim, parts, delivered: delivered.movement_id as number, trip: trip.movement_id as number };
}

appTest(
  "handover evidence: the ZIP holds signatures/ and left/ files, manifest.csv names the receiver, and each " +
    "digest is recomputed from the ZIP's own files with sha256sum",
  async (a) => {
    const s = await tabletStory(a);
    const d = await signedIn(a, "dispatcher");
    const res = await d.get(`/hq/claims/${encodeURIComponent(s.claim.claim_number)}/evidence.zip`);
    assert.equal(res.status, 200);
    const dir = await Deno.makeTempDir({ prefix: "handover-evidence-" });
    try {
      const zipPath = join(dir, "pack.zip");
      await Deno.writeFile(zipPath, new Uint8Array(await res.arrayBuffer()));
      const out = join(dir, "out");
      await run(UNZIP_PATH, ["-q", zipPath, "-d", out]);
      const [head, ...lines] = parseCsv(await Deno.readTextFile(join(out, "manifest.csv")));
      const rows = lines.map((l) => Object.fromEntries(head.map((h, i) => [h, l[i]])));
      const files = rows.map((r) => r.file);
      assert.ok(files.includes(`signatures/${s.delivered}_direct_dropoff.png`), files.join(", "));
      assert.ok(files.includes(`signatures/${s.trip}_reverse_pickup.png`), files.join(", "));
      assert.ok(files.includes(`left/${s.trip}_reverse_dropoff.jpg`), files.join(", "));
      const signed = rows.filter((r) => r.receiver_name === "Sam Shopkeeper");
      assert.equal(signed.length, 2, "the part's photo row and the signature's row");
      assert.ok(rows.some((r) => r.receiver_name === "Robin Foreman"));
      assert.ok(rows.some((r) => r.unsigned_reason === "shop_closed"));

      // docs/handover.md "Recomputing the digest": from the ZIP's files alone, per movement leg.
      const legs = new Map<string, typeof rows>();
      for (const r of rows) {
        legs.set(`${r.movement_id} ${r.leg}`, [...(legs.get(`${r.movement_id} ${r.leg}`) ?? []), r]);
      }
      assert.equal(legs.size, 3);
      for (const [key, legRows] of legs) {
        const [movementId, leg] = key.split(" ");
        const digest = legRows[0].handover_digest;
        assert.match(digest, /^[0-9a-f]{64}$/, key);
        const hashOf = async (row: Record<string, string> | undefined) =>
          row ? await sha256sum(join(out, row.file)) : "none";
        const partLines = [];
        for (
          const r of legRows.filter((r) => r.part_id !== "").sort((x, y) =>
            Number(x.part_id) - Number(y.part_id)
          )
        ) {
          const hash = await hashOf(r);
          assert.equal(hash, r.sha256, `${r.file} hashes to its manifest SHA-256`);
          partLines.push(`part ${r.part_id} ${hash}`);
        }
        const text = [
          "parts-movement handover v1",
          `movement ${movementId}`,
          `leg ${leg}`,
          ...partLines,
          `signature ${await hashOf(legRows.find((r) => r.file.startsWith("signatures/")))}`,
          `left ${await hashOf(legRows.find((r) => r.file.startsWith("left/")))}`,
        ].join("\n") + "\n";
        assert.equal((await run("sha256sum", [], text)).split(" ")[0], digest, `${key}:\n${text}`);
      }

      const html = await Deno.readTextFile(join(out, "claim.html"));
      assert.match(html, new RegExp(`<img src="signatures/${s.delivered}_direct_dropoff.png"`));
      assert.match(html, /Nobody to sign: <strong>Shop closed<\/strong>/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

appTest("handover shown: the claim, movement and part pages and the receipt say who signed", async (a) => {
  const s = await tabletStory(a);
  const d = await signedIn(a, "dispatcher");
  const claim = await pageText(await d.get(`/hq/claims/${encodeURIComponent(s.claim.claim_number)}`));
  assert.match(claim, /Signed by Sam Shopkeeper at \d{4}-\d\d-\d\d \d\d:\d\d/);
  assert.match(claim, /Signed by Robin Foreman at/);
  assert.match(claim, /Nobody to sign: Shop closed/);

  const movement = await pageText(await d.get(`/hq/movements/${s.trip}`));
  assert.match(movement, /Collected at the repair shop Signed by Robin Foreman at/);
  assert.match(movement, /Returned at HQ Nobody to sign: Shop closed/);

  const part = await pageText(await d.get(`/hq/parts/${s.parts[0].id}`));
  assert.match(part, /Signed by Sam Shopkeeper at/);

  const receipt = await s.t.request(`/tablet/movements/${s.delivered}`);
  assert.equal(receipt.status, 200);
  const html = await receipt.text();
  assert.match(html, /Signed by <strong[^>]*>Sam Shopkeeper<\/strong>/);
  const sig = /<img src="\/photos\/(\d+)" alt="Signature of Sam Shopkeeper"/.exec(html);
  assert.ok(sig, "the receipt shows the signature");
  // The driver who recorded it may open it; another driver may not.
  assert.equal((await s.t.request(`/photos/${sig[1]}`)).status, 200);
  const other = new Tablet(a);
  await other.signIn(await makeDriver(a));
  assert.equal((await other.request(`/photos/${sig[1]}`)).status, 404);
});

appTest(
  'handover shown: the mobile app\'s legs read "no signature (mobile app)", the tablet\'s under off "no signature asked"',
  async (a) => {
    const story = await claimStory(a);
    const d = await signedIn(a, "dispatcher");
    const claim = await pageText(await d.get(`/hq/claims/${encodeURIComponent(story.claim.claim_number)}`));
    assert.equal(claim.match(/no signature \(mobile app\)/g)?.length, 3, "each of the three legs");
    assert.doesNotMatch(claim, /no signature asked/);

    await setPolicies(a, { direct_dropoff: "off" });
    const shop = await makeRepairer(a.db, "Quiet Panels");
    const { parts } = await makeClaim(a.db, {
      registration: "OFF 001",
      management: shop.id,
      parts: [{ status: "Arrived" }],
    });
    const t = new Tablet(a);
    await t.signIn(await makeDriver(a));
    const done = await json(
      await t.postJson("/tablet/api/movements", {
        job: "deliver",
        rego: "OFF 001",
        repairer_id: shop.id,
        parts: await photographed(t, "deliver", "OFF 001", [parts[0].id]),
      }),
    );
    const movement = await pageText(await d.get(`/hq/movements/${done.movement_id}`));
    assert.match(movement, /Delivered at the repair shop no signature asked/);
  },
);
