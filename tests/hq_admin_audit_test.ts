/**
 * Administration and the audit trail: role changes, the last-admin rule (also under a
 * real race on the PostgreSQL server), PIN resets, the audit page and its CSV, a claim's audit entries.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { auditEntriesOfClaim, insertAuditEntry } from "@/db/queries/audit.ts";
import { parseCsv } from "@/io/csv.ts";
import { AUDIT_HEADER } from "@/lib/admin/audit.ts";
import { importData, type ImportRejected } from "@/lib/import.ts";
import { appTest, serverAppTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";

const activeAdmins = async (a: TestApp) =>
  (await a.db.selectFrom("users").select("id").where("role", "=", "admin").where("active", "=", true)
    .execute())
    .map((r) => r.id);

appTest("hq admin audit: a role change shows on the audit page with its before and after", async (a) => {
  const admin = await signedIn(a, "admin");
  const driver = await makeUser(a.db, { role: "driver", email: "dora@depot.example" });
  const res = await admin.post(`/hq/admin/users/${driver.id}/role`, { role: "dispatcher" });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/hq/admin/users?done=role");
  const row = await a.db.selectFrom("users").select("role").where("id", "=", driver.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.role, "dispatcher");

  const text = await pageText(await admin.get("/hq/admin/audit"));
  assert.match(
    text,
    new RegExp(
      `${admin.user.name} user\\.role user:${driver.id} role: driver email: dora@depot\\.example ` +
        `role: dispatcher email: dora@depot\\.example`,
    ),
  );
  // The filters: another action hides it; its actor shows it.
  assert.match(await pageText(await admin.get("/hq/admin/audit?action=user.pin_reset")), /No entries\./);
  assert.match(await pageText(await admin.get(`/hq/admin/audit?actor=${admin.user.id}`)), /user\.role user:/);
  assert.match(
    await pageText(await admin.get("/hq/admin/audit?action=nope"), 400),
    /Invalid request: action/,
  );

  const bad = await admin.post(`/hq/admin/users/${driver.id}/role`, { role: "boss" });
  assert.match(await pageText(bad, 422), /Choose a role: driver, dispatcher, admin\./);
  const dispatcher = await signedIn(a, "dispatcher");
  assert.equal((await dispatcher.get("/hq/admin/audit")).status, 403, "admins only");
});

appTest(
  "hq admin audit: the last active admin cannot be demoted or deactivated; nothing changes",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const self = await admin.post(`/hq/admin/users/${admin.user.id}/role`, { role: "dispatcher" });
    assert.match(
      await pageText(self, 422),
      new RegExp(
        `${admin.user.name} is the last active admin: make another user an admin first\\. Nothing was`,
      ),
    );
    assert.deepEqual(await activeAdmins(a), [admin.user.id]);
    const count = await a.db.selectFrom("audit_log").select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0, "a refused change leaves no entry");

    // With a second admin, demoting oneself is allowed; then the other is the last one.
    const other = await makeUser(a.db, { role: "admin" });
    assert.equal((await admin.post(`/hq/admin/users/${other.id}/active`, { active: "false" })).status, 303);
    const off = await admin.post(`/hq/admin/users/${other.id}/active`, { active: "true" });
    assert.equal(off.status, 303);
    assert.equal(
      (await admin.post(`/hq/admin/users/${admin.user.id}/role`, { role: "dispatcher" })).status,
      303,
    );
    assert.deepEqual(await activeAdmins(a), [other.id]);
  },
);

appTest("hq admin audit: a PIN reset is audited without the PIN", async (a) => {
  const admin = await signedIn(a, "admin");
  const driver = await makeUser(a.db, { role: "driver" });
  assert.equal((await admin.post(`/hq/admin/users/${driver.id}/pin`, { pin: "86420" })).status, 303);
  const entries = await a.db.selectFrom("audit_log").selectAll().execute();
  assert.equal(entries.length, 1);
  assert.equal(entries[0].action, "user.pin_reset");
  assert.equal(entries[0].actor_id, admin.user.id);
  assert.equal(entries[0].subject, `user:${driver.id}`);
  assert.doesNotMatch(JSON.stringify(entries[0]), /86420|\$argon|scrypt/);
  assert.match(await pageText(await admin.get("/hq/admin/audit")), /user\.pin_reset .* pin: reset/);
});

appTest(
  "hq admin audit: the CSV export parses and matches the entries, times in the depot's zone",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const users = [];
    for (let i = 0; i < 3; i++) users.push(await makeUser(a.db, { role: "driver" }));
    for (const u of users) await admin.post(`/hq/admin/users/${u.id}/role`, { role: "dispatcher" });
    await admin.post(`/hq/admin/users/${users[0].id}/pin`, { pin: "1234" });
    const res = await admin.get("/hq/admin/audit/csv?action=user.role");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/csv/);
    const rows = parseCsv(await res.text());
    assert.deepEqual(rows[0], AUDIT_HEADER);
    const body = rows.slice(1).filter((r) => r.length > 1);
    assert.equal(body.length, 3, "only the role changes");
    const db = await a.db.selectFrom("audit_log").selectAll().where("action", "=", "user.role").orderBy(
      "id",
      "desc",
    )
      .execute();
    assert.deepEqual(body.map((r) => Number(r[0])), db.map((e) => e.id), "newest first");
    assert.deepEqual(body.map((r) => r[5]), users.map((u) => `user:${u.id}`).reverse());
    assert.equal(body[0][2], admin.user.name);
    assert.deepEqual(JSON.parse(body[0][7]), { email: users[2].email, role: "driver" });
    assert.deepEqual(JSON.parse(body[0][8]), { email: users[2].email, role: "dispatcher" });
    const zone = a.config.depotTimeZone;
    const expected = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    })
      .format(db[0].at);
    assert.equal(body[0][1].slice(0, 10), expected);
    assert.equal(new Date(body[0][1]).getTime(), db[0].at.getTime(), "the same instant");
  },
  { config: { depotTimeZone: "Australia/Sydney" } },
);

appTest("hq admin audit: a dispatcher's status change is an entry of its claim", async (a) => {
  const dispatcher = await signedIn(a, "dispatcher");
  const { claim, parts } = await makeClaim(a.db, { parts: [{ status: "Ordered" }] });
  const other = await makeClaim(a.db, { parts: [{ status: "Ordered" }] });
  const res = await dispatcher.post(`/hq/parts/${parts[0].id}/status`, { from: "Ordered", to: "Arrived" });
  assert.equal(res.status, 303);
  await dispatcher.post(`/hq/parts/${other.parts[0].id}/status`, { from: "Ordered", to: "Arrived" });
  const entries = await auditEntriesOfClaim(a.db, claim.id);
  assert.equal(entries.length, 1);
  assert.equal(entries[0].action, "part.status");
  assert.equal(entries[0].actor_id, dispatcher.user.id);
  assert.equal(entries[0].claim_number, claim.claim_number);
  assert.deepEqual(entries[0].before, { part_no: parts[0].part_no, status: "Ordered" });
  assert.deepEqual(entries[0].after, { part_no: parts[0].part_no, status: "Arrived", reason: null });
  assert.equal(entries[0].at.getTime(), a.clock.now().getTime(), "the service clock's time");
  // A refused change (stale status) writes no entry.
  await dispatcher.post(`/hq/parts/${parts[0].id}/status`, { from: "Ordered", to: "Arrived" });
  assert.equal((await auditEntriesOfClaim(a.db, claim.id)).length, 1);
});

/**
 * The race: two admins, the only two, demote each other at the same moment. A third connection holds
 * both rows locked until both requests are waiting on them, so the two transactions really overlap; then
 * it lets go. Exactly one change goes through and one admin remains.
 */
