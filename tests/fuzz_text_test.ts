/**
 * NUL-byte fuzz: strings full of C0 controls, DEL and bidirectional controls put into
 * every handler field, tablet API field, dashboard form field and query parameter, one field at a time.
 * No answer may be a 5xx (before the text rules, a NUL reaching PostgreSQL answered 503). Exact answers of
 * a few are in tests/text_rules_test.ts. Runs on PGlite and, with TEST_DATABASE_URL, on the server.
 */
import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer } from "@/testkit/factories.ts";
import { type HqClient, signedIn } from "@/tests/helpers/hq.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";

const CONTROLS = [
  "\u0000",
  "\u0001",
  "\u0008",
  "\t",
  "\n",
  "\u000b",
  "\r",
  "\u001b",
  "\u001f",
  "\u007f",
  "\u061c",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202e",
  "\u2066",
  "\u2069",
];

/** A short string with at least one control among ordinary characters (NUL in half of them). */
const hostile = fc.tuple(
  fc.array(fc.oneof(fc.constantFrom(...CONTROLS), fc.string({ maxLength: 4 })), { maxLength: 5 }),
  fc.constantFrom(...CONTROLS, "\u0000", "\u0000", "\u0000"),
  fc.nat(5),
).map(([parts, control, at]) => {
  parts.splice(Math.min(at, parts.length), 0, control);
  return parts.join("");
});

const RUNS = 12;

/** Sends `value` in one field; the answer must not be a 5xx. */
type Target = [name: string, send: (value: string) => Response | Promise<Response>];

async function sweep(targets: Target[]) {
  for (const [name, send] of targets) {
    await fc.assert(
      fc.asyncProperty(hostile, async (value) => {
        const res = await send(value);
        const body = await res.text();
        assert.ok(
          res.status < 500,
          `${name} = ${JSON.stringify(value)}: ${res.status} ${body.slice(0, 200)}`,
        );
      }),
      // No shrinking: the first failing value already names the field, and shrinking re-sends hundreds.
      { numRuns: RUNS, endOnFailure: true },
    );
  }
}

/** `base` with the value at `path` (dot-separated; numbers index arrays) replaced by `value`. */
function withField(base: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(base) as Record<string, unknown>;
  const keys = path.split(".");
  let at: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[keys.at(-1)!] = value;
  return copy;
}

async function world(a: TestApp) {
  const driver = await makeDriver(a);
  const repairer = await makeRepairer(a.db);
  const { claim, parts } = await makeClaim(a.db, {
    registration: "FUZ 123",
    management: repairer.id,
    parts: [{ status: "Arrived" }],
  });
  return { driver, repairer, claim, part: parts[0] };
}

appTest("fuzz text: every handler field with controls answers without a 5xx", async (a) => {
  const { driver, repairer, part } = await world(a);
  const parts = [{ parts_order_id: part.id, confirm: true, image_id: "" }];
  const payloads: [string, Record<string, unknown>][] = [
    ["Parts_search_details", {
      user_email: driver.email,
      details: { rego: "FUZ123", movement_type: "direct" },
    }],
    ["parts_movement_upload_token", {
      Parts_Order: part.id,
      Movement_Stage: "direct_dropoff",
      rego: "FUZ123",
      user_email: driver.email,
    }],
    ["parts_drop_off", {
      user_email: driver.email,
      details: {
        rego: "FUZ123",
        movement_type: "direct",
        delivery_location: { id: repairer.id, name: "x" },
        parts,
      },
    }],
    ["parts_pick_up_reverse", {
      user_email: driver.email,
      details: { rego: "FUZ123", movement_type: "reverse", parts },
    }],
    ["parts_drop_off_reverse", {
      user_email: driver.email,
      details: { rego: "FUZ123", movement_type: "reverse", parts_movement_id: 1, parts },
    }],
  ];
  const targets: Target[] = [];
  for (const [event_type, fields] of payloads) {
    const base = { event_type, ...fields };
    targets.push([`${event_type}.event_type`, (v) => a.handler({ ...base, event_type: v })]);
    for (const path of leafPaths(fields)) {
      targets.push([`${event_type}.${path}`, (v) => a.handler(withField(base, path, v))]);
    }
  }
  targets.push([
    "publickey",
    (v) =>
      Promise.resolve(
        a.app.request(`/api/handler?publickey=${encodeURIComponent(v)}`, { method: "POST", body: "{}" }),
      ),
  ]);
  await sweep(targets);
});

/** Every leaf of a JSON value, as withField paths. */
function leafPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [prefix];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}

