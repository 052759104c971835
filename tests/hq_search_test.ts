import assert from "node:assert/strict";
import { labelCode } from "@/lib/labels/code.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { makeClaim, makeRepairer, makeUser } from "@/testkit/factories.ts";
import { type HqClient, pageText, signedIn, textOf } from "@/tests/helpers/hq.ts";
import { SEARCH_CAP, searchEverything } from "@/lib/dashboard/search.ts";

/** The HTML of one kind's section of the results page (its heading's id names it). */
function section(html: string, id: string): string {
  const start = html.indexOf(`aria-labelledby="${id}"`);
  assert.notEqual(start, -1, `no section ${id}`);
  return html.slice(html.indexOf(">", start) + 1, html.indexOf("</section>", start));
}

async function search(d: HqClient, q: string): Promise<string> {
  const res = await d.get(`/hq/search?${new URLSearchParams({ q })}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  return await res.text();
}

/** The hrefs of the result links of a section, in order. */
const links = (html: string) => [...html.matchAll(/<li[^>]*>\s*<a[^>]*href="([^"]+)"/g)].map((m) => m[1]);

async function world(a: TestApp) {
  const shop = await makeRepairer(a.db, "Northside Panel Works");
  await a.db.updateTable("repairers").set({ address: "12 Harbour Rd, Glebe" }).where("id", "=", shop.id)
    .execute();
  const driver = await makeUser(a.db, { role: "driver", name: "Dana Quokka", email: "dana.q@depot.example" });
  const { claim, parts } = await makeClaim(a.db, {
    claimNumber: "CLM-77001",
    registration: "XYZ 789",
    management: shop.id,
    parts: [
      { status: "Arrived", part_no: "52119-0K040", description: "Front bumper cover" },
      { status: "Ordered", part_no: "52119-0K041", description: "Bumper bracket, left" },
      { status: "Ordered", part_no: "81150-AB001", description: "Headlamp assembly" },
    ],
  });
  return { shop, driver, claim, parts };
}

appTest("hq search: each kind is found, grouped by kind, each result linking to its page", async (a) => {
  const w = await world(a);
  const d = await signedIn(a, "dispatcher");

  // A part by its exact number, in any case: first, marked exact; its sibling by the same start after it.
  for (const q of ["52119-0K040", "52119-0k040"]) {
    const parts = section(await search(d, q), "search-parts");
    assert.deepEqual(links(parts), [`/hq/parts/${w.parts[0].id}`]);
    assert.match(
      textOf(parts),
      /52119-0K040 Front bumper cover Arrived claim CLM-77001 · XYZ 789 exact match/,
    );
  }
  const byStart = section(await search(d, "52119"), "search-parts");
  assert.deepEqual(links(byStart), [`/hq/parts/${w.parts[0].id}`, `/hq/parts/${w.parts[1].id}`]);
  assert.doesNotMatch(byStart, /exact match/);
  // Words of a description, in any order and case; a word of 2 characters is not looked for.
  for (const q of ["bumper cover", "COVER bumper", "bumper co"]) {
    const html = await search(d, q);
    assert.deepEqual(
      links(section(html, "search-parts")),
      q === "bumper co"
        ? [`/hq/parts/${w.parts[1].id}`, `/hq/parts/${w.parts[0].id}`]
        : [`/hq/parts/${w.parts[0].id}`],
      q,
    );
  }

  // A claim by its number, by its rego as typed or normalised, by a part of either.
  for (const q of ["CLM-77001", "xyz789", "XYZ-789", "77001", "yz 78"]) {
    const claims = section(await search(d, q), "search-claims");
    assert.deepEqual(links(claims), ["/hq/claims/CLM-77001"], q);
    assert.match(textOf(claims), /CLM-77001 XYZ 789 · Northside Panel Works/);
  }
  assert.match(section(await search(d, "CLM-77001"), "search-claims"), /exact match/);
  assert.doesNotMatch(section(await search(d, "77001"), "search-claims"), /exact match/);

  // A driver by name or e-mail, linking to their movements; a repair shop by name or address, to its parts.
  for (const q of ["quokka", "dana.q@"]) {
    const drivers = section(await search(d, q), "search-drivers");
    assert.deepEqual(links(drivers), [`/hq/movements?driver=${w.driver.id}`], q);
    assert.match(textOf(drivers), /Dana Quokka dana\.q@depot\.example/);
  }
  for (const q of ["northside", "harbour rd"]) {
    const shops = section(await search(d, q), "search-shops");
    assert.deepEqual(links(shops), [`/hq/parts?repairer=${w.shop.id}`], q);
    assert.match(textOf(shops), /Northside Panel Works 12 Harbour Rd, Glebe/);
  }

  // Grouped: every kind has its section, in this order, each saying how many it shows.
  const html = await search(d, "bumper");
  const order = ["search-parts", "search-claims", "search-drivers", "search-shops"]
    .map((id) => html.indexOf(`aria-labelledby="${id}"`));
  assert.deepEqual(order, [...order].sort((x, y) => x - y));
  assert.match(textOf(html), /Parts \(2\).*Claims \(0\) No claims match\. Drivers \(0\).*Repair shops \(0\)/);
  // Nothing found says so; the box keeps what was typed.
  const none = await search(d, "zz-nothing");
  assert.match(textOf(none), /Nothing matches “zz-nothing”\./);
  assert.match(none, /<input id="hq-search" type="search" name="q" value="zz-nothing"/);
  // The links lead somewhere: the part's page and the claim's page answer.
  assert.equal((await d.get(`/hq/parts/${w.parts[0].id}`)).status, 200);
  assert.equal((await d.get("/hq/claims/CLM-77001")).status, 200);
});

appTest(
  "hq search: the box is in the header of every dashboard page, labelled Search, a GET form",
  async (a) => {
    const admin = await signedIn(a, "admin");
    for (
      const path of [
        "/hq/parts",
        "/hq/movements",
        "/hq/trips",
        "/hq/exports",
        "/hq/admin/users",
        "/hq/search",
      ]
    ) {
      const html = await (await admin.get(path)).text();
      const header = html.slice(html.indexOf("<header"), html.indexOf("</header>"));
      assert.match(
        header,
        /<form method="get" action="\/hq\/search" role="search" aria-label="Dashboard"/,
        path,
      );
      assert.match(header, /<label for="hq-search" class="sr-only">Search<\/label>/, path);
      assert.match(header, /<input id="hq-search" type="search" name="q"/, path);
    }
    // Signed out, the sign-in page has no search box (it would only lead back to sign-in).
    const signIn = await (await a.app.request("/hq/sign-in")).text();
    assert.doesNotMatch(signIn, /hq-search/);
  },
);

appTest(
  "hq search: at most 20 of a kind, with a link to the rest; the parts list finds part numbers",
  async (a) => {
    const { claim } = await makeClaim(a.db, {
      claimNumber: "CLM-CAP",
      parts: Array.from({ length: SEARCH_CAP + 5 }, (_, i) => ({
        status: "Ordered" as const,
        part_no: `CAP-${String(i + 1).padStart(2, "0")}`,
        description: "Wheel nut",
      })),
    });
    for (let i = 0; i < SEARCH_CAP + 2; i++) await makeUser(a.db, { role: "driver", name: `Capper ${i}` });
    const d = await signedIn(a, "dispatcher");
    const html = await search(d, "cap-");
    const parts = section(html, "search-parts");
    assert.equal(links(parts).length, SEARCH_CAP);
    assert.match(textOf(parts), /Parts \(first 20\)/);
    // By number: CAP-01 … CAP-20, in order.
    assert.match(
      textOf(parts),
      /^Parts \(first 20\) CAP-01 Wheel nut.*CAP-20 Wheel nut Ordered claim CLM-CAP · \S+ More parts…$/,
    );
    assert.match(parts, /href="\/hq\/parts\?part=cap-">More parts…<\/a>/);
    const drivers = section(await search(d, "capper"), "search-drivers");
    assert.equal(links(drivers).length, SEARCH_CAP);
    assert.match(textOf(drivers), /More than 20 match: type more of the name\./);
    assert.equal(claim.claim_number, "CLM-CAP");

    // "More parts…" is the parts list's own filter: every part of that start (25 fit one page).
    const list = await pageText(await d.get("/hq/parts?part=cap-"));
    assert.equal([...list.matchAll(/CAP-\d\d Wheel nut/g)].length, SEARCH_CAP + 5);
    // The case: a part number typed into the parts list's filter finds the part.
    const w = await world(a);
    const one = await pageText(await d.get("/hq/parts?part=52119-0K040"));
    assert.match(one, /52119-0K040 Front bumper cover/);
    assert.doesNotMatch(one, /52119-0K041|No parts match/);
    assert.match(await pageText(await d.get("/hq/parts?part=headlamp")), /81150-AB001 Headlamp assembly/);
    assert.match(
      await (await d.get("/hq/parts?part=52119")).text(),
      new RegExp(`/hq/parts/${w.parts[1].id}"`),
    );
  },
);

