/**
 * Commits on the embedded database that survive a power cut, not only a crash of the process.
 *
 * PGlite starts PostgreSQL with fsync off (`-F` in its default start parameters), and its Emscripten file
 * system for a data folder (NODEFS) has no fsync at all: every write reached the folder, none was ever forced
 * to the disk. A killed process lost nothing (the kernel still held the pages), but a power cut or a kernel
 * crash could lose the last commits and, with fsync off, leave the database corrupt (PostgreSQL's own
 * documentation of `fsync`). Photos are fsynced before their row commits (io/photo_stores/disk.ts), so a
 * movement could have vanished while its photos stayed.
 *
 * Here NODEFS gets a real fsync, and PostgreSQL runs with fsync on and `wal_sync_method=fsync`: Emscripten's
 * `fdatasync` (PostgreSQL's default method on Linux) returns without doing anything, while `fsync` reaches
 * the stream's own operation. Each commit syncs the WAL once (about 0.5 ms on the 2-core machine), each
 * checkpoint the data files it wrote (docs/operations.md "Databases").
 */
import fs from "node:fs";
import { PGlite } from "@electric-sql/pglite";

/** PGlite's start parameters without its `-F` (fsync off), with fsync on and a sync method that reaches NODEFS. */
export const DURABLE_START_PARAMS: string[] = [
  ...PGlite.defaultStartParams.filter((param) => param !== "-F"),
  "-c",
  "fsync=on",
  "-c",
  "wal_sync_method=fsync",
];

/** What this module needs of Emscripten's NODEFS: its stream operations and its error conversion. */
export interface SyncableNodeFs {
  stream_ops: Record<string, unknown>;
  /** Runs a node:fs call, turning its error into the errno PostgreSQL sees (NODEFS's own helper). */
  tryFSOperation<T>(operation: () => T): T;
}

/** Gives `nodefs` (one Emscripten module's NODEFS) the fsync it lacks: the stream's file, synced by the kernel. */
export function addFsync(nodefs: SyncableNodeFs): void {
  nodefs.stream_ops.fsync = (stream: { nfd: number }) =>
    nodefs.tryFSOperation(() => fs.fsyncSync(stream.nfd));
}