appTest(
  "fuzz text: every tablet API field and query parameter with controls answers without a 5xx",
  async (a) => {
    const { driver, repairer, part } = await world(a);
    const tablet = new Tablet(a);
    await tablet.signIn(driver);
    const search = { job: "deliver", rego: "FUZ123" };
    const movement = {
      job: "deliver",
      rego: "FUZ123",
      repairer_id: repairer.id,
      parts: [{ parts_order_id: part.id, confirm: true, image_id: "" }],
      handover: {
        receiver_name: "Sam",
        signature_image_id: 1,
        unsigned_reason: "shop_closed",
        left_image_id: 1,
      },
    };
    const photo = { job: "deliver", rego: "FUZ123", part_id: String(part.id) };
    const targets: Target[] = [
      ...leafPaths(search).map((
        p,
      ): Target => [`search.${p}`, (v) => tablet.postJson("/tablet/api/search", withField(search, p, v))]),
      ...leafPaths(movement).map((p): Target => [
        `movements.${p}`,
        (v) => tablet.postJson("/tablet/api/movements", withField(movement, p, v)),
      ]),
      ...Object.keys(photo).map((p): Target => [
        `photos?${p}`,
        (v) => tablet.uploadPhoto({ ...photo, [p]: v }, new Uint8Array([0xff, 0xd8, 0xff])),
      ]),
      [
        "handover-images?kind",
        (v) => tablet.uploadHandoverImage(v, new Uint8Array([0x89, 0x50, 0x4e, 0x47])),
      ],
      ["/tablet/deliver?rego", (v) => tablet.request(`/tablet/deliver?rego=${encodeURIComponent(v)}`)],
      ["/tablet/sign-in?reason", (v) => tablet.request(`/tablet/sign-in?reason=${encodeURIComponent(v)}`)],
    ];
    await sweep(targets);
  },
);

/** GET `path` with `name` set to the value (other parameters as given). */
const query = (hq: HqClient, path: string, name: string, others: Record<string, string> = {}): Target => [
  `${path}?${name}`,
  (v) => hq.get(`${path}?${new URLSearchParams({ ...others, [name]: v })}`),
];

/** POST `path` with `name` set to the value among otherwise plausible `fields`. */
const form = (hq: HqClient, path: string, name: string, fields: Record<string, string>): Target => [
  `${path} ${name}`,
  (v) => hq.post(path, { ...fields, [name]: v }),
];

appTest(
  "fuzz text: every dashboard query parameter and form field with controls answers without a 5xx, the CSV exports included",
  async (a) => {
    const { repairer, part } = await world(a);
    const admin = await signedIn(a, "admin");
    const targets: Target[] = [
      ...["rego", "claim", "status", "repairer", "page"].flatMap((n) => [
        query(admin, "/hq/parts", n, { rego: "FUZ" }),
        query(admin, "/hq/exports/parts.csv", n),
      ]),
      ...["type", "status", "rego", "driver", "page"].flatMap((n) => [
        query(admin, "/hq/movements", n),
        query(admin, "/hq/exports/movements.csv", n),
      ]),
      query(admin, "/hq/announcements", "state"),
      query(admin, "/hq/announcements", "done"),
      query(admin, "/hq/announcements", "before"),
      query(admin, `/hq/parts/${part.id}`, "done"),
      query(admin, "/hq/admin/users", "done"),
      query(admin, "/hq/admin/places", "done"),
      query(admin, "/hq/trips", "page"),
      ...["from", "to", "reason"].map((n) =>
        form(admin, `/hq/parts/${part.id}/status`, n, { from: "Arrived", to: "Ordered", reason: "r" })
      ),
      ...["name", "address", "phone", "emails", "latitude", "longitude", "opening_hours"].flatMap((n) => [
        form(admin, "/hq/admin/places/repairers", n, { name: "Shop", address: "1 St" }),
        form(admin, `/hq/admin/places/repairers/${repairer.id}`, n, { name: "Shop", address: "1 St" }),
      ]),
      form(admin, `/hq/admin/places/repairers/${repairer.id}/active`, "active", {}),
      ...["name", "latitude", "longitude"].map((n) => form(admin, "/hq/admin/places/hq", n, {})),
      ...["email", "name", "role", "pin"].map((n) =>
        form(admin, "/hq/admin/users", n, { email: "x@depot.example", name: "X", role: "driver", pin: "12a" })
      ),
      form(admin, `/hq/admin/users/${admin.user.id}/pin`, "pin", {}),
    ];
    await sweep(targets);
  },
);

appTest("fuzz text: the sign-in forms and the import file with controls answer without a 5xx", async (a) => {
  const admin = await signedIn(a, "admin");
  const signInPost = (fields: Record<string, string>) =>
    a.app.request("/hq/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost" },
      body: new URLSearchParams(fields),
    });
  const file = {
    hq_locations: [{ name: "Depot" }],
    repairers: [{ name: "North", address: "1 St" }],
    users: [{ email: "u@depot.example", name: "U", role: "driver" }],
    claims: [{
      claim_number: "CLM-1",
      registration: "ABC123",
      management: { repairer: "North" },
      parts: [{ part_no: "P1", description: "d", status: "Arrived" }],
    }],
  };
  const importPost = (json: unknown) => {
    const body = new FormData();
    body.set("_csrf", admin.csrf);
    body.set("file", new File([JSON.stringify(json)], "f.json"));
    return admin.request("/hq/admin/import", { method: "POST", body });
  };
  const targets: Target[] = [
    // A few runs: each sign-in hashes a password on purpose (PBKDF2).
    ["/hq/sign-in email", (v) => signInPost({ email: v, password: "1234" })],
    ["/hq/sign-in password", (v) => signInPost({ email: "nobody@depot.example", password: v })],
    ["/hq/sign-in next", (v) => signInPost({ email: "nobody@depot.example", password: "1234", next: v })],
    ["/hq/sign-in?next", (v) => Promise.resolve(a.app.request(`/hq/sign-in?next=${encodeURIComponent(v)}`))],
    ...leafPaths(file).map((p): Target => [`import ${p}`, (v) => importPost(withField(file, p, v))]),
  ];
  await sweep(targets);
});
