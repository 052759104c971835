/**
 * A real S3-protocol server for tests: s3rver (npm) on 127.0.0.1, a free port chosen by the OS, objects in
 * a temporary folder, one bucket. A protocol stand-in: the code targets AWS S3, MinIO and R2; s3rver
 * speaks the same HTTP API (signatures, PUT/GET/HEAD/DELETE, ListObjectsV2, ranges).
 *
 *   await using s3 = await startS3Server();
 *   new S3PhotoStore(s3.config, tmpDir);       // in-process
 *   startService({ ...s3.env, ... });           // a child process
 *   await s3.stop(); await s3.start();         // the store goes down and comes back on the same port
 */
// deno-lint-ignore no-import-prefix -- a test-only package stays out of the service's import map
import S3rver from "npm:s3rver@3.7.1";
import type { S3Config } from "@/io/config.ts";

export interface S3Server extends AsyncDisposable {
  readonly port: number;
  readonly config: S3Config;
  /** The service's environment for this store (PHOTO_STORE=s3 and the S3_* variables). */
  readonly env: Record<string, string>;
  /** Stops listening (connections are refused); the objects stay. */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same objects. */
  start(): Promise<void>;
  /** Stops and removes the objects; safe to call twice. */
  close(): Promise<void>;
}

const BUCKET = "pm-photos";
/** s3rver's fixed credentials. */
const KEY = "S3RVER";

export async function startS3Server(): Promise<S3Server> {
  const directory = await Deno.makeTempDir({ prefix: "pm-s3-" });
  const make = (port: number) =>
    new S3rver({
      address: "127.0.0.1",
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
  let server: S3rver | null = make(0);
  const { port } = await server.run();
  const config: S3Config = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: BUCKET,
    region: "us-east-1",
    accessKeyId: KEY,
    secretAccessKey: KEY,
    forcePathStyle: true,
  };
  const stop = async () => {
    await server?.close();
    server = null;
  };
  const s3: S3Server = {
    port,
    config,
    env: {
      PHOTO_STORE: "s3",
      S3_ENDPOINT: config.endpoint!,
      S3_BUCKET: BUCKET,
      S3_REGION: config.region,
      S3_ACCESS_KEY_ID: KEY,
      S3_SECRET_ACCESS_KEY: KEY,
      S3_FORCE_PATH_STYLE: "true",
    },
    stop,
    async start() {
      if (server) return;
      // The port was ours a moment ago; the OS may take a moment to let go of it.
      for (let attempt = 0;; attempt++) {
        try {
          server = make(port);
          await server.run();
          return;
        } catch (error) {
          server = null;
          if (attempt >= 50) throw error;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    },
    async close() {
      await stop();
      await Deno.remove(directory, { recursive: true }).catch(() => {});
    },
    [Symbol.asyncDispose]: () => s3.close(),
  };
  return s3;
}
