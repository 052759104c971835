import assert from "node:assert/strict";
import { join } from "node:path";
import type { Db } from "@/db/client.ts";
import { lockEmbeddedDb } from "@/db/embedded_lock.ts";
import { importData, ImportRejected } from "@/lib/import.ts";
import { type Database, PART_STATUSES } from "@/db/schema.ts";
import { FakeClock } from "@/io/clock.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { verifyPin } from "@/io/pin.ts";
import { normaliseRego } from "@/lib/rego.ts";
import { searchDirect } from "@/lib/search.ts";
import { dbTest, serverTest } from "@/testkit/db.ts";
import { hqLocationsWithDetails, repairersWithDetails } from "@/lib/places/read.ts";

const ROOT = new URL("../", import.meta.url);
const fixture = async (name: string) =>
  JSON.parse(await Deno.readTextFile(new URL(`fixtures/${name}`, import.meta.url)));
const fixturePath = (name: string) => new URL(`fixtures/${name}`, import.meta.url).pathname;

const TABLES: (keyof Database)[] = [
  "hq_locations",
  "repairers",
  "users",
  "claims",
  "claim_management",
  "parts_orders",
  "part_status_history",
];

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

async function partOf(db: Db, claimNumber: string, partNo: string) {
  return await db.selectFrom("parts_orders as p").innerJoin("claims as c", "c.id", "p.claim_id")
    .selectAll("p").where("c.claim_number", "=", claimNumber).where("p.part_no", "=", partNo)
    .executeTakeFirstOrThrow();
}

async function historyOf(db: Db, partId: number) {
  return await db.selectFrom("part_status_history").select(["from_status", "to_status", "via", "changed_at"])
    .where("part_id", "=", partId).orderBy("id").execute();
}

async function managementOf(db: Db, claimNumber: string) {
  return await db.selectFrom("claim_management as m").innerJoin("claims as c", "c.id", "m.claim_id")
    .leftJoin("repairers as r", "r.id", "m.repairer_id")
    .select(["m.id", "m.repairer_id", "r.name as repairer"]).where("c.claim_number", "=", claimNumber)
    .executeTakeFirst();
}

async function expectRejected(db: Db, input: unknown, clock = new FakeClock()) {
  const error = await importData(db, input, clock).then(
    () => assert.fail("the import should have been rejected"),
    (e) => e,
  );
  assert.ok(error instanceof ImportRejected, String(error));
  return error.problems;
}

// ---------------------------------------------------------------------------------------------------------
// Good files and re-imports

dbTest("import: a good file imports every row and answers the counts", async ({ db }) => {
  const clock = new FakeClock();
  const summary = await importData(db, await fixture("import_good.json"), clock);
  assert.deepEqual(summary, {
    hq_locations: 1,
    repairers: 2,
    users: 2,
    claims: 3,
    parts: 4,
    status_changes: 4,
  });
  assert.deepEqual(await counts(db), {
    hq_locations: 1,
    repairers: 2,
    users: 2,
    claims: 3,
    claim_management: 2,
    parts_orders: 4,
    part_status_history: 4,
  });
  const ivy = await db.selectFrom("users").selectAll().where("email", "=", "ivy@depot.example")
    .executeTakeFirstOrThrow();
  assert.equal(ivy.role, "driver");
  assert.equal(ivy.active, true);
  assert.notEqual(ivy.pin_hash, "4821", "the PIN is stored hashed");
  assert.ok(await verifyPin("4821", ivy.pin_hash));
  // E-mail addresses are stored in lower case, without a PIN when none is given.
  const omar = await db.selectFrom("users").selectAll().where("email", "=", "omar@depot.example")
    .executeTakeFirstOrThrow();
  assert.equal(omar.pin_hash, null);
  const p2 = await partOf(db, "IMP-1", "P-2");
  assert.equal(p2.qty_ordered, 1, "qty defaults to 1");
  assert.deepEqual(await historyOf(db, p2.id), [
    { from_status: null, to_status: "Ordered", via: "import", changed_at: clock.now() },
  ]);
});

