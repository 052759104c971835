/**
 * The open live streams of one mount (`/hq/live`, `/tablet/api/live`: routes/hq/live.ts), kept cheap so a
 * process holds hundreds (docs/live-streams.md): a stream is a ReadableStream fed synchronously, its state
 * a few fields. One timer per mount, not per stream, re-checks every open stream's session in ONE
 * statement (lib/sessions.ts checkPassiveSessions) every `config.liveSessionCheckMs`, ends the streams
 * whose session is over and writes the heartbeats; every event's bytes are encoded once and handed to every
 * stream (Deno copies a chunk when it writes it to the socket; tests/live_streams_test.ts proves each stream
 * gets them).
 */
import type { ChangeTopic } from "@/db/queries/changes.ts";
import type { Role } from "@/db/schema.ts";
import type { AppDeps } from "@/lib/deps.ts";
import { subscribeChanges } from "@/lib/live/feed.ts";
import { checkPassiveSessions, type PresentedSession } from "@/lib/sessions.ts";

/** A comment at least this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 25_000;
/**
 * Chunks a stream may hold unsent (its reader stopped reading, its connection stalled): past this it is
 * closed rather than let grow; the browser reconnects and refreshes.
 */
const MAX_QUEUED = 256;

const encoder = new TextEncoder();
const event = (name: string, data = "") => encoder.encode(`event: ${name}\ndata: ${data}\n\n`);
const READY = event("ready");
const END = event("end");
const HEARTBEAT = encoder.encode(": keep-alive\n\n");
const CHANGES = new Map<ChangeTopic | "all", Uint8Array>();
const changeEvent = (topic: ChangeTopic | "all") => {
  let bytes = CHANGES.get(topic);
  if (!bytes) CHANGES.set(topic, bytes = event("change", topic));
  return bytes;
};

interface OpenStream {
  session: PresentedSession;
  /** When the session ends if nothing else happens (ms since the epoch, on deps.clock). */
  endsAt: number;
  /** Date.now() of the last bytes written (the heartbeat's clock is the wall's, not deps.clock). */
  lastWrite: number;
  controller: ReadableStreamDefaultController<Uint8Array>;
  unsubscribe: () => Promise<void>;
  closed: boolean;
}

export class LiveStreams {
  readonly #deps: Pick<AppDeps, "db" | "clock" | "config">;
  readonly #roles: readonly Role[];
  readonly #open = new Set<OpenStream>();
  readonly #checkSessions: typeof checkPassiveSessions;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `checkSessions`: the round's check (checkPassiveSessions; tests count its calls through it). */
  constructor(
    deps: Pick<AppDeps, "db" | "clock" | "config">,
    roles: readonly Role[],
    checkSessions = checkPassiveSessions,
  ) {
    this.#deps = deps;
    this.#roles = roles;
    this.#checkSessions = checkSessions;
  }

  /** Streams open now (tests, docs/live-streams.md). */
  get size(): number {
    return this.#open.size;
  }

  /**
   * A new stream for `session` (already checked by the request's guard), its `ready` event queued. Resolves
   * once the change feed listens (nothing committed after is missed); rejects when the database cannot be
   * reached, before anything is answered.
   */
  async open(session: PresentedSession, endsAt: number): Promise<ReadableStream<Uint8Array>> {
    let stream: OpenStream | undefined;
    const early: (ChangeTopic | "all" | "closed")[] = [];
    const unsubscribe = await subscribeChanges(this.#deps.db, (change) => {
      if (!stream) early.push(change);
      else if (change === "closed") this.#close(stream);
      else this.#write(stream, changeEvent(change));
    });
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        stream = { session, endsAt, lastWrite: Date.now(), controller, unsubscribe, closed: false };
        this.#open.add(stream);
        controller.enqueue(READY);
        for (const change of early) {
          if (change === "closed") this.#close(stream);
          else this.#write(stream, changeEvent(change));
        }
        this.#schedule();
      },
      // The client went away (Deno cancels the body of a closed connection).
      cancel: () => {
        if (stream) this.#close(stream, { cancelled: true });
      },
    });
  }

  #write(stream: OpenStream, bytes: Uint8Array): void {
    if (stream.closed) return;
    if ((stream.controller.desiredSize ?? 0) < -MAX_QUEUED) return this.#close(stream);
    stream.controller.enqueue(bytes);
    stream.lastWrite = Date.now();
  }

  /** Ends a stream: `end` first when its session is over, then the body closes. */
  #close(stream: OpenStream, opts: { end?: boolean; cancelled?: boolean } = {}): void {
    if (stream.closed) return;
    stream.closed = true;
    if (opts.end && (stream.controller.desiredSize ?? 0) >= -MAX_QUEUED) stream.controller.enqueue(END);
    this.#open.delete(stream);
    if (!opts.cancelled) {
      try {
        stream.controller.close();
      } catch { /* already errored by the connection */ }
    }
    stream.unsubscribe().catch(() => {});
    if (this.#open.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** The next round of checks, while any stream is open; one at a time (a slow database never overlaps). */
  #schedule(): void {
    if (this.#timer !== undefined || this.#open.size === 0) return;
    const every = Math.min(this.#deps.config.liveSessionCheckMs, HEARTBEAT_MS);
    this.#timer = setTimeout(async () => {
      try {
        await this.#check(every);
      } finally {
        this.#timer = undefined;
        this.#schedule();
      }
    }, every);
  }

  /**
   * Every open stream's session, in one statement; a stream whose session is over (or whose user is no
   * longer of the mount's roles) gets `end`. The database not answering keeps what was known: a stream
   * then ends when its known idle time is up. Then the heartbeats due before the next round.
   */
  async #check(every: number): Promise<void> {
    const streams = [...this.#open];
    let verdicts: Awaited<ReturnType<typeof checkPassiveSessions>> | null = null;
    try {
      verdicts = await this.#checkSessions(this.#deps.db, this.#deps.clock, streams.map((s) => s.session));
    } catch { /* The next round asks again. */ }
    const now = this.#deps.clock.now().getTime();
    const wall = Date.now();
    for (const [i, stream] of streams.entries()) {
      if (stream.closed) continue;
      if (verdicts) {
        const still = verdicts[i];
        if (!still || !this.#roles.includes(still.user.role)) {
          this.#close(stream, { end: true });
          continue;
        }
        stream.endsAt = still.expiresAt.getTime();
      }
      if (stream.endsAt <= now) this.#close(stream, { end: true });
      else if (wall - stream.lastWrite + every > HEARTBEAT_MS) this.#write(stream, HEARTBEAT);
    }
  }
}
