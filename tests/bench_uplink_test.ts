/**
 * bench/cdp_network.ts `serialRoundTrips`: how the uplink bench (docs/uplink.md) counts the round trips of a
 * delivery from the browser's requests: requests in flight together share one, one after another count one
 * each.
 */
import assert from "node:assert/strict";
import { type SentRequest, serialRoundTrips } from "@/bench/cdp_network.ts";

const request = (start: number, end: number): SentRequest => ({
  url: "http://127.0.0.1/x",
  method: "GET",
  start,
  end,
  bodyBytes: 0,
  fromCache: false,
});

Deno.test("uplink bench: uploads one after another count one round trip each", () => {
  assert.equal(serialRoundTrips([request(0, 1), request(1, 2), request(2.5, 3)]), 3);
});

Deno.test("uplink bench: requests in flight together (a receipt's thumbnails) share one", () => {
  assert.equal(serialRoundTrips([request(0, 1), request(1.2, 2), request(1.3, 2.5), request(1.4, 1.6)]), 2);
  assert.equal(serialRoundTrips([]), 0);
});
