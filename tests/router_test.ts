/**
 * The app's router (docs/performance.md "Search path"). Hono's SmartRouter keeps the first router that
 * takes every route of the app: RegExpRouter, one regular expression a method, or else the trie router, whose lookup
 * cost ~3 µs of each search. One pattern RegExpRouter cannot take (as `/:job{deliver|collect|return}` was,
 * beside the tablet's other routes) puts every request of the app on the trie, silently.
 */
import assert from "node:assert/strict";
import { testConfig } from "@/io/config.ts";
import { createApp } from "@/main.ts";

Deno.test("router: every route of the app fits Hono's RegExpRouter", async () => {
  // No route here reaches the database: the unknown path is answered by the app's own 404.
  const app = createApp({
    config: testConfig(),
    db: undefined as never,
    clock: undefined as never,
    storage: undefined as never,
  });
  assert.equal((await app.request("/no-such-page")).status, 404);
  // SmartRouter names itself after the router it chose on its first match.
  assert.equal(app.router.name, "SmartRouter + RegExpRouter");
});
