/**
 * The import's CSV files through the dashboard (docs/import.md): each kind's template downloads and, filled
 * in, imports; its rows get the JSON import's validation named by line and column; a file of the wrong
 * kind gets a message saying what was expected and what was found, never a parser's, and writes nothing.
 */
import assert from "node:assert/strict";
import type { Db } from "@/db/client.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { type HqClient, pageText, signedIn } from "@/tests/helpers/hq.ts";
import { CSV_FORMATS, CSV_KINDS, type UploadKind } from "@/lib/import_csv_formats.ts";
import { parseCsv } from "@/io/csv.ts";

function upload(
  admin: HqClient,
  kind: UploadKind,
  content: BlobPart,
  name = `upload.${kind === "json" ? "json" : "csv"}`,
) {
  const body = new FormData();
  body.set("kind", kind);
  body.set("file", new File([content], name));
  return admin.request("/hq/admin/import", { method: "POST", headers: { "x-csrf-token": admin.csrf }, body });
}

async function rowCounts(db: Db) {
  const count = async (table: "claims" | "repairers" | "hq_locations" | "users" | "parts_orders") =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  return {
    claims: await count("claims"),
    parts: await count("parts_orders"),
    repairers: await count("repairers"),
    hq: await count("hq_locations"),
    users: await count("users"),
  };
}

/** Uploads, expects a 422 whose page says each of `says`, no parser's text, and nothing written. */
async function refused(
  a: TestApp,
  admin: HqClient,
  kind: UploadKind,
  content: BlobPart,
  name: string,
  says: RegExp[],
) {
  const before = await rowCounts(a.db);
  const text = await pageText(await upload(admin, kind, content, name), 422);
  for (const re of says) assert.match(text, re);
  assert.doesNotMatch(text, /Unexpected token|SyntaxError|is not valid JSON:|position \d+/);
  assert.deepEqual(await rowCounts(a.db), before, `${name}: nothing written`);
  return text;
}

const template = async (admin: HqClient, kind: string) => {
  const res = await admin.get(`/hq/admin/import/templates/${kind}.csv`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/csv/);
  assert.match(res.headers.get("content-disposition") ?? "", new RegExp(`filename="${kind}\\.csv"`));
  return await res.text();
};

appTest("import CSV: each kind's template downloads with its columns and imports as it is", async (a) => {
  const admin = await signedIn(a, "admin");
  const page = await pageText(await admin.get("/hq/admin/import"));
  for (const kind of CSV_KINDS) {
    const csv = await template(admin, kind);
    const [header, example, ...rest] = parseCsv(csv);
    assert.deepEqual(header, CSV_FORMATS[kind].columns.map((c) => c.name));
    assert.equal(example.length, header.length);
    assert.deepEqual(rest, []);
    // The page shows the format: each column with whether it is required.
    assert.match(page, new RegExp(`Download the template \\(${kind}\\.csv\\)`));
    for (const c of CSV_FORMATS[kind].columns) {
      assert.match(page, new RegExp(`${c.name} ${c.required ? "required" : "optional"}`));
    }
  }
  // In the order their references need: the claims' template names the repair shops' one.
  for (const kind of ["hq_locations", "repairers", "users", "claims"] as const) {
    const text = await pageText(await upload(admin, kind, await template(admin, kind), `${kind}.csv`));
    assert.match(text, new RegExp(`Imported ${kind}\\.csv`));
  }
  const part = await a.db.selectFrom("parts_orders").innerJoin("claims", "claims.id", "claim_id")
    .innerJoin("claim_management as m", "m.claim_id", "claims.id")
    .innerJoin("repairers", "repairers.id", "m.repairer_id")
    .select(["part_no", "status", "qty_ordered", "registration", "repairers.name", "repairers.phone"])
    .executeTakeFirstOrThrow();
  assert.deepEqual(part, {
    part_no: "52119-0K040",
    status: "Arrived",
    qty_ordered: 1,
    registration: "ABC123",
    name: "North Smash Repairs",
    phone: "02 9555 0101",
  });
  const user = await a.db.selectFrom("users").select(["role", "active"]).where(
    "email",
    "=",
    "dana@depot.example",
  )
    .executeTakeFirstOrThrow();
  assert.deepEqual(user, { role: "driver", active: true });
  const hq = await a.db.selectFrom("hq_locations").select(["latitude"]).executeTakeFirstOrThrow();
  assert.equal(Number(hq.latitude), -33.9173);
});

appTest(
  "import CSV: several lines of a claim make its parts; a BOM, quoted cells and CRLF are read",
  async (a) => {
    const admin = await signedIn(a, "admin");
    await pageText(await upload(admin, "repairers", "name\nPanel Co\n"));
    const csv = "\uFEFFclaim_number,registration,repairer,part_no,description,qty,status\r\n" +
      'CLM-7,XYZ 7,Panel Co,P-1,"Door, front left",2,Arrived\r\n' +
      'CLM-7,,,P-2,"Two\r\nlines ""quoted""",,Ordered\r\n' +
      "CLM-8,XYZ 8,,,,,\r\n" +
      ",,,,,,\r\n";
    const text = await pageText(await upload(admin, "claims", csv, "bom.csv"));
    assert.match(text, /Imported bom\.csv: 2 part status change\(s\)/);
    const parts = await a.db.selectFrom("parts_orders").select(["part_no", "description", "qty_ordered"])
      .orderBy("part_no").execute();
    assert.deepEqual(parts, [
      { part_no: "P-1", description: "Door, front left", qty_ordered: 2 },
      { part_no: "P-2", description: 'Two\nlines "quoted"', qty_ordered: 1 },
    ]);
    const unmanaged = await a.db.selectFrom("claims").leftJoin(
      "claim_management as m",
      "m.claim_id",
      "claims.id",
    )
      .select(["m.claim_id"]).where("claim_number", "=", "CLM-8").executeTakeFirstOrThrow();
    assert.equal(unmanaged.claim_id, null, "a blank repairer: no claims management record");
  },
);

