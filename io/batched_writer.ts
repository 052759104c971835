/**
 * The write side of photo storage: a stream's bytes into a file in large batches, hashed on the way, with
 * reused buffers. Kept beside io/photo_storage.ts because the upload bench measured it (about 2x the
 * throughput of one write and one hash update per network chunk, memory growth under 40 MB).
 */

/** Chunks smaller than this are gathered into a batch; larger ones are written as they are. */
const DIRECT_WRITE_BYTES = 64 * 1024;
/** Size of a batch of small chunks (one write and one hash update each). */
const BATCH_BYTES = 256 * 1024;
/** Batch buffers of finished uploads, reused by the next ones (at most 4 MB kept). */
const spareBatches: ArrayBuffer[] = [];
const MAX_SPARE_BATCHES = 16;

function newBatch(): Uint8Array<ArrayBuffer> {
  const spare = spareBatches.pop();
  return spare ? new Uint8Array(spare) : new Uint8Array(BATCH_BYTES);
}

/**
 * Writes a stream's bytes to a file in 256 KiB batches with one write in flight while the next batch
 * fills, so neither the per-write cost nor the per-update cost of the hash is paid per small chunk and
 * the disk and the network work at the same time. Two batch buffers, reused (and kept for the next
 * upload by `release`): with `space`/`filled` a BYOB reader reads straight into them (no copy, no
 * garbage per chunk); `add` copies small chunks in and writes big ones as they are. Every byte passes
 * `onWrite` (the hash) exactly once, in order, just before it is written.
 */
export class BatchedWriter {
  #file: Deno.FsFile;
  #onWrite: (bytes: Uint8Array) => void;
  #inFlight: Promise<void> | null = null;
  #batches: (Uint8Array<ArrayBuffer> | undefined)[] = [];
  #current = 0;
  #filled = 0;

  constructor(file: Deno.FsFile, onWrite: (bytes: Uint8Array) => void) {
    this.#file = file;
    this.#onWrite = onWrite;
  }

  /** The free end of the current batch, for a BYOB read; pass the read's result to `filled`. */
  async space(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#filled === BATCH_BYTES) await this.#flushBatch();
    const batch = this.#batches[this.#current] ??= newBatch();
    this.#batches[this.#current] = undefined; // the read transfers the buffer; `filled` gets it back
    return batch.subarray(this.#filled);
  }

  /** Takes back the batch after a BYOB read into `space()` put `view.byteLength` bytes in it. */
  filled(view: Uint8Array): void {
    this.#batches[this.#current] = new Uint8Array(view.buffer as ArrayBuffer);
    this.#filled += view.byteLength;
  }

  /** Takes `chunk` (which must not change afterwards); resolves once it is batched or being written. */
  async add(chunk: Uint8Array): Promise<void> {
    if (chunk.length >= DIRECT_WRITE_BYTES) {
      await this.#flushBatch();
      await this.#submit(chunk);
      return;
    }
    if (this.#filled + chunk.length > BATCH_BYTES) await this.#flushBatch();
    const batch = this.#batches[this.#current] ??= newBatch();
    batch.set(chunk, this.#filled);
    this.#filled += chunk.length;
  }

  /** Writes what is batched and waits for every write; rejects with a write's error. */
  async finish(): Promise<void> {
    await this.#flushBatch();
    const last = this.#inFlight;
    this.#inFlight = null;
    await last;
  }

  /**
   * Hands the batch buffers over to the next upload. Only once no write is in flight (after `finish` or
   * `settle`) and no read is filling `space()`; a buffer given away to a read that failed is not here.
   */
  release(): void {
    if (this.#inFlight) return; // not expected; then the buffers are simply left to the GC
    for (const batch of this.#batches) {
      if (batch?.byteLength === BATCH_BYTES && spareBatches.length < MAX_SPARE_BATCHES) {
        spareBatches.push(batch.buffer);
      }
    }
    this.#batches = [];
    this.#filled = 0;
  }

  /** Waits for the write in flight, ignoring its outcome (for clean-up after a failure). */
  async settle(): Promise<void> {
    await this.#inFlight?.catch(() => {});
    this.#inFlight = null;
  }

  async #flushBatch(): Promise<void> {
    if (this.#filled === 0) return;
    const batch = this.#batches[this.#current];
    // Only if a source ended a BYOB read without handing the buffer back: never store a hole.
    if (!batch) throw new Error("Upload buffer lost: the source closed in the middle of a read.");
    const data = batch.subarray(0, this.#filled);
    // The other buffer is free again once #submit has waited for the write before this one.
    this.#current = 1 - this.#current;
    this.#filled = 0;
    await this.#submit(data);
  }

  async #submit(data: Uint8Array): Promise<void> {
    this.#onWrite(data); // hashed while the previous write is still on its way to the file
    const previous = this.#inFlight;
    this.#inFlight = null;
    await previous;
    const write = writeAll(this.#file, data);
    write.catch(() => {}); // observed by the next #submit, finish or settle; not an unhandled rejection
    this.#inFlight = write;
  }
}

/** FsFile.write may write fewer bytes than given; loop until all are out. */
export async function writeAll(file: Deno.FsFile, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) offset += await file.write(data.subarray(offset));
}
