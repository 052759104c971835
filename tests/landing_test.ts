/**
 * The front page `/` (docs/tablet.md "The front page"): a browser that is not an enrolled tablet is
 * offered both doors and enrolled by nothing; an enrolled tablet goes straight to the tablet; on the
 * development demo the tablet door still enrols the browser once the person chose it.
 */
import assert from "node:assert/strict";
import { importData } from "@/lib/import.ts";
import { DEMO_DATA_URL } from "@/lib/demo_data.ts";
import { appTest, type TestApp } from "@/testkit/app.ts";
import { Tablet } from "@/tests/helpers/tablet.ts";

async function loadDemo(a: TestApp) {
  await importData(a.db, JSON.parse(await Deno.readTextFile(DEMO_DATA_URL)), a.clock);
}

const devices = (a: TestApp) => a.db.selectFrom("devices").select("id").execute();

appTest(
  "front page: on the development demo, a browser that is no tablet gets both doors and is not enrolled",
  async (a) => {
    await loadDemo(a);
    const browser = new Tablet(a, { enrolled: false });
    const res = await browser.request("/");
    assert.equal(res.status, 200, "not sent on to the tablet");
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const html = await res.text();
    assert.match(html, /<a href="\/tablet" data-testid="door-tablet"[^>]*>.*Depot tablet/s);
    assert.match(html, /<a href="\/hq" data-testid="door-hq"[^>]*>.*HQ dashboard/s);
    assert.match(html, /data-testid="demo-note"/);
    assert.equal(browser.device, "", "no device cookie");
    assert.deepEqual(await devices(a), [], "nothing enrolled");

    // Choosing the tablet door on the demo enrols it, as before.
    assert.equal((await browser.request("/tablet")).status, 303);
    assert.equal((await browser.request("/tablet/sign-in")).status, 200);
    assert.notEqual(browser.device, "");
    assert.equal((await devices(a)).length, 1);
    // From then on `/` is the tablet.
    const again = await browser.request("/");
    assert.equal(again.status, 302);
    assert.equal(again.headers.get("location"), "/tablet");
  },
);

appTest("front page: an enrolled tablet goes straight to the tablet", async (a) => {
  const tablet = new Tablet(a);
  const res = await tablet.request("/");
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("location"), "/tablet");
});

appTest("front page: outside development, both doors and no demo note", async (a) => {
  const res = await new Tablet(a, { enrolled: false }).request("/");
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /Depot tablet/);
  assert.match(html, /HQ dashboard/);
  assert.doesNotMatch(html, /demo-note/);
}, { config: { appEnv: "stage" } });
