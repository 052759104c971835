/**
 * Text input hygiene: the rules of lib/validation.ts, and the exact answer of
 * each face to a NUL byte (PostgreSQL refuses U+0000 in text: before the rules each of these answered 503)
 * and to bidirectional controls (refused in names, stripped from free text and from CSV and chat output).
 * The random sweep over every field is tests/fuzz_text_test.ts.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { announcementText } from "@/lib/announcements/text.ts";
import { importData, ImportRejected } from "@/lib/import.ts";
import { cleanFreeText, freeTextField, isLineText, parseInput, textField } from "@/lib/validation.ts";
import { parseCsv } from "@/io/csv.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

const NUL = "\u0000";
const RLO = "\u202e"; // right-to-left override
const CONTROL = "must not contain control characters";

Deno.test("text rules: names refuse C0, DEL and bidi controls; free text keeps tab and line breaks, strips bidi", () => {
  for (
    const c of [
      NUL,
      "\u0001",
      "\t",
      "\n",
      "\r",
      "\u001f",
      "\u007f",
      RLO,
      "\u2066",
      "\u2069",
      "\u200e",
      "\u200f",
    ]
  ) {
    assert.ok(!isLineText(`AB${c}C`), JSON.stringify(c));
  }
  assert.ok(isLineText("ABC 123 — Müller-Lüdenscheidt"));
  assert.equal(cleanFreeText("a\tb\r\nc\rd"), "a\tb\nc\nd");
  assert.equal(cleanFreeText(`left${RLO}right\u2066x\u2069`), "leftrightx");
  for (const c of [NUL, "\u0007", "\u000b", "\u001b", "\u007f"]) assert.equal(cleanFreeText(`a${c}b`), null);
  assert.throws(() => parseInput(z.object({ name: textField(10) }), { name: `a${NUL}` }), {
    message: `Invalid request: name ${CONTROL}.`,
  });
  assert.deepEqual(parseInput(z.object({ d: freeTextField(50) }), { d: ` x${RLO}y\r\n ` }), { d: "xy" });
  assert.throws(() => parseInput(z.object({ d: freeTextField(50) }), { d: `x${NUL}` }), {
    message: `Invalid request: d ${CONTROL}.`,
  });
});

const search = (email: string, rego: string) => ({
  event_type: "Parts_search_details",
  user_email: email,
  details: { rego, movement_type: "direct" },
});

appTest(
  "text rules: the handler answers a NUL or bidi control with the D9 validation failure, not 503",
  async (a) => {
    const driver = await makeUser(a.db, { role: "driver" });
    const cases: [unknown, string][] = [
      [search(driver.email, `ABC${NUL}123`), `Invalid request: details.rego ${CONTROL}.`],
      [search(driver.email, `ABC${RLO}123`), `Invalid request: details.rego ${CONTROL}.`],
      [search(`${driver.email}${NUL}`, "ABC123"), `Invalid request: user_email ${CONTROL}.`],
      [
        { ...search(driver.email, "ABC123"), event_type: `Parts${NUL}` },
        `Invalid request: event_type ${CONTROL}.`,
      ],
      [{
        event_type: "parts_movement_upload_token",
        Parts_Order: 1,
        Movement_Stage: "direct_dropoff",
        rego: NUL,
        user_email: driver.email,
      }, `Invalid request: rego ${CONTROL}.`],
    ];
    for (const [payload, text] of cases) {
      const res = await a.handler(payload);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { result: { status: "failure", text }, code: 3000 });
    }
  },
);

appTest("text rules: the tablet search answers a NUL in the rego with {message} 422", async (a) => {
  const tablet = new Tablet(a);
  await tablet.signIn(await makeDriver(a));
  const res = await tablet.postJson("/tablet/api/search", { job: "deliver", rego: NUL });
  assert.equal(res.status, 422);
  assert.deepEqual(await res.json(), { message: `Invalid request: rego ${CONTROL}.` });
});

appTest(
  "text rules: dashboard lists and the CSV exports refuse %00 in a filter with 400 before any row or byte",
  async (a) => {
    const hq = await signedIn(a, "dispatcher");
    for (
      const path of ["/hq/parts?rego=%00", "/hq/movements?driver=1&rego=A%00", "/hq/parts?claim=%E2%80%AE1"]
    ) {
      assert.match(await pageText(await hq.get(path), 400), /Invalid request: (rego|claim) must not contain/);
    }
    for (const path of ["/hq/exports/parts.csv?rego=%00", "/hq/exports/movements.csv?status=%00"]) {
      const res = await hq.get(path);
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get("content-disposition"), null);
      assert.match(
        await pageText(res, 400),
        /Invalid search Invalid request: (rego|status) must not contain/,
      );
    }
  },
);

appTest(
  "text rules: a status reason with NUL is the form's error (422, nothing changed); bidi controls are stripped from it",
  async (a) => {
    const hq = await signedIn(a, "dispatcher");
    const { parts: [part] } = await makeClaim(a.db, { parts: [{ status: "Arrived" }] });
    const form = { from: "Arrived", to: "Ordered", reason: `wrong${NUL}` };
    const text = await pageText(await hq.post(`/hq/parts/${part.id}/status`, form), 422);
    assert.match(text, /The reason must not contain control characters\./);
    const unchanged = await a.db.selectFrom("parts_orders").select("status").where("id", "=", part.id)
      .executeTakeFirstOrThrow();
    assert.equal(unchanged.status, "Arrived");
    const ok = await hq.post(`/hq/parts/${part.id}/status`, {
      ...form,
      reason: `scanned ${RLO}twice\r\nsorry`,
    });
    assert.equal(ok.status, 303);
    const row = await a.db.selectFrom("part_status_history").select("reason").where("part_id", "=", part.id)
      .orderBy("id", "desc").executeTakeFirstOrThrow();
    assert.equal(row.reason, "scanned twice\nsorry");
  },
);

appTest("text rules: admin forms refuse controls in names and addresses with their form error", async (a) => {
  const admin = await signedIn(a, "admin");
  const cases: [string, Record<string, string>, RegExp][] = [
    [
      "/hq/admin/places/repairers",
      { name: `Evil${RLO}Panels`, address: "" },
      /repair shop's name must not contain control/,
    ],
    [
      "/hq/admin/places/repairers",
      { name: "Fine Panels", address: `1 St${NUL}` },
      /address must not contain/,
    ],
    ["/hq/admin/places/hq", { name: `HQ${NUL}` }, /HQ location's name must not contain control/],
    [
      "/hq/admin/users",
      { email: "n@depot.example", name: `N${NUL}`, role: "driver", pin: "1234" },
      /The name must not contain control characters\./,
    ],
    ["/hq/admin/users", { email: `n${NUL}@depot.example`, name: "N", role: "driver", pin: "1234" }, /e-mail/],
  ];
  for (const [path, fields, message] of cases) {
    assert.match(await pageText(await admin.post(path, fields), 422), message, path);
  }
  const repairers = await a.db.selectFrom("repairers").select("name").execute();
  assert.deepEqual(repairers, []);
});

appTest(
  "text rules: the dashboard sign-in with a NUL in the e-mail or password answers as a wrong one, not 503",
  async (a) => {
    const res = await a.app.request("/hq/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
      body: new URLSearchParams({ email: `admin${NUL}@depot.example`, password: "admin-demo-9999" }),
    });
    assert.equal(res.status, 401);
    assert.ok(!(await res.text()).includes(NUL), "the page echoes no NUL");
    const password = await a.app.request("/hq/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
      body: new URLSearchParams({ email: "admin@depot.example", password: `admin${NUL}-demo-9999` }),
    });
    assert.equal(password.status, 401);
    assert.ok(!(await password.text()).includes(NUL), "the page echoes no NUL");
  },
);

async function importProblems(a: TestApp, file: unknown): Promise<string[]> {
  try {
    await importData(a.db, file, a.clock);
  } catch (error) {
    if (error instanceof ImportRejected) return error.problems.map((p) => `${p.path}: ${p.problem}`);
    throw error;
  }
  throw new Error("the import was applied");
}

appTest(
  "text rules: an import with a NUL in a cell lists it as a problem and writes nothing; a bidi control in a description is stripped",
  async (a) => {
    const claim = (partNo: string, description: string, repairer = "North") => ({
      claim_number: "CLM-1",
      registration: "ABC123",
      management: { repairer },
      parts: [{ part_no: partNo, description, status: "Arrived" }],
    });
    const problems = await importProblems(a, {
      repairers: [{ name: "North", address: `1 St${NUL}` }],
      claims: [claim(`P${NUL}1`, `d${NUL}`, `Ghost${NUL}`)],
    });
    assert.deepEqual(problems.sort(), [
      `claims[0].management.repairer: ${CONTROL}`,
      `claims[0].parts[0].description: ${CONTROL}`,
      `claims[0].parts[0].part_no: ${CONTROL}`,
      `repairers[0].address: ${CONTROL}`,
    ]);
    assert.deepEqual(await a.db.selectFrom("claims").select("id").execute(), []);

    await importData(
      a.db,
      { repairers: [{ name: "North" }], claims: [claim("P1", `Bumper ${RLO}revoc`)] },
      a.clock,
    );
    const part = await a.db.selectFrom("parts_orders").select("description").executeTakeFirstOrThrow();
    assert.equal(part.description, "Bumper revoc");
  },
);

appTest("text rules: the dashboard import lists a NUL cell as a problem (422)", async (a) => {
  const admin = await signedIn(a, "admin");
  const body = new FormData();
  body.set("_csrf", admin.csrf);
  const json = JSON.stringify({ hq_locations: [{ name: `Depot${NUL}` }] });
  body.set("file", new File([json], "nul.json", { type: "application/json" }));
  const res = await admin.request("/hq/admin/import", { method: "POST", body });
  const text = await pageText(res, 422);
  assert.match(text, new RegExp(`hq_locations\\[0\\]\\.name:? ${CONTROL}`));
});

appTest(
  "text rules: CSV exports and chat texts strip bidi controls from rows stored before the rules",
  async (a: TestApp) => {
    const hq = await signedIn(a, "dispatcher");
    await makeClaim(a.db, {
      registration: `EVIL${RLO}1`,
      parts: [{ status: "Arrived", description: `a\u2066b\u2069c` }],
    });
    const csv = await (await hq.get("/hq/exports/parts.csv")).text();
    assert.doesNotMatch(csv, /[\u202a-\u202e\u2066-\u2069]/);
    const [, row] = parseCsv(csv);
    assert.ok(row.includes("EVIL1") && row.includes("abc"), row.join(","));
    const text = announcementText(
      {
        title: "Parts Delivered",
        rego: `EVIL${RLO}1`,
        place: `Shop\u200f`,
        parts: [{ partNo: "P\u2067", description: "x" }],
        driver: "D\u202a",
        at: "2026-11-21T09:30:00Z",
        link: "http://x",
      } as Parameters<typeof announcementText>[0],
      "UTC",
    );
    assert.doesNotMatch(text, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    assert.match(text, /Rego: EVIL1/);
  },
);

appTest(
  "text rules: the tablet sign-in with a NUL in the typed e-mail is asked for a name again, not 503",
  async (a) => {
    const tablet = new Tablet(a);
    const res = await tablet.signInForm({ email: `admin${NUL}@depot.example`, pin: "9999" });
    assert.equal(res.status, 400);
    const page = await res.text();
    assert.match(page, /Choose your name or type your e-mail\./);
    assert.ok(!page.includes(NUL), "the page echoes no NUL");
  },
);