dbTest(
  "import: a re-import updates rows instead of duplicating them, with history for status changes only",
  async ({ db }) => {
    const clock = new FakeClock();
    const file = await fixture("import_good.json");
    await importData(db, file, clock);
    const before = await counts(db);
    const p1 = await partOf(db, "IMP-1", "P-1");
    const p2 = await partOf(db, "IMP-1", "P-2");

    clock.advance(60_000);
    const claim = file.claims[0];
    claim.registration = "IMP 0001";
    claim.management.repairer = "Import Smash Repairs";
    claim.parts[0] = {
      ...claim.parts[0],
      description: "Front bumper cover (primed)",
      qty: 3,
      status: "Delivered to Repair Shop directly",
    };
    file.users[0].name = "Ivy Imported";
    delete file.users[0].pin;
    const summary = await importData(db, file, clock);
    assert.equal(summary.status_changes, 1);
    assert.equal(summary.claims, 3);

    assert.deepEqual(await counts(db), { ...before, part_status_history: before.part_status_history + 1 });
    const p1After = await partOf(db, "IMP-1", "P-1");
    assert.equal(p1After.id, p1.id);
    assert.equal(p1After.description, "Front bumper cover (primed)");
    assert.equal(p1After.qty_ordered, 3);
    assert.equal(p1After.status, "Delivered to Repair Shop directly");
    assert.deepEqual(await historyOf(db, p1.id), [
      { from_status: null, to_status: "Arrived", via: "import", changed_at: new FakeClock().now() },
      {
        from_status: "Arrived",
        to_status: "Delivered to Repair Shop directly",
        via: "import",
        changed_at: clock.now(),
      },
    ]);
    // Unchanged status: no new history row, and its updated_at stays.
    assert.equal((await historyOf(db, p2.id)).length, 1);
    assert.deepEqual((await partOf(db, "IMP-1", "P-2")).updated_at, p2.updated_at);

    const c = await db.selectFrom("claims").selectAll().where("claim_number", "=", "IMP-1")
      .executeTakeFirstOrThrow();
    assert.equal(c.registration, "IMP 0001");
    assert.equal((await managementOf(db, "IMP-1"))?.repairer, "Import Smash Repairs");
    const ivy = await db.selectFrom("users").selectAll().where("email", "=", "ivy@depot.example")
      .executeTakeFirstOrThrow();
    assert.equal(ivy.name, "Ivy Imported");
    assert.ok(await verifyPin("4821", ivy.pin_hash), "a re-import without a PIN keeps the PIN");
  },
);

dbTest("import: an identical re-import changes nothing and records no history", async ({ db }) => {
  const clock = new FakeClock();
  const file = await fixture("import_good.json");
  await importData(db, file, clock);
  const before = await counts(db);
  clock.advance(60_000);
  const summary = await importData(db, file, clock);
  assert.equal(summary.status_changes, 0);
  assert.deepEqual(await counts(db), before);
});

dbTest(
  "import: management absent or null means no management record; repairer null a record without repairer",
  async ({ db }) => {
    await importData(db, {
      repairers: [{ name: "Mgmt Repairs" }],
      claims: [
        { claim_number: "M-1", registration: "M1", management: { repairer: "Mgmt Repairs" } },
        { claim_number: "M-2", registration: "M2", management: null },
        { claim_number: "M-3", registration: "M3" },
        { claim_number: "M-4", registration: "M4", management: { repairer: null } },
      ],
    }, new FakeClock());
    assert.equal((await managementOf(db, "M-1"))?.repairer, "Mgmt Repairs");
    assert.equal(await managementOf(db, "M-2"), undefined);
    assert.equal(await managementOf(db, "M-3"), undefined);
    const m4 = await managementOf(db, "M-4");
    assert.ok(m4, "M-4 has a management record");
    assert.equal(m4.repairer_id, null);

    // A re-import that drops the management removes the record; one that adds it creates it.
    await importData(db, {
      claims: [
        { claim_number: "M-1", registration: "M1", management: null },
        { claim_number: "M-2", registration: "M2", management: { repairer: "Mgmt Repairs" } },
      ],
    }, new FakeClock());
    assert.equal(await managementOf(db, "M-1"), undefined);
    assert.equal((await managementOf(db, "M-2"))?.repairer, "Mgmt Repairs");
  },
);

