import assert from "node:assert/strict";
import { sql } from "kysely";
import { csvRow, type CsvValue, parseCsv } from "@/io/csv.ts";
import { PART_STATUSES, type PartStatus } from "@/db/schema.ts";
import type { PartFilters } from "@/db/queries/parts.ts";
import { stripBidi } from "@/lib/validation.ts";
import { changeStatusByDispatcher } from "@/lib/part_status.ts";
import { EXPORT_BATCH, MOVEMENT_HEADER, PART_HEADER, partsCsv } from "@/lib/dashboard/exports.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";

async function csvOf(res: Response) {
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 BOM for Excel");
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  assert.ok(text.endsWith("\r\n"));
  return parseCsv(text);
}

/** A data row as column name → cell, so each check says which column it reads. */
function byColumn(header: string[], row: string[]): Record<string, string> {
  assert.equal(row.length, header.length, "one cell per column");
  return Object.fromEntries(header.map((name, i) => [name, row[i]]));
}

appTest(
  "hq exports: the parts CSV parses back, with status dates, defused formulas and quoted cells",
  async (a) => {
    const shop = await makeRepairer(a.db, 'Smith, Jones & "Sons"');
    const { parts } = await makeClaim(a.db, {
      claimNumber: "CLM-CSV",
      registration: "CSV 1",
      management: shop.id,
      parts: [
        { status: "Ordered", part_no: '=HYPERLINK("http://evil.example")', description: "@SUM(A1:A9)" },
        { status: "Arrived", part_no: "PN-QUOTE", description: 'Bumper, front\n"left" side' },
      ],
    });
    const d = await signedIn(a, "dispatcher");
    a.clock.advance(60_000);
    await changeStatusByDispatcher(a.db, a.clock, {
      partId: parts[0].id,
      from: "Ordered",
      to: "Arrived",
      userId: d.user.id,
    });

    const res = await d.get("/hq/exports/parts.csv?claim=CLM-CSV");
    assert.match(res.headers.get("content-disposition")!, /^attachment; filename="parts-2026-11-21\.csv"$/);
    const rows = await csvOf(res);
    assert.deepEqual(rows[0], PART_HEADER);
    assert.equal(rows.length, 3);
    const [first, second] = rows.slice(1).map((row) => byColumn(rows[0], row));
    assert.equal(first["Part ID"], String(parts[0].id));
    assert.equal(first["Part No."], '\'=HYPERLINK("http://evil.example")', "formula defused");
    assert.equal(first["Description"], "'@SUM(A1:A9)");
    assert.equal(first["Status"], "Arrived");
    assert.equal(first["Status since"], "2026-11-21T09:01:00.000Z");
    assert.equal(first["Repair shop"], 'Smith, Jones & "Sons"');
    assert.equal(first["Arrived at"], "2026-11-21T09:01:00.000Z", "entered Arrived at, from the history");
    assert.equal(first["Delivered to repair shop at"], "");
    assert.equal(second["Part No."], "PN-QUOTE");
    assert.equal(second["Description"], 'Bumper, front\n"left" side');
    const raw = await (await d.get("/hq/exports/parts.csv?claim=CLM-CSV")).text();
    assert.ok(raw.includes('"Bumper, front\n""left"" side"'), "quoted with doubled quotes");
    assert.ok(raw.includes('"\'=HYPERLINK(""http://evil.example"")"'));
  },
);

appTest("hq exports: the parts CSV streams every row across batches, filtered like the list", async (a) => {
  const { claim } = await makeClaim(a.db, { claimNumber: "CLM-BIG", parts: [] });
  // Two batch borders and a part batch.
  const count = 2 * EXPORT_BATCH + 3;
  await a.db.insertInto("parts_orders").values(
    Array.from({ length: count }, (_, i) => ({
      claim_id: claim.id,
      part_no: `BIG-${String(i).padStart(4, "0")}`,
      description: "bulk",
      qty_ordered: 1,
      status: i % 2 ? "Arrived" as const : "Ordered" as const,
    })),
  ).execute();
  await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
  const d = await signedIn(a, "dispatcher");
  const rows = await csvOf(await d.get("/hq/exports/parts.csv?claim=CLM-BIG"));
  assert.equal(rows.length, 1 + count);
  const ids = rows.slice(1).map((r) => Number(r[0]));
  assert.deepEqual(ids, [...ids].sort((x, y) => x - y), "in id order");
  assert.equal(new Set(ids).size, count, "no row twice across batch borders");
  const arrived = await csvOf(await d.get("/hq/exports/parts.csv?claim=CLM-BIG&status=Arrived"));
  assert.equal(arrived.length, 1 + (count - 1) / 2);
});