serverAppTest("hq admin audit: two admins demoting each other at once leave one admin", async (a) => {
  const first = await signedIn(a, "admin");
  const second = await signedIn(a, "admin");
  let release!: () => void;
  const released = new Promise<void>((r) => release = r);
  let locked!: () => void;
  const holding = new Promise<void>((r) => locked = r);
  const blocker = a.db.transaction().execute(async (tx) => {
    await tx.selectFrom("users").select("id").where("id", "in", [first.user.id, second.user.id]).forUpdate()
      .execute();
    locked();
    await released;
  });
  await holding;
  const answers = Promise.all([
    first.post(`/hq/admin/users/${second.user.id}/role`, { role: "driver" }),
    second.post(`/hq/admin/users/${first.user.id}/role`, { role: "driver" }),
  ]);
  // Both requests wait on the held rows before the blocker lets go (polled, no time bound).
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where wait_event_type = 'Lock' and datname = current_database()`.execute(a.db);
    if (rows[0].n >= 2) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  release();
  await blocker;
  const [x, y] = await answers;
  const statuses = [x.status, y.status].sort();
  assert.deepEqual(statuses, [303, 422], "exactly one change refused");
  const refused = x.status === 422 ? x : y;
  assert.match(await pageText(refused, 422), /is the last active admin/);
  assert.equal((await activeAdmins(a)).length, 1);
  const roles = await a.db.selectFrom("audit_log").select("action").execute();
  assert.deepEqual(roles.map((r) => r.action), ["user.role"], "one entry: the change that happened");
}, { poolSize: 6 });

appTest("hq admin audit: places, tablets and imports are audited with their actor", async (a) => {
  const admin = await signedIn(a, "admin");
  const entry = async (action: string) => {
    const rows = await a.db.selectFrom("audit_log").selectAll().where("action", "=", action as never)
      .orderBy("id").execute();
    return rows.map((r) => ({ actor: r.actor_id, subject: r.subject, before: r.before, after: r.after }));
  };
  const add = await admin.post("/hq/admin/places/repairers", { name: "East Panels", address: "1 Main St" });
  assert.equal(add.status, 303);
  const shop = await a.db.selectFrom("repairers").select("id").where("name", "=", "East Panels")
    .executeTakeFirstOrThrow();
  await admin.post(`/hq/admin/places/repairers/${shop.id}`, {
    name: "East Panels Ltd",
    address: "1 Main St",
  });
  await admin.post(`/hq/admin/places/repairers/${shop.id}/active`, { active: "false" });
  await admin.post("/hq/admin/places/hq", { name: "North Yard" });
  const id = admin.user.id;
  const s = `repairer:${shop.id}`;
  // A repair shop's details are audited with it (empty here: the forms above leave them out).
  const details = { phone: null, emails: [], latitude: null, longitude: null, opening_hours: null };
  assert.deepEqual((await entry("place.create"))[0], {
    actor: id,
    subject: s,
    before: null,
    after: { name: "East Panels", address: "1 Main St", active: true, ...details },
  });
  assert.match((await entry("place.create"))[1].subject, /^hq_location:\d+$/);
  assert.deepEqual((await entry("place.edit")).map((e) => [e.subject, e.before, e.after]), [
    [s, { name: "East Panels", address: "1 Main St", active: true, ...details }, {
      name: "East Panels Ltd",
      address: "1 Main St",
      active: true,
      ...details,
    }],
    [s, { name: "East Panels Ltd", address: "1 Main St", active: true, ...details }, {
      name: "East Panels Ltd",
      address: "1 Main St",
      active: false,
      ...details,
    }],
  ]);
  // A refused edit (the name of another shop) writes nothing.
  await admin.post("/hq/admin/places/repairers", { name: "West" });
  await admin.post(`/hq/admin/places/repairers/${shop.id}`, { name: "West" });
  assert.equal((await entry("place.edit")).length, 2);

  assert.equal((await admin.post("/hq/admin/tablets", { name: "Depot tablet 1" })).status, 303);
  const device = await a.db.selectFrom("devices").select("id").executeTakeFirstOrThrow();
  assert.equal((await admin.post(`/hq/admin/tablets/${device.id}/revoke`)).status, 303);
  assert.deepEqual(await entry("tablet.enrol"), [
    { actor: id, subject: `device:${device.id}`, before: null, after: { name: "Depot tablet 1" } },
  ]);
  assert.deepEqual(await entry("tablet.revoke"), [
    { actor: id, subject: `device:${device.id}`, before: { name: "Depot tablet 1" }, after: null },
  ]);

  const summary = await importData(
    a.db,
    {
      repairers: [{ name: "Imported Shop" }],
      claims: [],
    },
    a.clock,
    id,
  );
  assert.deepEqual(await entry("import"), [{
    actor: id,
    subject: "import",
    before: null,
    after: { ...summary },
  }]);
});

appTest("hq admin audit: the page pages by keyset, newest first, keeping its filters", async (a) => {
  const admin = await signedIn(a, "admin");
  for (let i = 1; i <= 55; i++) {
    await insertAuditEntry(a.db, {
      actorId: admin.user.id,
      action: "user.role",
      subject: `user:${1000 + i}`,
    });
  }
  await insertAuditEntry(a.db, { actorId: admin.user.id, action: "import", subject: "import" });
  const first = await admin.get("/hq/admin/audit?action=user.role");
  const html = await first.text();
  const subjects = (h: string) => [...h.matchAll(/user:(\d{4})/g)].map((m) => Number(m[1]));
  assert.deepEqual(subjects(html), Array.from({ length: 50 }, (_, i) => 1055 - i));
  const older = html.match(/href="(\/hq\/admin\/audit\?action=user\.role&amp;before=\d+)"/);
  assert.ok(older, "an Older link that keeps the filter");
  const second = await (await admin.get(older[1].replaceAll("&amp;", "&"))).text();
  assert.deepEqual(subjects(second), [1005, 1004, 1003, 1002, 1001]);
  assert.doesNotMatch(second, /before=/, "no page after the last");
  assert.match(await pageText(await admin.get("/hq/admin/audit?before=abc"), 400), /Invalid request: before/);
});

appTest("hq admin audit: an import that would leave no active admin is rejected whole", async (a) => {
  const admin = await makeUser(a.db, { role: "admin", email: "boss@depot.example" });
  await assert.rejects(
    importData(
      a.db,
      {
        repairers: [{ name: "Never Written" }],
        users: [{ email: "boss@depot.example", name: "Boss", role: "driver" }],
      },
      a.clock,
      admin.id,
    ),
    (e: ImportRejected) => {
      assert.deepEqual(e.problems, [{ path: "users", problem: "would leave no active admin" }]);
      return true;
    },
  );
  assert.deepEqual(await activeAdmins(a), [admin.id]);
  assert.equal((await a.db.selectFrom("repairers").select("id").execute()).length, 0, "nothing written");
  assert.equal((await a.db.selectFrom("audit_log").select("id").execute()).length, 0);
  // Another admin in the same file: allowed.
  await importData(
    a.db,
    {
      users: [
        { email: "boss@depot.example", name: "Boss", role: "driver" },
        { email: "new-boss@depot.example", name: "New Boss", role: "admin", password: "new-boss-password-1" },
      ],
    },
    a.clock,
    admin.id,
  );
  assert.equal((await activeAdmins(a)).length, 1);
});