appTest(
  "import CSV: every row's problems are the JSON import's, named by line and column; nothing written",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const csv = "claim_number,registration,repairer,part_no,description,qty,status\n" +
      "CLM-1,ABC1,,P-1,Door,1,Arrived\n" +
      'CLM-1,ABC1,,P-2,"a\nlong note",1,Lost\n' + // lines 3–4
      "CLM-2,,Nobody Repairs,P-3,Hood,two,Arrived\n" + // line 5
      "CLM-1,ABC9,,P-1,Door,1,Arrived\n" + // line 6
      "CLM-3,ABC3,,P-4\n"; // line 7
    const text = await refused(a, admin, "claims", csv, "bad.csv", [
      /problems in bad\.csv; nothing was written/,
      /line 3, status: must be one of Ordered, Arrived/,
      /line 5, registration: must not be empty/,
      /line 5, qty: must be a number/,
      /line 5, repairer: names unknown repairer "Nobody Repairs"/,
      /line 6, registration: differs from line 2 of the same claim \("ABC1"\)/,
      /line 6, part_no: lists part "P-1" twice/,
      /line 7: has 4 cells; the header has 7 columns/,
    ]);
    // In the file's order.
    assert.ok(
      text.indexOf("line 3,") < text.indexOf("line 5,") && text.indexOf("line 5,") < text.indexOf("line 7:"),
    );

    await refused(
      a,
      admin,
      "users",
      "email,name,role,pin,password,active\nnot-an-email,Al,boss,12,,maybe\n",
      "u.csv",
      [
        /line 2, email: must be an e-mail address/,
        /line 2, role: must be one of driver, dispatcher, admin/,
        /line 2, active: must be a boolean/,
      ],
    );
    await refused(a, admin, "repairers", "name,latitude\nShop,-33.9\n", "r.csv", [
      /line 2, longitude: is required with latitude/,
    ]);
  },
);

appTest(
  "import CSV: a file of the wrong kind says what was expected and what it is, and writes nothing",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const places = "name,address,phone\nPanel Co,1 Main St,0295550101\n";
    await refused(a, admin, "claims", places, "shops.csv", [
      /shops\.csv is a CSV of repair shops \(its columns: name, address, phone\), but "Claims and parts \(CSV\)" was chosen, which has the columns claim_number, registration/,
      /Choose "Repair shops \(CSV\)"/,
    ]);
    await refused(a, admin, "claims", JSON.stringify({ claims: [] }), "data.json", [
      /data\.json is JSON, not CSV: choose "JSON document"/,
    ]);
    await refused(a, admin, "json", "claim_number,registration\nCLM-1,ABC\n", "claims.csv", [
      /claims\.csv is a CSV of claims and parts, not JSON: choose "Claims and parts \(CSV\)"/,
    ]);
    await refused(a, admin, "json", '{"claims": [', "cut.json", [/cut\.json is not valid JSON/]);
    await refused(a, admin, "json", "hello there", "note.txt", [
      /note\.txt is not JSON: .* it starts "hello there"/,
    ]);
    const xlsx = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00]);
    await refused(a, admin, "claims", xlsx, "claims.xlsx", [
      /claims\.xlsx is a spreadsheet workbook .*not text: expected a CSV of claims and parts/,
      /save the sheet as "CSV UTF-8 \(comma delimited\)"/,
    ]);
    await refused(a, admin, "users", "", "empty.csv", [/empty\.csv is empty: expected a CSV of users/]);
    await refused(a, admin, "users", "email,name,role\n", "head.csv", [
      /head\.csv has a header line but no rows/,
    ]);
    await refused(a, admin, "claims", "claim_number,colour\nCLM-1,red\n", "cols.csv", [
      /cols\.csv lacks the column\(s\) registration and has unknown column\(s\) "colour": its first line has claim_number, colour/,
    ]);
    await refused(a, admin, "claims", "claim_number;registration\nCLM-1;ABC\n", "semi.csv", [
      /semi\.csv separates its columns with semicolons \(;\); the import reads commas/,
    ]);
    await refused(
      a,
      admin,
      "users",
      new Uint8Array([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xe9, 0x0a]),
      "latin.csv",
      [
        /latin\.csv is not UTF-8 text/,
      ],
    );
    await refused(a, admin, "claims", 'claim_number,registration\nCLM-1,"ABC\n', "open.csv", [
      /open\.csv is not well-formed CSV: line 2: a quoted cell is never closed/,
    ]);
    // The page keeps the kind chosen, so a second try needs no re-selecting.
    const again = await (await upload(admin, "users", "", "x.csv")).text();
    assert.match(again, /<option value="users" selected/);
  },
);
