/**
 * The real service as a child process for fault tests (a SIGKILL in the middle of a load, database
 * connections terminated under it): `deno task start` (tasks/start.ts) with the environment a test gives, started the
 * way bench/process.ts starts its servers (free port, wait for /healthz), but killable with any signal,
 * with its exit observable and its stderr kept for the failure message.
 *
 * Also `callHandler`: one POST to the mobile handler with a hard per-request timeout, classified so a
 * test can say "every answer was clean" (the D8 envelope or the 503 JSON answer, nothing else).
 */

const MAIN = new URL("../../tasks/start.ts", import.meta.url).pathname;
const TAIL_KEEP = 64 * 1024;

export interface ServiceProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  pid: number;
  publicKey: string;
  /** Resolves when the process ended, however it ended. */
  exited: Promise<Deno.CommandStatus>;
  /** The last 64 KiB the service wrote to stderr. */
  stderr(): string;
  /** The last 64 KiB the service wrote to stdout (its info logs: tests/logs_test.ts). */
  stdout(): string;
  /** Sends `signal` (default SIGKILL) and waits for the process to end; safe once it has ended. */
  kill(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The last 64 KiB of a stream, read to its end in the background. */
function keepTail(stream: ReadableStream<Uint8Array>): { readonly text: string; done: Promise<void> } {
  const decoder = new TextDecoder();
  const kept = { text: "", done: Promise.resolve() };
  kept.done = stream.pipeTo(
    new WritableStream({
      write(chunk) {
        kept.text = (kept.text + decoder.decode(chunk, { stream: true })).slice(-TAIL_KEEP);
      },
    }),
  ).catch(() => {});
  return kept;
}

/**
 * Starts the service (tasks/start.ts) with `env` (PORT is chosen here; DATABASE_URL, DATA_DIR, … come from the test) and waits
 * until /healthz answers 200. Throws with the service's stderr when it exits or does not come up in time.
 */
export async function startService(
  env: Record<string, string>,
  opts: { readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const port = freePort();
  const publicKey = env.PUBLIC_KEY ?? "fault-test-public-key"; // 16+ characters: APP_ENV=stage insists
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { APP_ENV: "development", RATE_LIMITS: "off", ...env, PUBLIC_KEY: publicKey, PORT: String(port) },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Read both all along, so the child never blocks on a full pipe and a failure can show them.
  const err = keepTail(child.stderr);
  const out = keepTail(child.stdout);
  const exited = child.status.then(async (s) => {
    await Promise.all([err.done, out.done]);
    return s;
  });
  let ended = false;
  exited.then(() => ended = true);
  const service: ServiceProcess = {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    publicKey,
    exited,
    stderr: () => err.text,
    stdout: () => out.text,
    async kill(signal: Deno.Signal = "SIGKILL") {
      if (!ended) {
        try {
          child.kill(signal);
        } catch { /* already gone */ }
      }
      return await exited;
    },
  };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 120_000);
  while (true) {
    if (ended) throw new Error(`the service exited while starting:\n${err.text}`);
    try {
      const res = await fetch(`${service.url}/healthz`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return service;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await service.kill();
      throw new Error(`the service did not answer /healthz within the time:\n${err.text}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type HandlerOutcome =
  /** HTTP 200, `{result:{status:"success",data},code:3000}`. */
  | { kind: "success"; data: Record<string, unknown> }
  /** HTTP 200, `{result:{status:"failure",text},code:3000}` (D8). */
  | { kind: "failure"; text: string }
  /** HTTP 503 `{"code":5030,"message":…}`: the database was unavailable, answered cleanly. */
  | { kind: "unavailable"; message: string }
  /** No answer: connection refused or reset (the process died). */
  | { kind: "network"; error: string }
  /** No answer within the per-request timeout. */
  | { kind: "timeout" }
  /** Anything else: a wrong status, not JSON, a body of another shape, a stack trace. */
  | { kind: "unclean"; status: number; body: string };

/** POSTs `{ payload }` to the service's handler, waiting at most `timeoutMs`; never throws. */
export async function callHandler(
  service: Pick<ServiceProcess, "url" | "publicKey">,
  payload: unknown,
  timeoutMs = 10_000,
): Promise<HandlerOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    let res: Response;
    try {
      res = await fetch(`${service.url}/api/handler?publickey=${encodeURIComponent(service.publicKey)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ payload }),
        signal: controller.signal,
      });
    } catch (error) {
      return controller.signal.aborted ? { kind: "timeout" } : { kind: "network", error: String(error) };
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      return controller.signal.aborted ? { kind: "timeout" } : { kind: "network", error: String(error) };
    }
    return classify(res.status, res.headers.get("content-type") ?? "", text);
  } finally {
    clearTimeout(timer);
  }
}

function classify(status: number, contentType: string, text: string): HandlerOutcome {
  const unclean = { kind: "unclean", status, body: text.slice(0, 2000) } as const;
  if (!contentType.startsWith("application/json")) return unclean;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return unclean;
  }
  if (typeof body !== "object" || body === null) return unclean;
  const b = body as Record<string, unknown>;
  const result = b.result as Record<string, unknown> | undefined;
  const keys = Object.keys(b).sort().join(",");
  if (status === 200 && b.code === 3000 && keys === "code,result" && result) {
    if (result.status === "success" && typeof result.data === "object" && result.data !== null) {
      return { kind: "success", data: result.data as Record<string, unknown> };
    }
    if (result.status === "failure" && typeof result.text === "string") {
      return { kind: "failure", text: result.text };
    }
  }
  // D3/createApp: an unexpected fault is answered without internals, with a reference only.
  if (
    status === 503 && b.code === 5030 && keys === "code,message" && typeof b.message === "string" &&
    /^Service temporarily unavailable\. Try again \(ref [0-9a-f-]{36}\)\.$/.test(b.message)
  ) {
    return { kind: "unavailable", message: b.message };
  }
  return unclean;
}
