/**
 * The start command (`deno task start` = `deno run -A tasks/start.ts`) as a real process on the embedded database:
 * migrate, demo data in development, serve; a restart keeps the data and clears what the previous run left
 * in its own staging folder; a second server on the same DATA_DIR refuses.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDb } from "@/db/client.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const PUBLIC_KEY = "start-test-key";

interface Server {
  process: Deno.ChildProcess;
  port: number;
  output(): string;
  /** Resolves with the exit status once the process ended. */
  exited: Promise<Deno.CommandStatus>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function startServer(dataDir: string, env: Record<string, string> = {}, port = freePort()): Server {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "tasks/start.ts"],
    cwd: ROOT,
    env: {
      DATA_DIR: dataDir,
      PORT: String(port),
      APP_ENV: "development",
      PUBLIC_KEY,
      DATABASE_URL: "",
      CHAT_WEBHOOK_PARTS_MOVEMENT: "",
      CHAT_WEBHOOK_NEW_REPAIR_JOBS: "",
      NO_COLOR: "1",
      HOST: "",
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([collect(process.stdout), collect(process.stderr)]);
  const exited = process.status.then(async (status) => {
    await drained;
    return status;
  });
  return { process, port, output: () => text, exited };
}

/** An IPv4 address of this machine other than loopback, if it has one (the network a tablet would use). */
function networkAddress(): string | undefined {
  return Deno.networkInterfaces().find((i) => i.family === "IPv4" && !i.address.startsWith("127."))?.address;
}

