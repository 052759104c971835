/**
 * The repair shops' private links (docs/shop-page.md "The private link") on both databases: made once and
 * stable, derived (the database holds no token), replaced (the old one answers "replaced"), turned off (and
 * e-mails then get none), off without SHOP_LINK_SECRET, and two first links made at once give one.
 */
import assert from "node:assert/strict";
import { appTest, serverAppTest } from "@/testkit/app.ts";
import { makeRepairer, makeUser } from "@/testkit/factories.ts";
import { parseConfig } from "@/io/config.ts";
import { DomainError } from "@/lib/errors.ts";
import {
  lookUpShopLink,
  replaceShopLink,
  revokeShopLink,
  shopLinkState,
  shopPageUrl,
} from "@/lib/shops/link.ts";

const tokenOf = (url: string) => url.split("/shop/")[1];

appTest(
  "shop links: the first e-mail makes one; it is stable, opens its shop, and only its hash is kept",
  async (a) => {
    const shop = await makeRepairer(a.db, "North Smash Repairs");
    assert.deepEqual(await shopLinkState(a, shop.id), { state: "none" });
    const url = await shopPageUrl(a, shop.id);
    assert.ok(url?.startsWith(`${a.config.publicUrl}/shop/`));
    assert.equal(await shopPageUrl(a, shop.id), url, "the same link every time");
    const token = tokenOf(url!);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(await lookUpShopLink(a.db, a.config, token), {
      state: "current",
      repairerId: shop.id,
      repairerName: "North Smash Repairs",
    });
    const rows = await a.db.selectFrom("shop_links").selectAll().execute();
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(token), "the token itself is stored nowhere");
    // A token one character off, or not a token at all, opens nothing.
    const off = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    assert.deepEqual(await lookUpShopLink(a.db, a.config, off), { state: "unknown" });
    assert.deepEqual(await lookUpShopLink(a.db, a.config, "../../etc/passwd"), { state: "unknown" });
  },
);

appTest(
  "shop links: an admin replaces and turns off; old links say so; e-mails get none while off",
  async (a) => {
    const shop = await makeRepairer(a.db);
    const admin = await makeUser(a.db, { role: "admin" });
    const first = await shopPageUrl(a, shop.id);
    const second = await replaceShopLink(a, admin.id, shop.id);
    assert.notEqual(second, first);
    assert.deepEqual(await lookUpShopLink(a.db, a.config, tokenOf(first!)), { state: "replaced" });
    assert.equal((await lookUpShopLink(a.db, a.config, tokenOf(second))).state, "current");
    assert.equal(await shopPageUrl(a, shop.id), second);

    await revokeShopLink(a, admin.id, shop.id);
    assert.deepEqual(await lookUpShopLink(a.db, a.config, tokenOf(second)), { state: "revoked" });
    assert.equal(await shopPageUrl(a, shop.id), null, "no link in e-mails while turned off");
    assert.equal((await shopLinkState(a, shop.id)).state, "revoked");
    await assert.rejects(
      revokeShopLink(a, admin.id, shop.id),
      (e) => e instanceof DomainError && e.kind === "conflict",
    );

    const third = await replaceShopLink(a, admin.id, shop.id);
    assert.equal((await lookUpShopLink(a.db, a.config, tokenOf(third))).state, "current");
    const audit = await a.db.selectFrom("audit_log").select("action").orderBy("id").execute();
    assert.deepEqual(audit.map((r) => r.action), [
      "shop_link.rotate",
      "shop_link.revoke",
      "shop_link.rotate",
    ]);
  },
);

appTest("shop links: without SHOP_LINK_SECRET there are none", async (a) => {
  const shop = await makeRepairer(a.db);
  const admin = await makeUser(a.db, { role: "admin" });
  const off = { ...a, config: { ...a.config, shopLinkSecret: undefined } };
  assert.equal(await shopPageUrl(off, shop.id), null);
  assert.deepEqual(await shopLinkState(off, shop.id), { state: "off" });
  await assert.rejects(replaceShopLink(off, admin.id, shop.id), (e) => e instanceof DomainError);
  assert.equal((await a.db.selectFrom("shop_links").select("token_hash").execute()).length, 0);
});

Deno.test("shop links: the setting is at least 32 characters; unset outside development means off", () => {
  assert.throws(() => parseConfig({ SHOP_LINK_SECRET: "short" }), /SHOP_LINK_SECRET must be at least 32/);
  const production = parseConfig({ APP_ENV: "production", PUBLIC_KEY: "a-production-key-long-enough" });
  assert.equal(production.shopLinkSecret, undefined);
  assert.ok(parseConfig({}).shopLinkSecret, "development has one, so the demo's shops have pages");
});

serverAppTest("shop links: two e-mails making a shop's first link at once get the same one", async (a) => {
  const shop = await makeRepairer(a.db);
  const urls = await Promise.all(Array.from({ length: 6 }, () => shopPageUrl(a, shop.id)));
  assert.equal(new Set(urls).size, 1);
  assert.equal((await a.db.selectFrom("shop_links").select("token_hash").execute()).length, 1);
}, { poolSize: 6 });
