/**
 * Many live streams on one process (lib/live/streams.ts, docs/live-streams.md): every open stream's session
 * re-checked in one statement a round, whatever their number; a change reaching every stream; a session
 * ended closing all of its streams and none of the others'. The route's own guarantees (`ready`, `end` on
 * sign-out, idle time, deactivation, revocation, another instance) are tests/hq_live_test.ts's.
 */
import assert from "node:assert/strict";
import type { Db } from "@/db/client.ts";
import { notifyChange } from "@/db/queries/changes.ts";
import { FakeClock } from "@/io/clock.ts";
import { testConfig } from "@/io/config.ts";
import { hashToken } from "@/io/tokens.ts";
import { stopChangeFeed } from "@/lib/live/feed.ts";
import { LiveStreams } from "@/lib/live/streams.ts";
import { checkPassiveSessions, type PresentedSession } from "@/lib/sessions.ts";
import { makeUser } from "@/testkit/factories.ts";
import { dbTest } from "@/testkit/db.ts";
import { countingDb } from "@/testkit/round_trips.ts";
import { makeSession } from "@/tests/helpers/hq.ts";
import { waitFor } from "@/tests/helpers/races.ts";

const STREAMS = 24;
const CHECK_MS = 30;

/** Reads a stream's events (`ready`, `change:<topic>`, `end`) as they come; `closed` once its body ends. */
function events(body: ReadableStream<Uint8Array>) {
  const seen: string[] = [];
  const state = { seen, closed: false };
  (async () => {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of body) {
      text += decoder.decode(chunk, { stream: true });
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        if (block.startsWith(":")) continue;
        const [event, data] = block.split("\n").map((l) => l.slice(l.indexOf(":") + 1).trim());
        seen.push(data ? `${event}:${data}` : event);
      }
    }
    state.closed = true;
  })();
  return state;
}

async function dispatchers(db: Db, clock: FakeClock, n: number): Promise<PresentedSession[]> {
  const user = await makeUser(db, { role: "dispatcher" });
  const sessions: PresentedSession[] = [];
  for (let i = 0; i < n; i++) sessions.push({ token: (await makeSession(db, user.id, clock.now())).token });
  return sessions;
}

dbTest(
  "live streams: one session check a round for every open stream, and a change reaches each",
  async (t) => {
    const clock = new FakeClock();
    const rounds: number[] = [];
    const streams = new LiveStreams(
      { db: t.db, clock, config: testConfig({ liveSessionCheckMs: CHECK_MS }) },
      ["dispatcher", "admin"],
      (db, c, presented) => {
        rounds.push(presented.length);
        return checkPassiveSessions(db, c, presented);
      },
    );
    const sessions = await dispatchers(t.db, clock, STREAMS);
    const open = await Promise.all(
      sessions.map(async (s) => events(await streams.open(s, clock.now().getTime() + 60_000))),
    );
    try {
      await waitFor(() => open.every((o) => o.seen[0] === "ready"), 10_000, "every stream ready");
      const before = rounds.length;
      await waitFor(() => rounds.length >= before + 3, 10_000, "three rounds of checks");
      assert.deepEqual(
        rounds.slice(before),
        rounds.slice(before).map(() => STREAMS),
        "each round: all of them",
      );
      await notifyChange(t.db, "parts");
      await waitFor(() => open.every((o) => o.seen.includes("change:parts")), 10_000, "the change on each");
      assert.equal(streams.size, STREAMS);
    } finally {
      await stopChangeFeed(t.db);
    }
    await waitFor(() => open.every((o) => o.closed), 10_000, "a stopping server ends them all");
    assert.equal(streams.size, 0);
  },
);

dbTest("live streams: the check is one statement for many sessions, judged as one by one", async (t) => {
  const clock = new FakeClock();
  const sessions = await dispatchers(t.db, clock, STREAMS);
  const driver = await makeUser(t.db, { role: "driver", active: false });
  const inactive = { token: (await makeSession(t.db, driver.id, clock.now())).token };
  const unknown = { token: "no-such-session" };
  const counting = countingDb(t.db);
  const verdicts = await checkPassiveSessions(counting.db, clock, [
    ...sessions,
    inactive,
    unknown,
    sessions[0],
  ]);
  assert.equal(counting.counter.count, 2, "one select for all, one delete for the deactivated user's");
  assert.equal(verdicts.filter((v) => v !== null).length, STREAMS + 1);
  assert.equal(verdicts[STREAMS], null);
  assert.equal(verdicts[STREAMS + 1], null);
  assert.equal(verdicts[0]!.expiresAt.getTime(), verdicts[STREAMS + 2]!.expiresAt.getTime());
  const left = await t.db.selectFrom("sessions").select("user_id").where("user_id", "=", driver.id).execute();
  assert.deepEqual(left, [], "the deactivated user's session is deleted, as resolveSession does");
});

dbTest("live streams: a session ended closes every stream of it, and only those", async (t) => {
  const clock = new FakeClock();
  const streams = new LiveStreams(
    { db: t.db, clock, config: testConfig({ liveSessionCheckMs: CHECK_MS }) },
    ["dispatcher", "admin"],
  );
  const [kept, ended] = await dispatchers(t.db, clock, 2);
  const endsAt = clock.now().getTime() + 60_000;
  const ofKept = await Promise.all([1, 2, 3].map(async () => events(await streams.open(kept, endsAt))));
  const ofEnded = await Promise.all([1, 2, 3].map(async () => events(await streams.open(ended, endsAt))));
  try {
    await waitFor(() => [...ofKept, ...ofEnded].every((o) => o.seen[0] === "ready"), 10_000, "ready");
    await t.db.deleteFrom("sessions").where("token_hash", "=", hashToken(ended.token)).execute();
    await waitFor(() => ofEnded.every((o) => o.closed), 10_000, "the ended session's streams close");
    for (const o of ofEnded) assert.deepEqual(o.seen, ["ready", "end"]);
    assert.ok(ofKept.every((o) => !o.closed), "the other session's streams stay open");
    assert.equal(streams.size, 3);
  } finally {
    await stopChangeFeed(t.db);
  }
});

dbTest("live streams: a client that goes away leaves nothing behind", async (t) => {
  const clock = new FakeClock();
  const streams = new LiveStreams(
    { db: t.db, clock, config: testConfig({ liveSessionCheckMs: CHECK_MS }) },
    ["dispatcher", "admin"],
  );
  const sessions = await dispatchers(t.db, clock, 5);
  const bodies = await Promise.all(sessions.map((s) => streams.open(s, clock.now().getTime() + 60_000)));
  assert.equal(streams.size, 5);
  for (const body of bodies) await body.cancel();
  assert.equal(streams.size, 0, "each cancelled stream is dropped, with its subscription and the timer");
});
