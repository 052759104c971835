/**
 * The backup file's format: a plain POSIX (ustar) tar, written and read as a stream, so a backup can be
 * listed with `tar tf` and its parts taken out with any tar. Only what backups need: regular files, names
 * under 100 bytes, sizes under 8 GiB, each entry's data streamed (a photo is never held whole).
 */
import { writeAll } from "@/io/batched_writer.ts";

const BLOCK = 512;
const enc = new TextEncoder();
const dec = new TextDecoder();

function header(name: string, size: number, mtime: Date): Uint8Array {
  const bytes = enc.encode(name);
  if (bytes.length > 100) throw new Error(`tar: name too long: ${name}`);
  const h = new Uint8Array(BLOCK);
  const put = (at: number, s: string) => h.set(enc.encode(s), at);
  h.set(bytes, 0);
  put(100, "0000644\0");
  put(108, "0000000\0");
  put(116, "0000000\0");
  put(124, size.toString(8).padStart(11, "0") + "\0");
  put(136, Math.floor(mtime.getTime() / 1000).toString(8).padStart(11, "0") + "\0");
  put(148, "        "); // the checksum counts its own field as spaces
  put(156, "0");
  put(257, "ustar\0");
  put(263, "00");
  const sum = h.reduce((a, b) => a + b, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}

/** Appends entries to a file; `finish` writes the end-of-archive blocks. */
export class TarWriter {
  constructor(private readonly file: Deno.FsFile) {}

  /** One file of exactly `size` bytes from `body` (a stream or the bytes themselves). */
  async add(name: string, size: number, body: ReadableStream<Uint8Array> | Uint8Array, mtime = new Date()) {
    await writeAll(this.file, header(name, size, mtime));
    let written = 0;
    const chunks = body instanceof Uint8Array ? [body] : body;
    for await (const chunk of chunks) {
      written += chunk.length;
      if (written > size) throw new Error(`tar: ${name} is longer than ${size} bytes`);
      await writeAll(this.file, chunk);
    }
    if (written !== size) throw new Error(`tar: ${name} has ${written} bytes, not ${size}`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad) await writeAll(this.file, new Uint8Array(pad));
  }

  async finish(): Promise<void> {
    await writeAll(this.file, new Uint8Array(2 * BLOCK));
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** The entry's bytes; read before asking for the next entry (what is left unread is skipped). */
  body(): ReadableStream<Uint8Array>;
}

/** The entries of a tar file, in order; throws on a damaged header or a file that ends early. */
export async function* readTar(file: Deno.FsFile): AsyncGenerator<TarEntry> {
  let offset = 0;
  while (true) {
    await file.seek(offset, Deno.SeekMode.Start);
    const h = await readExactly(file, BLOCK);
    if (h.every((b) => b === 0)) return;
    const field = (at: number, len: number) =>
      dec.decode(h.subarray(at, at + len)).replace(/\0.*$/s, "").trim();
    const stored = parseInt(field(148, 8), 8);
    const sum = h.reduce((a, b, i) => a + (i >= 148 && i < 156 ? 32 : b), 0);
    if (field(257, 6) !== "ustar" || stored !== sum) throw new Error(`tar: damaged header at byte ${offset}`);
    const name = field(0, 100);
    const size = parseInt(field(124, 12), 8);
    const start = offset + BLOCK;
    yield {
      name,
      size,
      body: () => {
        let left = size;
        let positioned = false;
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (!positioned) {
              await file.seek(start, Deno.SeekMode.Start);
              positioned = true;
            }
            if (left === 0) return controller.close();
            const chunk = await readExactly(file, Math.min(left, 256 * 1024));
            left -= chunk.length;
            controller.enqueue(chunk);
          },
        }, { highWaterMark: 0 });
      },
    };
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
}

async function readExactly(file: Deno.FsFile, n: number): Promise<Uint8Array> {
  const buf = new Uint8Array(n);
  let filled = 0;
  while (filled < n) {
    const got = await file.read(buf.subarray(filled));
    if (got === null) throw new Error("tar: the file ends in the middle of an entry");
    filled += got;
  }
  return buf;
}
