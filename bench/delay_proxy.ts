/**
 * A loopback TCP proxy that delays every chunk by a fixed time in each direction: put between
 * the service and the PostgreSQL server, it shows what each database round trip costs over a real network
 * (a managed database 2–5 ms away). Chunks keep their order; the delay is added per chunk, not per byte, so
 * a round trip costs twice `delayMs` however much it carries.
 */

/**
 * Copies `from` to `to`, each chunk written when `dueOf` says (a time of `performance.now()`, given the
 * chunk's size), in order; the end of `from` closes `to` for writing.
 */
async function pacedPipe(
  from: Deno.Conn,
  to: Deno.Conn,
  dueOf: (bytes: number) => number,
): Promise<void> {
  const queue: { due: number; chunk: Uint8Array }[] = [];
  let wake: () => void = () => {};
  let done = false;
  const writer = (async () => {
    while (true) {
      const next = queue.shift();
      if (!next) {
        if (done) return;
        await new Promise<void>((r) => wake = r);
        continue;
      }
      const wait = next.due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      let written = 0;
      while (written < next.chunk.length) written += await to.write(next.chunk.subarray(written));
    }
  })();
  try {
    for await (const chunk of from.readable) {
      queue.push({ due: dueOf(chunk.length), chunk });
      wake();
    }
  } finally {
    done = true;
    wake();
    await writer.catch(() => {});
    try {
      await to.closeWrite();
    } catch { /* already closed */ }
  }
}

export interface DelayProxy {
  port: number;
  close(): void;
}

/** When a chunk of `bytes` read now is written on (a time of `performance.now()`). */
export type DueOf = (bytes: number) => number;

/**
 * Listens on a free loopback port and forwards each connection to `target`, what the client sends written
 * when `up` says and what the server answers when `down` says (pacedPipe).
 */
export function startPacedProxy(
  target: { hostname: string; port: number },
  up: DueOf,
  down: DueOf,
): DelayProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  (async () => {
    for await (const client of listener) {
      const server = await Deno.connect(target).catch(() => null);
      if (!server) {
        client.close();
        continue;
      }
      conns.add(client).add(server);
      const closeBoth = () => {
        for (const c of [client, server]) {
          conns.delete(c);
          try {
            c.close();
          } catch { /* already closed */ }
        }
      };
      Promise.allSettled([pacedPipe(client, server, up), pacedPipe(server, client, down)]).then(closeBoth);
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
    },
  };
}

/** Listens on a free loopback port and forwards each connection to `target` with `delayMs` each way. */
export function startDelayProxy(target: { hostname: string; port: number }, delayMs: number): DelayProxy {
  const later = () => performance.now() + delayMs;
  return startPacedProxy(target, later, later);
}
