/**
 * The live dashboard's event stream (`GET /hq/live`): changes committed in a submission, a
 * status change or an announcement retry reach an open stream; on a PostgreSQL server a change committed
 * through another pool (another instance) does too (LISTEN/NOTIFY); staff only; the stream is passive.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDb } from "@/db/client.ts";
import { stopChangeFeed } from "@/lib/live/feed.ts";
import { changeStatusByDispatcher } from "@/lib/part_status.ts";
import { appTest } from "@/testkit/app.ts";
import { buildTestApp } from "@/testkit/app.ts";
import { serverTest } from "@/testkit/db.ts";
import { makeClaim, makeUser } from "@/testkit/factories.ts";
import { anonymous, signedIn } from "@/tests/helpers/hq.ts";
import { confirmed, dropOffPayload, flowSetup } from "@/testkit/movements.ts";
import { makeDriver, Tablet } from "@/tests/helpers/tablet.ts";
import { IDLE_TIMEOUT_MS } from "@/lib/sessions.ts";
import type { TestApp } from "@/testkit/app.ts";

/** Reads server-sent events off a response body, one `{ event, data }` at a time. */
function sseReader(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<{ event: string; data: string }> {
      while (true) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) continue; // a keep-alive comment
          const field = (name: string) =>
            block.split("\n").find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? "";
          return { event: field("event"), data: field("data") };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

/** `promise`, or a failure naming `what` once `ms` have passed (a stream that never ends fails the test). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The stream's session checks every 50 ms here (5 s in service): an ended session closes it at once. */
const QUICK_CHECK = { config: { liveSessionCheckMs: 50 } };

/** Waits (bounded) for the stream's `end` event, then for the stream itself to close. */
async function ends(events: ReturnType<typeof sseReader>, what: string): Promise<void> {
  assert.deepEqual(await within(events.next(), 10_000, what), { event: "end", data: "" }, what);
  await assert.rejects(within(events.next(), 10_000, what), /the stream ended/);
}

async function openStream(open: () => Promise<Response>) {
  const res = await open();
  assert.equal(res.status, 200);
  const events = sseReader(res);
  assert.equal((await events.next()).event, "ready");
  return events;
}

const staffStream = async (a: TestApp, role: "dispatcher" | "admin" = "dispatcher") => {
  const d = await signedIn(a, role);
  return { d, events: await openStream(() => d.get("/hq/live", { accept: "text/event-stream" })) };
};

appTest("hq live: a submission, a status change and a retry each reach an open stream", async (a) => {
  const s = await flowSetup(a, {
    count: 1,
    status: "Arrived",
    stage: "direct_dropoff",
    registration: "LIVE 1",
  });
  const d = await signedIn(a, "dispatcher");
  const res = await d.get("/hq/live", { accept: "text/event-stream" });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
  const events = sseReader(res);
  try {
    assert.deepEqual(await events.next(), { event: "ready", data: "" });
    const sent = await a.call(dropOffPayload(s.user.email, s.claim.registration, s.shop, confirmed(s.pairs)));
    assert.equal(sent.result.status, "success", JSON.stringify(sent));
    assert.deepEqual(await events.next(), { event: "change", data: "movements" });

    const { parts } = await makeClaim(a.db, { parts: [{ status: "Ordered" }] });
    await changeStatusByDispatcher(a.db, a.clock, {
      partId: parts[0].id,
      from: "Ordered",
      to: "Arrived",
      userId: d.user.id,
    });
    assert.deepEqual(await events.next(), { event: "change", data: "parts" });

    const row = await a.db.selectFrom("announcements").select("id").orderBy("id").executeTakeFirstOrThrow();
    await a.db.updateTable("announcements").set({ state: "failed" }).where("id", "=", row.id).execute();
    assert.equal((await d.post(`/hq/announcements/${row.id}/retry`)).status, 303);
    assert.deepEqual(await events.next(), { event: "change", data: "announcements" });
  } finally {
    await events.cancel();
  }
});

appTest("hq live: staff only, and listening does not keep the session alive", async (a) => {
  const driver = await signedIn(a, "driver");
  assert.equal((await driver.get("/hq/live", { accept: "text/event-stream" })).status, 403);
  const nobody = await anonymous(a).get("/hq/live", { accept: "text/event-stream" });
  assert.notEqual(nobody.status, 200);
  await nobody.body?.cancel();

  const d = await signedIn(a, "dispatcher");
  const seen = async () =>
    (await a.db.selectFrom("sessions").select("last_seen_at").where("user_id", "=", d.user.id)
      .executeTakeFirstOrThrow()).last_seen_at.getTime();
  const before = await seen();
  a.clock.advance(5 * 60_000);
  const res = await d.get("/hq/live", { accept: "text/event-stream" });
  const events = sseReader(res);
  assert.equal((await events.next()).event, "ready");
  await events.cancel();
  const refresh = await d.get("/hq/parts", { "x-hq-live": "1" });
  assert.equal(refresh.status, 200);
  await refresh.body?.cancel();
  assert.equal(await seen(), before, "neither the stream nor a live refresh counts as activity");
  await d.get("/hq/parts");
  assert.ok(await seen() > before, "a page the user opens does");
});

appTest("hq live: a stopping server ends the open streams (its shutdown would wait for them)", async (a) => {
  const d = await signedIn(a, "dispatcher");
  const res = await d.get("/hq/live", { accept: "text/event-stream" });
  const events = sseReader(res);
  assert.equal((await events.next()).event, "ready");
  await stopChangeFeed(a.db);
  await assert.rejects(events.next(), /the stream ended/);
});

serverTest(
  "hq live: a change committed through another pool reaches the stream (LISTEN/NOTIFY)",
  async (t) => {
    const a = await buildTestApp(t);
    // Another instance on the same database: its own pool, its own connections.
    const other = openDb({ url: t.url!, poolSize: 2 });
    try {
      const d = await signedIn(a, "dispatcher");
      const events = sseReader(await d.get("/hq/live", { accept: "text/event-stream" }));
      try {
        assert.equal((await events.next()).event, "ready");
        const { parts } = await makeClaim(other, { parts: [{ status: "Ordered" }] });
        const user = await makeUser(other, { role: "dispatcher" });
        await changeStatusByDispatcher(other, a.clock, {
          partId: parts[0].id,
          from: "Ordered",
          to: "Arrived",
          userId: user.id,
        });
        assert.deepEqual(await events.next(), { event: "change", data: "parts" });
      } finally {
        await events.cancel();
      }
    } finally {
      await other.destroy();
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  },
);

serverTest(
  "hq live: the listener's connection killed, it reopens, says so, and changes flow again",
  async (t) => {
    const a = await buildTestApp(t);
    const other = openDb({ url: t.url!, poolSize: 2 });
    try {
      const d = await signedIn(a, "dispatcher");
      const events = sseReader(await d.get("/hq/live", { accept: "text/event-stream" }));
      try {
        assert.equal((await events.next()).event, "ready");
        const killed = await sql<{ pid: number }>`
        select pg_terminate_backend(pid) as pid from pg_stat_activity
        where datname = current_database() and query ilike 'listen %'`.execute(other);
        assert.equal(killed.rows.length, 1, "one listening connection per process");
        // Reopened after a second: pages are told to refresh, since changes may have been missed meanwhile.
        assert.deepEqual(await events.next(), { event: "change", data: "all" });
        const { parts } = await makeClaim(other, { parts: [{ status: "Ordered" }] });
        await changeStatusByDispatcher(other, a.clock, {
          partId: parts[0].id,
          from: "Ordered",
          to: "Arrived",
          userId: d.user.id,
        });
        assert.deepEqual(await events.next(), { event: "change", data: "parts" });
      } finally {
        await events.cancel();
      }
    } finally {
      await other.destroy();
      await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
    }
  },
);

appTest("hq live: signing out closes the stream", async (a) => {
  const { d, events } = await staffStream(a);
  try {
    assert.equal((await d.post("/hq/sign-out")).status, 303);
    await ends(events, "after sign-out");
  } finally {
    await events.cancel().catch(() => {});
  }
}, QUICK_CHECK);

appTest("hq live: the session timing out closes the stream", async (a) => {
  const { events } = await staffStream(a);
  try {
    a.clock.advance(IDLE_TIMEOUT_MS);
    await ends(events, "after the idle timeout");
  } finally {
    await events.cancel().catch(() => {});
  }
}, QUICK_CHECK);

appTest("hq live: deactivating the user closes the stream", async (a) => {
  const { d, events } = await staffStream(a);
  try {
    const admin = await signedIn(a, "admin");
    const res = await admin.post(`/hq/admin/users/${d.user.id}/active`, { active: "false" });
    assert.equal(res.status, 303, await res.text());
    await ends(events, "after deactivation");
  } finally {
    await events.cancel().catch(() => {});
  }
}, QUICK_CHECK);

appTest("hq live: revoking the tablet an admin signed in on closes the stream held there", async (a) => {
  const boss = await makeDriver(a, { role: "admin", name: "Ada Admin" });
  const tablet = new Tablet(a);
  await tablet.signIn(boss);
  const events = await openStream(() =>
    tablet.request("/hq/live", { headers: { accept: "text/event-stream" } })
  );
  try {
    const admin = await signedIn(a, "admin");
    assert.equal((await admin.post(`/hq/admin/tablets/${tablet.deviceId}/revoke`)).status, 303);
    await ends(events, "after revocation");
  } finally {
    await events.cancel().catch(() => {});
  }
}, QUICK_CHECK);

serverTest("hq live: a sign-out on another instance closes the stream too", async (t) => {
  const a = await buildTestApp(t, QUICK_CHECK.config);
  const other = openDb({ url: t.url!, poolSize: 2 });
  try {
    const { d, events } = await staffStream(a);
    try {
      // Another instance's sign-out deletes the row; this one learns it at its next check.
      await other.deleteFrom("sessions").where("user_id", "=", d.user.id).execute();
      await ends(events, "after a sign-out elsewhere");
    } finally {
      await events.cancel().catch(() => {});
    }
  } finally {
    await other.destroy();
    await Deno.remove(a.dataDir, { recursive: true }).catch(() => {});
  }
});