dbTest("import: a claim may name a repairer already in the database", async ({ db }) => {
  await importData(db, { repairers: [{ name: "Known Repairs" }] }, new FakeClock());
  await importData(db, {
    claims: [{ claim_number: "K-1", registration: "K1", management: { repairer: "Known Repairs" } }],
  }, new FakeClock());
  assert.equal((await managementOf(db, "K-1"))?.repairer, "Known Repairs");
});

// ---------------------------------------------------------------------------------------------------------
// Bad files

dbTest(
  "import: a bad file is rejected with every problem and its path listed, and nothing is written",
  async ({ db }) => {
    await importData(db, await fixture("import_good.json"), new FakeClock());
    const before = await counts(db);
    const problems = await expectRejected(db, await fixture("import_bad.json"));
    const byPath = new Map(problems.map((p) => [p.path, p.problem]));
    assert.deepEqual([...byPath.keys()].sort(), [
      "claims[0].parts[0].status", // bad status
      "claims[1].colour", // unknown key
      "claims[1].management.repairer", // unknown repairer
      "claims[2].claim_number", // duplicate claim_number
      "users[0].pin", // bad pin
      "users[1].role", // unknown role
    ]);
    assert.match(byPath.get("claims[0].parts[0].status")!, /^must be one of Ordered, Arrived, /);
    assert.equal(byPath.get("claims[1].colour"), "is not a known field");
    assert.equal(byPath.get("claims[1].management.repairer"), 'names unknown repairer "Nobody Repairs"');
    assert.equal(byPath.get("claims[2].claim_number"), 'lists claim "BAD-1" twice');
    assert.equal(byPath.get("users[0].pin"), "must be 4 to 8 digits");
    assert.equal(byPath.get("users[1].role"), "must be one of driver, dispatcher, admin");
    assert.equal(problems.length, 6);

    assert.deepEqual(await counts(db), before);
    const ivy = await db.selectFrom("users").selectAll().where("email", "=", "ivy@depot.example")
      .executeTakeFirstOrThrow();
    assert.ok(await verifyPin("4821", ivy.pin_hash), "the existing user is untouched");
    assert.equal(
      await db.selectFrom("claims").select("id").where("claim_number", "like", "BAD-%").executeTakeFirst(),
      undefined,
    );
  },
);

dbTest(
  "import: cross-row problems alone (duplicates, unknown repairer) also reject the whole file",
  async ({ db }) => {
    const problems = await expectRejected(db, {
      hq_locations: [{ name: "HQ A" }, { name: " HQ A " }],
      repairers: [{ name: "R1" }, { name: "R1" }],
      users: [
        { email: "a@depot.example", name: "A", role: "driver" },
        { email: "A@Depot.Example", name: "A again", role: "driver" },
      ],
      claims: [
        {
          claim_number: "D-1",
          registration: "D1",
          management: { repairer: "Ghost Repairs" },
          parts: [
            { part_no: "X", description: "x", status: "Arrived" },
            { part_no: "X", description: "y", status: "Arrived" },
          ],
        },
      ],
    });
    assert.deepEqual(problems.map((p) => p.path).sort(), [
      "claims[0].management.repairer",
      "claims[0].parts[1].part_no",
      "hq_locations[1].name",
      "repairers[1].name",
      "users[1].email",
    ]);
    assert.deepEqual(Object.values(await counts(db)), TABLES.map(() => 0));
  },
);

