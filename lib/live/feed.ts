/**
 * The change feed of the live dashboard (docs/dashboard.md "Live updates"): one LISTEN per database and
 * process, fanned out to every open `/hq/live` stream. The NOTIFYs come from the transactions that change
 * things (db/queries/changes.ts), so a change made by any instance on the same database reaches every
 * instance's streams when it commits. The listener opens with the first subscriber and closes with the last.
 */
import { type Db, listen } from "@/db/client.ts";
import { CHANGE_CHANNEL, CHANGE_TOPICS, type ChangeTopic } from "@/db/queries/changes.ts";

/**
 * A change; `all`: the listener reconnected and changes may have been missed (refresh everything); `closed`:
 * the process is stopping (stopChangeFeed), streams end so the server can shut down.
 */
export type ChangeListener = (change: ChangeTopic | "all" | "closed") => void;

interface Feed {
  listeners: Set<ChangeListener>;
  /** Resolves to the stop function once the LISTEN is in place. */
  started: Promise<() => Promise<void>>;
}

const feeds = new WeakMap<Db, Feed>();

/**
 * Calls `listener` on every change committed on `db` from now on; resolves once listening, to the function
 * that unsubscribes.
 */
export async function subscribeChanges(db: Db, listener: ChangeListener): Promise<() => Promise<void>> {
  let feed = feeds.get(db);
  if (!feed) {
    const listeners = new Set<ChangeListener>();
    const started = listen(db, CHANGE_CHANNEL, (payload) => {
      const topic = payload === null ? "all" : CHANGE_TOPICS.find((t) => t === payload);
      if (topic === undefined) return; // Not one of ours: nothing else notifies on this channel.
      for (const l of listeners) l(topic);
    });
    feed = { listeners, started };
    feeds.set(db, feed);
    // A failed start is not kept: the next subscriber tries again.
    started.catch(() => feeds.get(db) === feed && feeds.delete(db));
  }
  const current = feed;
  current.listeners.add(listener);
  try {
    await current.started;
  } catch (error) {
    current.listeners.delete(listener);
    throw error;
  }
  return async () => {
    current.listeners.delete(listener);
    if (current.listeners.size > 0 || feeds.get(db) !== current) return;
    feeds.delete(db);
    await (await current.started)();
  };
}

/**
 * Ends every stream on `db` (each listener hears `closed`) and stops listening: called before the server
 * shuts down, which would otherwise wait for the open streams (tasks/start.ts).
 */
export async function stopChangeFeed(db: Db): Promise<void> {
  const feed = feeds.get(db);
  if (!feed) return;
  feeds.delete(db);
  for (const l of feed.listeners) l("closed");
  feed.listeners.clear();
  await (await feed.started.catch(() => async () => {}))();
}