appTest(
  "hq exports: unfiltered or by status, each part carries its own claim, rego and repair shop, across batches",
  async (a) => {
    // Without a claim filter the claims are read once per batch beside the parts (db/queries/parts.ts):
    // the rows must be exactly those of the claim-filtered export, which joins each part to its claim.
    const shop = await makeRepairer(a.db, 'Shop, "North"');
    const { claim: withShop } = await makeClaim(a.db, {
      claimNumber: "CLM-ONE",
      registration: "ONE 1",
      management: shop.id,
      parts: [],
    });
    const { claim: noShop } = await makeClaim(a.db, {
      claimNumber: "CLM-TWO",
      registration: "TWO 2",
      management: false,
      parts: [],
    });
    // Parts of the two claims interleaved, over a batch border, so each batch holds both claims.
    const count = EXPORT_BATCH + 5;
    await a.db.insertInto("parts_orders").values(
      Array.from({ length: count }, (_, i) => ({
        claim_id: i % 2 ? noShop.id : withShop.id,
        part_no: `MIX-${i}`,
        description: "mixed",
        qty_ordered: 1,
        status: i % 3 ? "Ordered" as const : "Arrived" as const,
      })),
    ).execute();
    const d = await signedIn(a, "dispatcher");
    const all = await csvOf(await d.get("/hq/exports/parts.csv"));
    assert.equal(all.length, 1 + count);
    const rows = all.slice(1).map((row) => byColumn(all[0], row));
    for (const [i, row] of rows.entries()) {
      assert.equal(row["Part No."], `MIX-${i}`, "in id order");
      assert.deepEqual(
        [row["Claim number"], row["Rego"], row["Repair shop"]],
        i % 2 ? ["CLM-TWO", "TWO 2", ""] : ["CLM-ONE", "ONE 1", 'Shop, "North"'],
      );
    }
    const one = await csvOf(await d.get("/hq/exports/parts.csv?claim=CLM-ONE"));
    assert.deepEqual(
      one.slice(1),
      all.slice(1).filter((_, i) => i % 2 === 0),
      "same rows as the joined export",
    );
    const arrived = await csvOf(await d.get("/hq/exports/parts.csv?status=Arrived"));
    assert.deepEqual(arrived.slice(1), all.slice(1).filter((_, i) => i % 3 === 0));
  },
);

/**
 * The parts CSV as computed independently of the export's reads and writer: every part, claim, management,
 * repair shop and history row read plainly (times as the driver's Dates), the latest time each status was
 * entered found here, and each row written by the generic csvRow with every text cell's bidirectional
 * controls stripped: what the export wrote before it read its times as text and wrote its own lines.
 */
async function partsCsvIndependently(a: TestApp, filters: PartFilters, zone: string): Promise<string> {
  const parts = await a.db.selectFrom("parts_orders as p").innerJoin("claims as c", "c.id", "p.claim_id")
    .leftJoin("claim_management as cm", "cm.claim_id", "c.id").leftJoin(
      "repairers as r",
      "r.id",
      "cm.repairer_id",
    )
    .select([
      "p.id",
      "p.part_no",
      "p.description",
      "p.qty_ordered",
      "p.status",
      "p.updated_at",
      "c.claim_number",
    ])
    .select(["c.registration", "r.name as repairer_name", "cm.repairer_id"]).orderBy("p.id").execute();
  const history = await a.db.selectFrom("part_status_history").select(["part_id", "to_status", "changed_at"])
    .execute();
  const entered = (partId: number, status: PartStatus) =>
    history.filter((h) => h.part_id === partId && h.to_status === status)
      .reduce<Date | null>((t, h) => t && t >= h.changed_at ? t : h.changed_at, null);
  const statuses: PartStatus[] = [
    "Arrived",
    "Delivered to Repair Shop directly",
    "Pending Repair Shop Pick-Up",
    "Picked Up from Repair Shop",
    "Returned to HQ",
  ];
  const clean = (cells: CsvValue[]) => cells.map((v) => typeof v === "string" ? stripBidi(v) : v);
  let text = "\uFEFF" + csvRow(PART_HEADER, zone);
  for (const p of parts) {
    if (filters.status && p.status !== filters.status) continue;
    if (filters.claim && !p.claim_number.toLowerCase().includes(filters.claim.toLowerCase())) continue;
    if (filters.repairerId && p.repairer_id !== filters.repairerId) continue;
    text += csvRow(
      clean([
        p.id,
        p.part_no,
        p.description,
        p.qty_ordered,
        p.status,
        p.updated_at,
        p.claim_number,
        p.registration,
        p.repairer_name,
        ...statuses.map((s) => entered(p.id, s)),
      ]),
      zone,
    );
  }
  return text;
}