dbTest("import: missing, empty and wrongly typed fields are named with their problem", async ({ db }) => {
  const problems = await expectRejected(db, {
    users: [{ email: "not-an-address", name: "", role: "driver", pin: 4821 }],
    claims: [{ registration: "R1", parts: [{ part_no: "P", description: "d", qty: 0, status: "Arrived" }] }],
    extra: true,
  });
  const byPath = (list: { path: string; problem: string }[]) =>
    [...list].sort((x, y) => x.path.localeCompare(y.path));
  assert.deepEqual(
    byPath(problems),
    byPath([
      { path: "users[0].email", problem: "must be an e-mail address" },
      { path: "users[0].name", problem: "must not be empty" },
      { path: "users[0].pin", problem: "must be a string" },
      { path: "claims[0].claim_number", problem: "is required" },
      { path: "claims[0].parts[0].qty", problem: "is too short" },
      { path: "extra", problem: "is not a known field" },
    ]),
  );
  assert.equal(problems.length, 6);
});

dbTest(
  "import: staff take a password and drivers a PIN; the other one, or a weak password, is refused by row and field, writing nothing",
  async ({ db }) => {
    const file = {
      hq_locations: [{ name: "Should not be written" }],
      users: [
        { email: "pat@depot.example", name: "Pat", role: "dispatcher", pin: "2468" },
        {
          email: "dee@depot.example",
          name: "Dee",
          role: "driver",
          pin: "4821",
          password: "a-long-password-1",
        },
        { email: "al@depot.example", name: "Al", role: "admin", password: "short-one" },
        { email: "bo@depot.example", name: "Bo", role: "admin", password: "1qaz2wsx3edc" },
        { email: "cy@depot.example", name: "Cy", role: "admin", password: "cy-admin-pass-8642" },
      ],
    };
    const problems = await expectRejected(db, file);
    assert.deepEqual(problems, [
      {
        path: "users[0].pin",
        problem: 'a dispatcher signs in to the dashboard with a password, not a PIN: give "password" instead',
      },
      {
        path: "users[1].password",
        problem: 'a driver signs in on the tablet with a PIN, not a password: give "pin" instead',
      },
      { path: "users[2].password", problem: "must be at least 12 characters" },
      { path: "users[3].password", problem: "is one of the most common passwords: choose another" },
    ]);
    assert.deepEqual(await db.selectFrom("users").select("id").execute(), []);
    assert.deepEqual(await db.selectFrom("hq_locations").select("id").execute(), []);

    // The good row alone: a password, stored hashed; a re-import without one keeps it.
    await importData(db, { users: [file.users[4]] }, new FakeClock());
    const cy = await db.selectFrom("users").selectAll().where("email", "=", "cy@depot.example")
      .executeTakeFirstOrThrow();
    assert.equal(cy.pin_hash, null);
    assert.ok(await verifyPin("cy-admin-pass-8642", cy.password_hash));
    await importData(
      db,
      { users: [{ email: "cy@depot.example", name: "Cy A", role: "admin" }] },
      new FakeClock(),
    );
    const again = await db.selectFrom("users").selectAll().where("email", "=", "cy@depot.example")
      .executeTakeFirstOrThrow();
    assert.equal(again.password_hash, cy.password_hash, "a re-import without a password keeps it");
  },
);

