/**
 * The dashboard's announcement feed: one row per announcement with a chip per channel,
 * newest first, keyset pages past 200, the state filter.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { appTest } from "@/testkit/app.ts";
import { pageText, signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import type { TestApp } from "@/testkit/app.ts";

/** A real drop-off (Parts Delivered: two channels, both feed only without webhooks); its movement id. */
async function delivered(a: TestApp, registration: string): Promise<number> {
  const s = await flowSetup(a, { count: 1, status: "Arrived", stage: "direct_dropoff", registration });
  const res = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
  assert.equal(res.result.status, "success", JSON.stringify(res));
  return res.result.data!.parts_movement_id as number;
}

/** The ids of the feed's rows (`data-entry`) in page order. */
function entryIds(html: string): number[] {
  return [...html.matchAll(/data-entry="(\d+)"/g)].map((m) => Number(m[1]));
}

appTest("hq announcement feed: one row per announcement with a chip per channel state", async (a) => {
  const movementId = await delivered(a, "FEED 1");
  const rows = await a.db.selectFrom("announcements").select(["id", "channel"]).orderBy("id").execute();
  assert.equal(rows.length, 2);
  await a.db.updateTable("announcements").set({ state: "failed", attempts: 31, last_error: "HTTP 502" })
    .where("id", "=", rows[0].id).execute();
  const second = await delivered(a, "FEED 2");
  const later = await a.db.selectFrom("announcements").select(["id"]).where("movement_id", "=", second)
    .orderBy("id").execute();
  await a.db.updateTable("announcements").set({
    state: "delivered",
    attempts: 1,
    delivered_at: a.clock.now(),
  })
    .where("id", "=", later[0].id).execute();
  await a.db.updateTable("announcements").set({ state: "pending", attempts: 2, last_error: "timeout" })
    .where("id", "=", later[1].id).execute();

  const d = await signedIn(a, "dispatcher");
  const res = await d.get("/hq/announcements");
  const html = await res.text();
  assert.equal(res.status, 200);
  assert.deepEqual(entryIds(html), [later[0].id, rows[0].id], "one row per announcement, newest first");
  assert.match(html, new RegExp(`data-announcement="${rows[0].id}" data-state="failed"`));
  assert.match(html, new RegExp(`data-announcement="${rows[1].id}" data-state="feed_only"`));
  const text = await pageText(new Response(html, { headers: { "content-type": "text/html" } }));
  assert.match(text, /Parts Movement: Sent .* after 1 attempt\./);
  assert.match(text, /New Repair Jobs: Waiting 2 attempts so far; next .*Last error: timeout/);
  assert.match(text, /Parts Movement: Failed Gave up after 31 attempts\. Last error: HTTP 502 Retry/);
  assert.match(text, /New Repair Jobs: Not configured No chat webhook configured for this channel\./);
  assert.equal(text.match(/FEED 1/g)?.length, 1, "the announcement's text shows once, not once per channel");
  assert.match(text, /Failed \(1\) Waiting \(1\) Sent \(1\) Not configured \(1\)/);
  assert.match(html, new RegExp(`href="/hq/movements/${movementId}"`));
});

appTest(
  "hq announcement feed: the state filter keeps announcements with a channel in that state",
  async (a) => {
    const first = await delivered(a, "FLT 1");
    await delivered(a, "FLT 2");
    await a.db.updateTable("announcements").set({ state: "failed", last_error: "HTTP 500" })
      .where("movement_id", "=", first).where("channel", "=", "parts_movement").execute();
    const d = await signedIn(a, "dispatcher");
    const failed = await (await d.get("/hq/announcements?state=failed")).text();
    const firstKey = (await a.db.selectFrom("announcements").select((eb) => eb.fn.min("id").as("id"))
      .where("movement_id", "=", first).executeTakeFirstOrThrow()).id;
    assert.deepEqual(entryIds(failed), [firstKey]);
    assert.equal(entryIds(await (await d.get("/hq/announcements?state=feed_only")).text()).length, 2);
    assert.equal(entryIds(await (await d.get("/hq/announcements?state=delivered")).text()).length, 0);
    // A state that is not one of the filters shows everything rather than failing.
    assert.equal(entryIds(await (await d.get("/hq/announcements?state=bogus&before=x")).text()).length, 2);
  },
);

appTest("hq announcement feed: pages of 200 past the newest, by key, with the filter kept", async (a) => {
  const seed = await delivered(a, "PAGE 1");
  // 249 more movements of the same claim, each with its two announcement rows (250 announcements).
  await sql`
    insert into parts_movements (claim_id, movement_type, movement_status, picked_up_by, dropped_off_by,
      pick_up_at, dropped_off_at, repairer_id, location_type, hq_location_id, created_at)
    select claim_id, movement_type, movement_status, picked_up_by, dropped_off_by,
      pick_up_at, dropped_off_at, repairer_id, location_type, hq_location_id, created_at
    from parts_movements, generate_series(1, 249) where id = ${seed}`.execute(a.db);
  await sql`
    insert into announcements (message_id, movement_id, title, channel, body, state, next_attempt_at, created_at)
    select gen_random_uuid(), m.id, a.title, a.channel, a.body, a.state, a.next_attempt_at, a.created_at
    from parts_movements m, announcements a where m.id <> ${seed} and a.movement_id = ${seed}
    order by m.id, a.id`.execute(a.db);
  const d = await signedIn(a, "dispatcher");
  const first = await d.get("/hq/announcements?state=feed_only");
  const html = await first.text();
  const page1 = entryIds(html);
  assert.equal(page1.length, 200);
  assert.deepEqual(page1, [...page1].sort((x, y) => y - x), "newest first");
  const next = html.match(/href="([^"]*before=\d+[^"]*)" rel="next"/)?.[1]?.replaceAll("&amp;", "&");
  assert.equal(next, `/hq/announcements?state=feed_only&before=${page1[199]}`);
  const html2 = await (await d.get(next!)).text();
  const page2 = entryIds(html2);
  assert.equal(page2.length, 50);
  assert.ok(page2.every((id) => id < page1[199]), "the second page holds only older announcements");
  assert.equal(new Set([...page1, ...page2]).size, 250, "every announcement once across the pages");
  assert.doesNotMatch(html2, /rel="next"/, "no page after the last");
  const text = await pageText(new Response(html, { headers: { "content-type": "text/html" } }));
  assert.match(text, /Not configured \(250\)/, "the counts are of announcements, not channel rows");
});
