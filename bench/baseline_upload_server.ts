/**
 * Baseline for the upload benchmark: a bare `Deno.serve` that streams the request body to a file and
 * answers. No multipart parsing, hashing, type check or database: the floor for moving bytes to disk.
 */
const dir = Deno.env.get("DATA_DIR")!;
await Deno.mkdir(dir, { recursive: true });

Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
  if (new URL(req.url).pathname === "/healthz") return new Response("ok");
  const file = await Deno.open(`${dir}/${crypto.randomUUID()}`, { write: true, create: true });
  await req.body!.pipeTo(file.writable);
  return Response.json({ code: 3000 });
});