dbTest(
  "import: a password set by the file lifts the user's locks and ends their sessions",
  async ({ db }) => {
    const clock = new FakeClock();
    await importData(db, {
      users: [{ email: "cy@depot.example", name: "Cy", role: "admin", password: "cy-admin-pass-8642" }],
    }, clock);
    const cy = await db.selectFrom("users").select("id").where("email", "=", "cy@depot.example")
      .executeTakeFirstOrThrow();
    await db.insertInto("sessions").values({
      token_hash: "h",
      user_id: cy.id,
      csrf_token: "c",
      created_at: clock.now(),
      last_seen_at: clock.now(),
    }).execute();
    await db.insertInto("pin_attempts").values({
      subject: `user:${cy.id}`,
      client: "dashboard",
      checks: 5,
      window_started_at: clock.now(),
      window_ends: new Date(clock.now().getTime() + 300_000),
    }).execute();
    await importData(db, {
      users: [{ email: "cy@depot.example", name: "Cy", role: "admin", password: "cy-admin-pass-9753" }],
    }, clock);
    assert.deepEqual(await db.selectFrom("sessions").select("user_id").execute(), []);
    assert.deepEqual(await db.selectFrom("pin_attempts").select("subject").execute(), []);
  },
);

dbTest("import: a file that is not an object is rejected", async ({ db }) => {
  for (const input of [[], "claims", null]) {
    const problems = await expectRejected(db, input);
    assert.equal(problems.length, 1, JSON.stringify(input));
    assert.equal(problems[0].path, "(file)");
  }
});

// ---------------------------------------------------------------------------------------------------------
// Places' details (docs/operations.md "Import")

dbTest("import: repair shops' phone, e-mails, coordinates and hours, and HQ coordinates", async ({ db }) => {
  const file = {
    hq_locations: [{ name: "Place HQ", latitude: -33.9173, longitude: 151.1851 }, { name: "Bare HQ" }],
    repairers: [
      {
        name: "Place Panels",
        address: "1 Rivet Rd",
        phone: "02 9555 0101",
        emails: ["Parts@Place.example", "accounts@place.example"],
        latitude: -33.7752,
        longitude: 151.1194,
        opening_hours: "Mon–Fri 07:30–17:00, Sat 08:00–12:00",
      },
      {
        name: "Structured Smash",
        opening_hours: { sat: [{ open: "08:00", close: "12:00" }], mon: [{ open: "13:00", close: "17:00" }] },
      },
    ],
  };
  await importData(db, file, new FakeClock());
  const shops = await repairersWithDetails(db);
  assert.deepEqual(shops.map((r) => [r.name, r.phone, r.emails, r.coordinates, r.openingHoursText]), [
    [
      "Place Panels",
      "02 9555 0101",
      ["parts@place.example", "accounts@place.example"],
      { latitude: -33.7752, longitude: 151.1194 },
      "Mon–Fri 07:30–17:00, Sat 08:00–12:00",
    ],
    ["Structured Smash", null, [], null, "Mon 13:00–17:00, Sat 08:00–12:00"],
  ]);
  assert.deepEqual((await hqLocationsWithDetails(db)).map((h) => [h.name, h.coordinates]), [
    ["Place HQ", { latitude: -33.9173, longitude: 151.1851 }],
    ["Bare HQ", null],
  ]);
  // A re-import that leaves the details out keeps them; one that gives them sets them.
  await importData(db, {
    hq_locations: [{ name: "Place HQ" }, { name: "Bare HQ", latitude: -34, longitude: 151 }],
    repairers: [{ name: "Place Panels" }, { name: "Structured Smash", emails: ["s@smash.example"] }],
  }, new FakeClock());
  const again = await repairersWithDetails(db);
  assert.deepEqual(again[0], shops[0]);
  assert.deepEqual(again[1].emails, ["s@smash.example"]);
  assert.deepEqual((await hqLocationsWithDetails(db)).map((h) => h.coordinates), [
    { latitude: -33.9173, longitude: 151.1851 },
    { latitude: -34, longitude: 151 },
  ]);
});

