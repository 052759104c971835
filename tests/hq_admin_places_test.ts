import assert from "node:assert/strict";
import { hqLocationsWithDetails, repairerWithDetails } from "@/lib/places/read.ts";
import { isOpenAt } from "@/lib/places/hours.ts";
import { appTest } from "@/testkit/app.ts";
import { makeHq, makeRepairer } from "@/testkit/factories.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { isLineText } from "@/lib/validation.ts";

/** Every box of a repair shop's form, as the page posts them. */
const SHOP = {
  name: "Harbour Smash Repairs",
  address: "12 Wharf Rd, Pyrmont",
  phone: " 02  9555 0123 ",
  emails: "Workshop@Harbour.example; accounts@harbour.example, workshop@harbour.example",
  latitude: "-33.8696",
  longitude: "151.1933",
  opening_hours: "Mon-Fri 7:30am-5pm, Sat 8am-12pm",
};

/** The input named `name` in the form that posts to `action` (its opening tag). */
function inputOf(html: string, action: string, name: string): string {
  const form = html.slice(html.indexOf(`action="${action}"`));
  const end = form.indexOf("</form>");
  const tag = form.slice(0, end).match(new RegExp(`<input[^>]*name="${name}"[^>]*>`));
  assert.ok(tag, `an input ${name} in the form of ${action}`);
  return tag[0];
}

appTest(
  "hq admin places: a repair shop's phone, e-mails, coordinates and hours are added and edited",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const add = await admin.post("/hq/admin/places/repairers", SHOP);
    assert.equal(add.status, 303);
    assert.equal(add.headers.get("location"), "/hq/admin/places?done=repairer");
    const row = await a.db.selectFrom("repairers").select("id").where("name", "=", SHOP.name)
      .executeTakeFirstOrThrow();
    const shop = await repairerWithDetails(a.db, row.id);
    assert.deepEqual(shop, {
      id: row.id,
      name: "Harbour Smash Repairs",
      address: "12 Wharf Rd, Pyrmont",
      active: true,
      phone: "02 9555 0123",
      emails: ["workshop@harbour.example", "accounts@harbour.example"],
      coordinates: { latitude: -33.8696, longitude: 151.1933 },
      openingHours: {
        mon: [{ open: "07:30", close: "17:00" }],
        tue: [{ open: "07:30", close: "17:00" }],
        wed: [{ open: "07:30", close: "17:00" }],
        thu: [{ open: "07:30", close: "17:00" }],
        fri: [{ open: "07:30", close: "17:00" }],
        sat: [{ open: "08:00", close: "12:00" }],
      },
      openingHoursText: "Mon–Fri 07:30–17:00, Sat 08:00–12:00",
    });
    // Monday 07:45 in Sydney.
    assert.equal(isOpenAt(shop!.openingHours!, new Date("2026-11-22T20:45:00Z"), "Australia/Sydney"), true);

    // The page shows them in the row's boxes, each named for the shop.
    const html = await (await admin.get("/hq/admin/places")).text();
    const action = `/hq/admin/places/repairers/${row.id}`;
    assert.match(inputOf(html, action, "phone"), /aria-label="Phone of Harbour Smash Repairs"/);
    assert.match(inputOf(html, action, "phone"), /value="02 9555 0123"/);
    assert.match(
      inputOf(html, action, "emails"),
      /value="workshop@harbour.example, accounts@harbour.example"/,
    );
    assert.match(inputOf(html, action, "latitude"), /value="-33.8696"/);
    assert.match(
      inputOf(html, action, "opening_hours"),
      /aria-label="Opening hours of Harbour Smash Repairs"/,
    );
    assert.match(inputOf(html, action, "opening_hours"), /value="Mon–Fri 07:30–17:00, Sat 08:00–12:00"/);

    // Emptying the boxes clears them; a form without the detail boxes (an older page) keeps them.
    const cleared = await admin.post(action, {
      name: SHOP.name,
      address: SHOP.address,
      phone: "",
      emails: "",
      latitude: "",
      longitude: "",
      opening_hours: "",
    });
    assert.equal(cleared.headers.get("location"), "/hq/admin/places?done=saved");
    const empty = await repairerWithDetails(a.db, row.id);
    assert.deepEqual(
      [empty!.phone, empty!.emails, empty!.coordinates, empty!.openingHours],
      [null, [], null, null],
    );
    await admin.post(action, SHOP);
    await admin.post(action, { name: "Harbour Smash", address: SHOP.address });
    const kept = await repairerWithDetails(a.db, row.id);
    assert.deepEqual([kept!.name, kept!.phone, kept!.openingHoursText], [
      "Harbour Smash",
      "02 9555 0123",
      "Mon–Fri 07:30–17:00, Sat 08:00–12:00",
    ]);

    // Audited like every place edit: the row before and after, with its details.
    const audit = await a.db.selectFrom("audit_log").select(["before", "after"])
      .where("action", "=", "place.edit").where("subject", "=", `repairer:${row.id}`).orderBy("id").execute();
    assert.equal(audit.length, 3);
    const first = audit[0] as { before: Record<string, unknown>; after: Record<string, unknown> };
    assert.equal(first.before.phone, "02 9555 0123");
    assert.deepEqual(first.before.emails, ["workshop@harbour.example", "accounts@harbour.example"]);
    assert.deepEqual([first.after.phone, first.after.emails, first.after.opening_hours], [null, [], null]);
  },
);