appTest(
  "hq search: wildcards and quotes are text; too short runs nothing; too long or a control character is refused",
  async (a) => {
    await makeClaim(a.db, {
      claimNumber: "CLM-WILD",
      parts: [
        { status: "Ordered", part_no: "AB%12", description: "100% wool seat cover" },
        { status: "Ordered", part_no: "AB_34", description: "Under_score trim" },
        { status: "Ordered", part_no: "ABX56", description: 'O\'Brien "special" mirror' },
      ],
    });
    const d = await signedIn(a, "dispatcher");
    const partNos = async (q: string) =>
      textOf(section(await search(d, q), "search-parts")).match(/AB.\d\d/g) ?? [];
    assert.deepEqual(await partNos("AB%"), ["AB%12"]);
    assert.deepEqual(await partNos("ab_"), ["AB_34"]);
    assert.deepEqual(await partNos("100%"), ["AB%12"]);
    assert.deepEqual(await partNos("o'brien"), ["ABX56"]);
    assert.deepEqual(await partNos('"special"'), ["ABX56"]);
    for (const q of ["%%", "__", "\\\\", "'; drop table parts_orders; --", "a\\%b"]) {
      assert.match(textOf(await search(d, q)), /Search/, q);
    }
    assert.equal((await a.db.selectFrom("parts_orders").select("id").execute()).length, 3);

    // Too short: a message, no results sections, and no statement sent.
    const noQueries = a.db.withPlugin({
      transformQuery: () => {
        throw new Error("a statement was sent");
      },
      transformResult: ({ result }) => Promise.resolve(result),
    });
    assert.deepEqual(await searchEverything(noQueries, "a"), { kind: "too_short" });
    for (const q of ["", " ", "a", " b "]) {
      const html = await search(d, q);
      assert.match(textOf(html), /Type at least 2 characters to search\./, JSON.stringify(q));
      assert.doesNotMatch(html, /search-parts/);
    }
    // 10 KB, 101 characters, or a control character: the 400 "Invalid search" page, not a 500.
    for (const q of ["x".repeat(10_000), "y".repeat(101)]) {
      const text = await pageText(await d.get(`/hq/search?${new URLSearchParams({ q })}`), 400);
      assert.match(text, /Invalid search Invalid request: q must be at most 100 characters\./);
    }
    const nul = await pageText(await d.get("/hq/search?q=ab%00cd"), 400);
    assert.match(nul, /Invalid search Invalid request: q must not contain control characters\./);
    // A text shaped like a code but with a wrong check symbol names no part: it is looked for as a part number.
    await makeClaim(a.db, { parts: [{ status: "Ordered", part_no: "PM-ABC234" }] });
    assert.match(textOf(section(await search(d, "pm-abc234"), "search-parts")), /PM-ABC234 .* exact match/);
    // A label's code finds its part first, typed in lower case with Crockford's aliases (docs/labels.md).
    const { parts: [labelled] } = await makeClaim(a.db, {
      parts: [{ status: "Arrived", part_no: "LBL-77" }],
    });
    const code = labelCode(labelled.id);
    const found = section(await search(d, code.toLowerCase().replaceAll("0", "o")), "search-parts");
    assert.match(found, new RegExp(`href="/hq/parts/${labelled.id}"`));
    assert.match(textOf(found), /^.*LBL-77 .* exact match/);
  },
);
