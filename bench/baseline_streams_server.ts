/**
 * Baseline for the live streams' memory (bench/dashboard_streams.ts): a bare `Deno.serve` answering
 * `GET /hq/live` with a never-ending event stream (a ReadableStream holding its `ready` event), and nothing
 * else: no session, no database, no framework. What an open streaming response costs Deno itself, the floor
 * under the service's figure. Reads PORT; run only by tasks/bench.ts.
 */
const ready = new TextEncoder().encode("event: ready\ndata: \n\n");

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, (req) => {
  if (new URL(req.url).pathname !== "/hq/live") return new Response("ok");
  return new Response(new ReadableStream({ start: (c) => c.enqueue(ready) }), {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
});