appTest(
  "hq exports: the parts CSV is byte for byte its independent computation, in any zone, on each read path",
  async (a) => {
    const shop = await makeRepairer(a.db, 'Panel\u202e Works, "North"');
    const other = await makeRepairer(a.db, "=Other shop");
    const { parts: first } = await makeClaim(a.db, {
      claimNumber: "CLM-BYTES-1",
      registration: "-RG 1",
      management: shop.id,
      parts: [
        {
          status: "Arrived",
          part_no: "\u2066=1+1",
          description: 'Bumper, "front"\nleft \u00dcn\u00efc\u00f8d\u00e9',
        },
        { status: "Returned to HQ", part_no: "PN-2", description: "\ttabbed" },
        { status: "Ordered", part_no: "PN-3", description: "@SUM(A1)" },
      ],
    });
    const { parts: second } = await makeClaim(a.db, {
      claimNumber: "CLM-BYTES-2",
      registration: "RG\u200f 2",
      management: false,
      parts: [{ status: "Pending Repair Shop Pick-Up", part_no: "PN-4", description: "+plus" }],
    });
    const { parts: third } = await makeClaim(a.db, {
      claimNumber: "CLM-BYTES-3",
      management: other.id,
      parts: [{ status: "Delivered to Repair Shop directly", part_no: "PN-5", description: "plain" }],
    });
    const all = [...first, ...second, ...third];
    // Times to the microsecond (dropped below the millisecond, as a Date drops them), across Sydney's change
    // of offset (2026-04-05 03:00 AEDT), before 1970, whole seconds.
    const times = [
      "2026-11-21 09:30:05.123456+00",
      "2026-04-04 15:59:59.999999+00",
      "2026-04-04 16:00:00.5+00",
      "1969-12-31 23:59:59.001+00",
      "2026-01-01 00:00:00+00",
    ];
    for (const [i, p] of all.entries()) {
      await sql`update parts_orders set updated_at = ${
        times[i % times.length]
      }::timestamptz where id = ${p.id}`
        .execute(a.db);
      // Two entries into each of two statuses (the latest counts), at different times.
      for (
        const [j, to] of [PART_STATUSES[1], PART_STATUSES[0], PART_STATUSES[1], PART_STATUSES[5]].entries()
      ) {
        if (i === 2 && j > 0) break; // one part entered a single status
        await sql`insert into part_status_history (part_id, from_status, to_status, changed_at, via)
          values (${p.id}, null, ${to}, ${times[(i + j + 1) % times.length]}::timestamptz, 'dashboard')`
          .execute(a.db);
      }
    }
    const exported = async (filters: PartFilters, zone: string) => {
      const bytes = new Uint8Array(await new Response(await partsCsv(a.db, filters, zone)).arrayBuffer());
      return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    };
    for (const zone of ["UTC", "Australia/Sydney", "America/St_Johns"]) {
      for (
        const filters of [{}, { status: "Arrived" as const }, { claim: "BYTES-1" }, { repairerId: other.id }]
      ) {
        const got = await exported(filters, zone);
        assert.equal(
          got,
          await partsCsvIndependently(a, filters, zone),
          `${zone} ${JSON.stringify(filters)}`,
        );
        assert.ok(got.split("\r\n").length > 2, "rows, not just the header");
      }
    }
  },
);

appTest(
  "hq exports: the movements CSV lists each movement with its place, driver, times and parts",
  async (a) => {
    const s = await flowSetup(a, {
      count: 2,
      status: "Arrived",
      stage: "direct_dropoff",
      registration: "MOV 1",
    });
    await a.db.updateTable("users").set({ name: '+Dana, "the" Driver' }).where("id", "=", s.user.id)
      .execute();
    const res = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
    const movementId = res.result.data!.parts_movement_id as number;
    const d = await signedIn(a, "dispatcher");
    const rows = await csvOf(await d.get("/hq/exports/movements.csv"));
    assert.deepEqual(rows[0], MOVEMENT_HEADER);
    assert.deepEqual(byColumn(rows[0], rows[1]), {
      "Movement ID": String(movementId),
      "Type": "direct",
      "Status": "Parts Dropped off",
      "Claim number": s.claim.claim_number,
      "Rego": "MOV 1",
      "Repair shop": s.shop.name,
      "HQ location": "",
      "Picked up by": '\'+Dana, "the" Driver',
      "Picked up at": "2026-11-21T09:00:00.000Z",
      "Dropped off by": '\'+Dana, "the" Driver',
      "Dropped off at": "2026-11-21T09:00:00.000Z",
      "Parts": "2",
      "Part numbers": `${s.parts[0].part_no}; ${s.parts[1].part_no}`,
    });
    const none = await csvOf(await d.get("/hq/exports/movements.csv?type=reverse"));
    assert.equal(none.length, 1, "only the header");
    const driverRole = await signedIn(a, "driver", await makeUser(a.db, { role: "driver" }));
    assert.equal((await driverRole.get("/hq/exports/movements.csv")).status, 403);
  },
);
