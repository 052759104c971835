/**
 * Free disk space under DATA_DIR (docs/operations.md "Disk space"): the embedded database and every
 * upload's staging file live there (the disk photo store too), and a full disk turned drop-offs into 503s.
 * `/readyz` answers not ready below `MIN_FREE_DISK_BYTES`, a warning is logged once when free space falls
 * under twice that (before it gets there), an error once when it falls under it, and a line when it
 * recovers; the free bytes are a metric (parts_movement_free_disk_bytes).
 *
 * Deno has no statfs of its own; node:fs `statfs` (statfs(2): the bytes an unprivileged process may still
 * write, `bavail` blocks) is supported in Deno 2 and needs no subprocess (`df` may not be installed, and
 * its output differs between systems). The measure is injectable (AppDeps.freeDiskBytes), so tests
 * simulate a nearly full disk without filling one.
 */
import { statfs } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { AppDeps } from "@/lib/deps.ts";
import { logger } from "@/io/log.ts";

/** Free bytes of the file system holding `path`, as an unprivileged writer sees them. */
export type FreeDiskBytes = (path: string) => Promise<number>;

/** statfs(2) of `path`, or of its nearest existing parent (DATA_DIR is made on first use). */
export const statfsFreeBytes: FreeDiskBytes = async (path) => {
  let at = resolve(path);
  while (true) {
    try {
      const s = await statfs(at);
      return s.bavail * s.bsize;
    } catch (error) {
      const parent = dirname(at);
      if ((error as { code?: string }).code !== "ENOENT" || parent === at) throw error;
      at = parent;
    }
  }
};

export type DiskState = "ok" | "low" | "under";

export interface DiskReading {
  freeBytes: number;
  state: DiskState;
}

const log = logger("start");
const GIB = 1024 ** 3;
const size = (n: number) => `${(n / GIB).toFixed(2)} GiB`;

/** Measures and remembers the last state, so each crossing is logged once. */
export class DiskSpaceWatch {
  #state: DiskState = "ok";

  constructor(
    private readonly deps: Pick<AppDeps, "config" | "metrics" | "freeDiskBytes">,
  ) {}

  /** The free bytes now and what they mean; logs a crossing, sets the metric. */
  async check(): Promise<DiskReading> {
    const { config } = this.deps;
    const freeBytes = await (this.deps.freeDiskBytes ?? statfsFreeBytes)(config.dataDir);
    this.deps.metrics?.freeDiskBytes(freeBytes);
    const min = config.minFreeDiskBytes;
    const state: DiskState = min > 0 && freeBytes < min
      ? "under"
      : min > 0 && freeBytes < 2 * min
      ? "low"
      : "ok";
    if (state !== this.#state) {
      const fields = { free: size(freeBytes), min: size(min), data_dir: config.dataDir };
      if (state === "under") {
        log.error(
          "Free disk space under {data_dir} is {free}, below MIN_FREE_DISK_BYTES ({min}): /readyz answers not ready",
          fields,
        );
      } else if (state === "low" && this.#state === "ok") {
        log.warning(
          "Free disk space under {data_dir} is {free}, under twice MIN_FREE_DISK_BYTES ({min}): free some before /readyz answers not ready",
          fields,
        );
      } else if (state === "ok" || this.#state === "under") {
        log.info("Free disk space under {data_dir} is {free} again (MIN_FREE_DISK_BYTES {min})", fields);
      }
      this.#state = state;
    }
    return { freeBytes, state };
  }
}

const watches = new WeakMap<object, DiskSpaceWatch>();

/** The one watch of an app's dependencies (readyz, the metrics scrape and the server's timer share it). */
export function diskSpaceOf(deps: Pick<AppDeps, "config" | "metrics" | "freeDiskBytes">): DiskSpaceWatch {
  let watch = watches.get(deps);
  if (!watch) watches.set(deps, watch = new DiskSpaceWatch(deps));
  return watch;
}