/** Whether anything answers HTTP at `url` (a refused connection: no). */
async function answers(url: string): Promise<boolean> {
  try {
    await (await fetch(url)).body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** Polls /healthz until 200; fails early if the process ends. */
async function waitHealthy(server: Server, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  server.exited.then(() => ended = true);
  while (Date.now() < deadline) {
    if (ended) assert.fail(`the server stopped before it was healthy:\n${server.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
      const body = await res.text();
      if (res.status === 200) return JSON.parse(body);
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`not healthy after ${timeoutMs} ms:\n${server.output()}`);
}

async function stopServer(server: Server) {
  try {
    server.process.kill("SIGTERM");
  } catch {
    // Already ended.
  }
  const timer = setTimeout(() => {
    try {
      server.process.kill("SIGKILL");
    } catch {
      // Already ended.
    }
  }, 20_000);
  try {
    return await server.exited;
  } finally {
    clearTimeout(timer);
  }
}

async function post(server: Server, payload: unknown) {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/handler?publickey=${PUBLIC_KEY}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ payload }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  return await res.json();
}

const search = (rego: string, movement_type: "direct" | "reverse") => ({
  event_type: "Parts_search_details",
  user_email: "dana@depot.example",
  details: { rego, movement_type },
});

function assertDirectAbc123(body: Record<string, unknown>) {
  // deno-lint-ignore no-explicit-any
  const { result, code } = body as any;
  assert.equal(code, 3000);
  assert.equal(result.status, "success", result.text);
  const data = result.data;
  assert.equal(typeof data.repairer, "number");
  assert.equal(data.form_name, "pickup");
  assert.equal(data.movement_type, "direct");
  assert.equal(data.rego, "ABC123");
  assert.deepEqual(
    data.parts_list.map((
      p: Record<string, unknown>,
    ) => [typeof p.parts_order_id, p.description, p.order_status]),
    [["number", "Front bumper cover", "Arrived"], ["number", "Left headlamp assembly", "Arrived"]],
  );
}

function assertReverseXyz789(body: Record<string, unknown>) {
  // deno-lint-ignore no-explicit-any
  const { result, code } = body as any;
  assert.equal(code, 3000);
  assert.equal(result.status, "success", result.text);
  const data = result.data;
  assert.equal(data.form_name, "pickup");
  assert.equal(data.movement_type, "reverse");
  assert.equal(data.rego, "XYZ 789");
  assert.equal(data.stage, "pickup");
  assert.deepEqual(
    data.parts_list.map((p: Record<string, unknown>) => [typeof p.parts_order_id, p.description]),
    [["number", "Right door mirror"], ["number", "Grille emblem"]],
  );
  assert.ok(!("hq_location" in data) && !("parts_movement_id" in data));
}

Deno.test({
  name: "start: serves the demo data over HTTP, keeps the data across a restart without reloading the demo " +
    "(clearing its own staging leftovers), " +
    "and a second server on the same DATA_DIR refuses",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "pm-start-" });
    const servers: Server[] = [];
    try {
      // First start: empty data folder → migrations, demo data, serving.
      const first = startServer(dataDir);
      servers.push(first);
      assert.deepEqual(await waitHealthy(first), { status: "ok" });
      assert.match(first.output(), /Demo data loaded\. Sign in/);
      // A development start is on loopback only (docs/configuration.md HOST), says so, and localhost works.
      assert.match(
        first.output(),
        /listening on 127\.0\.0\.1:\d+, this machine only \(http:\/\/localhost:\d+\)/,
      );
      assert.ok(await answers(`http://localhost:${first.port}/healthz`), "http://localhost serves");
      const lan = networkAddress();
      if (lan) assert.ok(!(await answers(`http://${lan}:${first.port}/healthz`)), `served on ${lan}`);
      else console.log("start: no non-loopback address here; the network side of HOST not checked");
      // The banner's dashboard passwords sign in (docs/sign-in.md "Dashboard passwords").
      const staff = [["priya@depot.example", "dispatcher-demo-2468"], [
        "admin@depot.example",
        "admin-demo-9999",
      ]];
      for (const [email, password] of staff) {
        assert.ok(first.output().includes(`${email} / ${password}`), first.output());
        const res = await fetch(`http://127.0.0.1:${first.port}/hq/sign-in`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ email, password }),
          redirect: "manual",
        });
        await res.body?.cancel();
        assert.equal(res.status, 303, email);
      }
      assertDirectAbc123(await post(first, search("ABC123", "direct")));
      assertReverseXyz789(await post(first, search("XYZ 789", "reverse")));
      const stopped = await stopServer(first);
      assert.equal(stopped.code, 0, first.output());

      // Between runs, change what the demo would set: a reload would put these parts back to Arrived.
      const db = openDb({ dir: join(dataDir, "db") });
      try {
        const claim = await db.selectFrom("claims").select("id").where("claim_number", "=", "CLM-1001")
          .executeTakeFirstOrThrow();
        await db.updateTable("parts_orders").set({ status: "Ordered" }).where("claim_id", "=", claim.id)
          .execute();
      } finally {
        await db.destroy();
      }

      // What a killed run left mid-upload in its own staging folder (docs/operations.md "Disk space"), and a
      // file of another instance's folder, which this instance must not touch.
      const port = freePort();
      const tmp = join(dataDir, "photos", "tmp");
      const own = join(tmp, `instance-${Deno.hostname().replace(/[^A-Za-z0-9.-]/g, "_")}-${port}`);
      const others = join(tmp, "instance-elsewhere-8001");
      for (const dir of [own, others]) await Deno.mkdir(dir, { recursive: true });
      await Deno.writeFile(join(own, "killed-upload"), new Uint8Array(1000));
      await Deno.writeFile(join(others, "live-upload"), new Uint8Array(1000));

      // Restart on the same folder: the data is there, the demo is not loaded again. HOST opens it to the
      // network.
      const second = startServer(dataDir, { HOST: "0.0.0.0" }, port);
      servers.push(second);
      assert.deepEqual(await waitHealthy(second), { status: "ok" });
      const cleared = Date.now() + 30_000;
      while (await Deno.stat(join(own, "killed-upload")).then(() => true, () => false)) {
        assert.ok(
          Date.now() < cleared,
          `the previous run's staging file is still there:\n${second.output()}`,
        );
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(await Deno.stat(join(others, "live-upload")), "another instance's upload is left alone");
      assert.doesNotMatch(second.output(), /Demo data loaded/);
      assert.match(second.output(), /listening on 0\.0\.0\.0:\d+, every interface/);
      if (lan) {
        assert.ok(await answers(`http://${lan}:${second.port}/healthz`), `not served on ${lan} with HOST`);
      }
      assert.deepEqual(await post(second, search("ABC123", "direct")), {
        result: { status: "failure", text: "No parts ready for delivery to a repair shop" },
        code: 3000,
      });
      assertReverseXyz789(await post(second, search("XYZ 789", "reverse")));

      // A second server on the same embedded database refuses with the lock message.
      const third = startServer(dataDir);
      servers.push(third);
      const status = await third.exited;
      assert.equal(status.code, 1, third.output());
      assert.ok(
        third.output().includes(
          `The embedded database in ${join(dataDir, "db")} is in use by another process`,
        ),
        third.output(),
      );
      assert.match(third.output(), /Stop it before starting the server/);
      // The running server is unaffected.
      assertReverseXyz789(await post(second, search("XYZ 789", "reverse")));
    } finally {
      for (const server of servers) await stopServer(server);
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