appTest(
  "hq admin places: a bad detail is refused naming its field, keeps what was typed, writes nothing",
  async (a) => {
    const admin = await signedIn(a, "admin");
    const shop = await makeRepairer(a.db, "Refusal Panels");
    const action = `/hq/admin/places/repairers/${shop.id}`;
    const before = await repairerWithDetails(a.db, shop.id);
    const cases: [Partial<typeof SHOP>, string, RegExp][] = [
      [{ phone: "call Bob" }, "phone", /Phone: must be a phone number of 6 to 15 digits/],
      [
        { emails: "ok@shop.example, not-an-address" },
        "emails",
        /Contact e-mails: "not-an-address" is not an e-mail address\./,
      ],
      [
        { latitude: "-33.9", longitude: "" },
        "longitude",
        /Longitude: give it with the latitude, or leave both empty\./,
      ],
      [{ latitude: "-91", longitude: "151" }, "latitude", /Latitude: must be between -90 and 90\./],
      [{ latitude: "-33", longitude: "181" }, "longitude", /Longitude: must be between -180 and 180\./],
      [
        { opening_hours: "Mon-Fri 17:00-07:30" },
        "opening_hours",
        /Opening hours: Mon 17:00–07:30 closes before it opens/,
      ],
      [{ opening_hours: "Sat" }, "opening_hours", /Opening hours: give the hours after Sat/],
      [{ phone: "02 9555\u00010123" }, "phone", /Phone: must not contain control characters\./],
      [{ address: "1 Main St\u0007" }, "address", /The address must not contain control characters\./],
    ];
    for (const [change, field, message] of cases) {
      const res = await admin.post(action, { ...SHOP, name: "Refusal Panels", ...change });
      const body = await res.clone().text();
      assert.match(await pageText(res, 422), message, field);
      // The refused box is marked and points at the message; what was typed is still in the form.
      const box = inputOf(body, action, field);
      assert.match(box, /aria-invalid="true"/, field);
      assert.match(box, /aria-describedby="place-error"/, field);
      assert.match(body, /id="place-error"[^>]*>\s*<div role="alert"/);
      const typed = { ...SHOP, ...change }[field as keyof typeof SHOP];
      if (typed !== "" && isLineText(typed)) {
        assert.ok(box.includes(`value="${typed.replaceAll("&", "&amp;").replaceAll('"', "&quot;")}"`), box);
      }
    }
    assert.deepEqual(await repairerWithDetails(a.db, shop.id), before, "nothing written");
    const edits = await a.db.selectFrom("audit_log").select("id").where("action", "=", "place.edit")
      .execute();
    assert.equal(edits.length, 0, "nothing audited");

    // The add form refuses the same way, keeping the new shop's typed name.
    const add = await admin.post("/hq/admin/places/repairers", { ...SHOP, opening_hours: "Mon 9-5" });
    const html = await add.clone().text();
    assert.match(await pageText(add, 422), /Opening hours: write 9 as a time, e\.g\. 09:00\./);
    assert.match(inputOf(html, "/hq/admin/places/repairers", "name"), /value="Harbour Smash Repairs"/);
    assert.match(inputOf(html, "/hq/admin/places/repairers", "opening_hours"), /value="Mon 9-5"/);
    assert.equal(
      await a.db.selectFrom("repairers").select("id").where("name", "=", SHOP.name).executeTakeFirst(),
      undefined,
    );

    // A dispatcher may not; a cross-site or tokenless post changes nothing.
    const dispatcher = await signedIn(a, "dispatcher");
    assert.equal((await dispatcher.post(action, { ...SHOP, name: "Refusal Panels" })).status, 403);
    assert.equal((await admin.post(action, { ...SHOP, name: "Refusal Panels", _csrf: "" })).status, 403);
    assert.equal(
      (await admin.post(action, { ...SHOP, name: "Refusal Panels" }, { origin: "https://evil.example" }))
        .status,
      403,
    );
    assert.deepEqual(await repairerWithDetails(a.db, shop.id), before, "refused posts changed nothing");
  },
);

appTest("hq admin places: an HQ location gets coordinates; a half pair is refused", async (a) => {
  const admin = await signedIn(a, "admin");
  const yard = await makeHq(a.db, "Coordinate Yard");
  const add = await admin.post("/hq/admin/places/hq", {
    name: "Depot South",
    latitude: "-33.9173, 151.1851",
  });
  assert.equal(add.headers.get("location"), "/hq/admin/places?done=hq");
  const save = await admin.post(`/hq/admin/places/hq/${yard.id}`, {
    name: "Coordinate Yard",
    latitude: "-33.7969",
    longitude: "151.1803",
  });
  assert.equal(save.headers.get("location"), "/hq/admin/places?done=hq-saved");
  const half = await admin.post(`/hq/admin/places/hq/${yard.id}`, {
    name: "Coordinate Yard",
    latitude: "-34",
  });
  assert.match(await pageText(half, 422), /Longitude: give it with the latitude, or leave both empty\./);
  const places = await hqLocationsWithDetails(a.db);
  assert.deepEqual(places.map((p) => [p.name, p.coordinates]), [
    ["Coordinate Yard", { latitude: -33.7969, longitude: 151.1803 }],
    ["Depot South", { latitude: -33.9173, longitude: 151.1851 }],
  ]);
  const html = await (await admin.get("/hq/admin/places")).text();
  assert.match(
    inputOf(html, `/hq/admin/places/hq/${yard.id}`, "latitude"),
    /aria-label="Latitude of Coordinate Yard"/,
  );
  const audit = await a.db.selectFrom("audit_log").select("after").where("action", "=", "place.edit")
    .where("subject", "=", `hq_location:${yard.id}`).executeTakeFirstOrThrow();
  assert.deepEqual(audit.after, { name: "Coordinate Yard", latitude: -33.7969, longitude: 151.1803 });
});
