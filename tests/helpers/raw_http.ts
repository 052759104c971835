/**
 * HTTP/1.1 by hand over a TCP socket, for what fetch cannot do: send headers or a body a byte at a time,
 * stream a body of hundreds of MB while watching for an early answer, and see when the server drops the
 * connection.
 */

const enc = new TextEncoder();

export interface RawAnswer {
  /** The status of the answer, or null when the connection ended without one. */
  status: number | null;
  /** The answer's head and as much of its body as arrived. */
  text: string;
}

export class RawConnection {
  #conn: Deno.Conn;
  #received = "";
  #ended = false;
  /** Resolves once the server closed (or reset) the connection; never rejects. */
  readonly closed: Promise<void>;
  /** Resolves once an answer's status line arrived or the connection ended; never rejects. */
  readonly answered: Promise<void>;
  #answered!: () => void;

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
    this.answered = new Promise((resolve) => this.#answered = resolve);
    this.closed = this.#read();
  }

  /** `http://` or `https://` (then trusting `caCerts`, PEM). */
  static async open(url: string, caCerts?: string[]): Promise<RawConnection> {
    const { protocol, hostname, port } = new URL(url);
    const target = { hostname, port: Number(port) };
    return new RawConnection(
      protocol === "https:" ? await Deno.connectTls({ ...target, caCerts }) : await Deno.connect(target),
    );
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    const buf = new Uint8Array(16 * 1024);
    try {
      while (true) {
        const n = await this.#conn.read(buf);
        if (n === null) break;
        this.#received += decoder.decode(buf.subarray(0, n), { stream: true });
        if (this.answer().status !== null) this.#answered();
      }
    } catch { /* reset or closed by us */ }
    this.#ended = true;
    this.#answered();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The answer so far: its status once the status line arrived. */
  answer(): RawAnswer {
    const match = /^HTTP\/1\.1 (\d{3})/.exec(this.#received);
    return { status: match ? Number(match[1]) : null, text: this.#received };
  }

  /** Writes `data`; false when the server no longer takes it (closed or reset). */
  async write(data: string | Uint8Array): Promise<boolean> {
    const bytes = typeof data === "string" ? enc.encode(data) : data;
    try {
      let at = 0;
      while (at < bytes.length) at += await this.#conn.write(bytes.subarray(at));
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
}

/** The request line and headers, ending with the blank line. */
export function requestHead(method: string, path: string, headers: Record<string, string>): string {
  const lines = [`${method} ${path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** One chunk of a `Transfer-Encoding: chunked` body (an empty one ends the body). */
export function chunk(bytes: Uint8Array): Uint8Array {
  const head = enc.encode(`${bytes.length.toString(16)}\r\n`);
  const out = new Uint8Array(head.length + bytes.length + 2);
  out.set(head);
  out.set(bytes, head.length);
  out.set(enc.encode("\r\n"), head.length + bytes.length);
  return out;
}

/**
 * Streams `body` as a chunked request body, stopping as soon as the server answers or stops reading;
 * returns the answer (waiting up to `answerTimeoutMs` for it once everything was sent) and how many body
 * bytes were written.
 */
export async function streamRequest(
  url: string,
  head: string,
  body: ReadableStream<Uint8Array>,
  answerTimeoutMs = 60_000,
): Promise<RawAnswer & { sent: number }> {
  const conn = await RawConnection.open(url);
  let sent = 0;
  try {
    await conn.write(head);
    const reader = body.getReader();
    // A write blocks while the server reads nothing; an answer or a closed connection ends the wait.
    const stop = conn.answered.then(() => "stop" as const);
    while (conn.answer().status === null && !conn.ended) {
      const next = await reader.read();
      if (next.done) {
        await conn.write(chunk(new Uint8Array(0)));
        break;
      }
      const wrote = await Promise.race([conn.write(chunk(next.value)), stop]);
      if (wrote !== true) break;
      sent += next.value.length;
    }
    await reader.cancel().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([conn.answered, new Promise((r) => timer = setTimeout(r, answerTimeoutMs))]);
    clearTimeout(timer);
    return { ...conn.answer(), sent };
  } finally {
    conn.close();
  }
}
