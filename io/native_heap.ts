/**
 * Gives the C heap's free pages back to the system (glibc `malloc_trim`) after work that allocated outside
 * V8. libvips frees a decode's buffers into the malloc arena of the thread that ran it, and glibc keeps
 * them resident for that thread's next use: eight thumbnails of 49-megapixel PNGs made one after another
 * left a process 116 MB larger, 36 MB with a trim after each (docs/performance.md "Memory and start-up").
 * Off Linux, without glibc, or without the FFI permission, a no-op.
 */
type Trim = () => Promise<void>;

let trim: Trim | null | undefined;

/** Returns free C-heap pages of every arena to the system; runs off the event loop. */
export async function trimNativeHeap(): Promise<void> {
  trim ??= loadTrim();
  await trim?.();
}

function loadTrim(): Trim | null {
  if (Deno.build.os !== "linux") return null;
  try {
    const libc = Deno.dlopen("libc.so.6", {
      // Walks every arena: a few milliseconds, so on a worker thread rather than the event loop.
      malloc_trim: { parameters: ["usize"], result: "i32", nonblocking: true },
    });
    return async () => void await libc.symbols.malloc_trim(0n);
  } catch {
    // musl or another libc, or no --allow-ffi: memory stays as the allocator keeps it.
    return null;
  }
}