dbTest(
  "import: a bad place detail is refused with its row and field, and nothing is written",
  async ({ db }) => {
    const problems = await expectRejected(db, {
      hq_locations: [{ name: "HQ ok", latitude: -33.9 }, { name: "HQ far", latitude: 95, longitude: 0 }],
      repairers: [
        { name: "Good Shop", phone: "02 9555 0101", opening_hours: "Mon-Fri 08:00-17:00" },
        { name: "Bad Phone", phone: "ring us" },
        { name: "Bad Mail", emails: ["ok@shop.example", "nope"] },
        { name: "Bad Hours", opening_hours: "Mon-Fri 17:00-08:00" },
        { name: "Bad Week", opening_hours: { mon: [{ open: "8:00", close: "17:00" }], fri: "all day" } },
        { name: "Bad Place", latitude: "-33.9", longitude: -181 },
        { name: "Bad Control", phone: "02 9555\u00000101" },
      ],
    });
    const byPath = (list: { path: string; problem: string }[]) =>
      [...list].sort((x, y) => x.path.localeCompare(y.path));
    assert.deepEqual(
      byPath(problems),
      byPath([
        { path: "hq_locations[0].longitude", problem: "is required with latitude" },
        { path: "hq_locations[1].latitude", problem: "must be between -90 and 90" },
        {
          path: "repairers[1].phone",
          problem: "must be a phone number of 6 to 15 digits, e.g. 02 9555 0101 or +61 2 9555 0101",
        },
        { path: "repairers[2].emails", problem: '"nope" is not an e-mail address' },
        {
          path: "repairers[3].opening_hours",
          problem: "Mon 17:00–08:00 closes before it opens (hours past midnight are not supported)",
        },
        { path: "repairers[4].opening_hours.mon[0].open", problem: 'must be a time "HH:MM"' },
        { path: "repairers[4].opening_hours.fri", problem: "must be an array" },
        { path: "repairers[5].latitude", problem: "must be a number" },
        { path: "repairers[5].longitude", problem: "must be between -180 and 180" },
        { path: "repairers[6].phone", problem: "must not contain control characters" },
      ]),
    );
    assert.deepEqual(Object.values(await counts(db)), TABLES.map(() => 0), "nothing written");
  },
);

// ---------------------------------------------------------------------------------------------------------
// The demo data (D4)

dbTest("import: the demo data imports cleanly and covers every case the demo needs", async ({ db }) => {
  const demo = JSON.parse(await Deno.readTextFile(DEMO_DATA_URL));
  const summary = await importData(db, demo, new FakeClock());
  assert.equal(summary.claims, demo.claims.length);

  const statuses = new Set(
    (await db.selectFrom("parts_orders").select("status").distinct().execute()).map((r) => r.status),
  );
  assert.deepEqual([...statuses].sort(), [...PART_STATUSES].sort(), "parts in every status of D6");

  const claims = await db.selectFrom("claims as c").leftJoin("claim_management as m", "m.claim_id", "c.id")
    .select([
      "c.claim_number",
      "c.registration",
      "c.registration_norm",
      "m.id as management_id",
      "m.repairer_id",
    ])
    .execute();
  assert.ok(claims.some((c) => c.management_id === null), "a claim without a management record");
  assert.ok(
    claims.some((c) => c.management_id !== null && c.repairer_id === null),
    "a claim with no repairer",
  );
  const perVehicle = new Map<string, string[]>();
  for (const c of claims) {
    perVehicle.set(c.registration_norm, [...perVehicle.get(c.registration_norm) ?? [], c.registration]);
  }
  assert.ok([...perVehicle.values()].some((regs) => regs.length >= 2), "two claims of one vehicle");
  const vehicles = [...perVehicle.keys()];
  const sharing = vehicles.some((v) =>
    [...new Set(vehicles.flatMap((w) => w === v ? [] : [...fragments(v)].filter((f) => w.includes(f))))]
      .length > 0
  );
  assert.ok(sharing, "two vehicles sharing a fragment");
  // The regos the start-up hint names work as it says.
  assert.equal(normaliseRego("XYZ 789"), "XYZ789");
  assert.equal((await searchDirect(db, "ABC123")).parts.length, 2);
  await assert.rejects(searchDirect(db, "456"), { message: /^Several vehicles match 456: / });
  // Every demo shop and HQ location has the details the run sheet shows and orders by.
  for (const shop of await repairersWithDetails(db)) {
    assert.ok(shop.phone && shop.emails.length && shop.coordinates && shop.openingHours, shop.name);
  }
  assert.ok((await hqLocationsWithDetails(db)).every((h) => h.coordinates !== null));
  // Users to sign in with, one per role.
  const roles = (await db.selectFrom("users").select("role").distinct().execute()).map((r) => r.role).sort();
  assert.deepEqual(roles, ["admin", "dispatcher", "driver"]);
});

function* fragments(norm: string) {
  for (let i = 0; i + 3 <= norm.length; i++) yield norm.slice(i, i + 3);
}

// ---------------------------------------------------------------------------------------------------------
// The command (`deno task import`)

async function runImportCli(file: string, env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tasks/import.ts", file],
    cwd: ROOT.pathname,
    env: { DATABASE_URL: "", APP_ENV: "development", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test({
  name:
    "import CLI: a good file into the embedded database exits 0 and prints a summary; a bad one exits 1 listing every problem",
  sanitizeResources: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-import-" });
    try {
      const good = await runImportCli(fixturePath("import_good.json"), { DATA_DIR: dataDir });
      assert.equal(good.code, 0, good.stderr);
      assert.match(
        good.stdout,
        /Imported .*import_good\.json: 3 claims, 4 parts \(4 status changes\), 2 users, 2 repairers, 1 HQ locations\./,
      );

      const bad = await runImportCli(fixturePath("import_bad.json"), { DATA_DIR: dataDir });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /Import rejected: 6 problem\(s\); nothing was written\./);
      for (
        const line of [
          "users[0].pin: must be 4 to 8 digits",
          "users[1].role: must be one of driver, dispatcher, admin",
          "claims[0].parts[0].status: must be one of",
          "claims[1].colour: is not a known field",
          'claims[2].claim_number: lists claim "BAD-1" twice',
          'claims[1].management.repairer: names unknown repairer "Nobody Repairs"',
        ]
      ) assert.ok(bad.stderr.includes(line), `missing: ${line}\n${bad.stderr}`);

      // Nothing was written: a re-import of the good file still changes no status.
      const again = await runImportCli(fixturePath("import_good.json"), { DATA_DIR: dataDir });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /3 claims, 4 parts \(0 status changes\)/);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "import CLI: a file that is not JSON exits 1 saying it cannot be read",
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-import-" });
    const file = join(dataDir, "broken.json");
    await Deno.writeTextFile(file, "{ not json");
    try {
      const res = await runImportCli(file, { DATA_DIR: dataDir });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /^Cannot read .*broken\.json: /);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "import CLI: while another process holds the embedded database it refuses with the reason and exits 1",
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-import-" });
    const lock = await lockEmbeddedDb(dataDir, "serving in this test");
    try {
      const res = await runImportCli(fixturePath("import_good.json"), { DATA_DIR: dataDir });
      assert.equal(res.code, 1);
      assert.ok(
        res.stderr.includes(`The embedded database in ${join(dataDir, "db")} is in use by another process`),
        res.stderr,
      );
      assert.match(res.stderr, /Stop it before importing, or import through the running server/);
      assert.equal(res.stdout, "");
    } finally {
      lock.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

serverTest("import CLI: with DATABASE_URL it imports into the PostgreSQL server", async ({ db, url }) => {
  const dataDir = await Deno.makeTempDir({ prefix: "pm-import-" });
  try {
    const res = await runImportCli(fixturePath("import_good.json"), {
      DATA_DIR: dataDir,
      DATABASE_URL: url!,
    });
    assert.equal(res.code, 0, res.stderr);
    assert.equal((await counts(db)).claims, 3);
    // No embedded database was opened.
    assert.equal(await Deno.stat(join(dataDir, "db")).then(() => true, () => false), false);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
