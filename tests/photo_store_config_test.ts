/**
 * PHOTO_STORE and the S3_* variables (D2, D25): defaults, the s3 store's required bucket, credentials in
 * pairs, bad values refused with one line naming the variable, and the store tasks/setup.ts builds.
 */
import assert from "node:assert/strict";
import { ConfigError, parseConfig } from "@/io/config.ts";
import { openPhotoStore } from "@/tasks/setup.ts";
import { dbTest } from "@/testkit/db.ts";

const S3 = {
  PHOTO_STORE: "s3",
  S3_ENDPOINT: "http://127.0.0.1:9000",
  S3_BUCKET: "parts-photos",
  S3_ACCESS_KEY_ID: "minio",
  S3_SECRET_ACCESS_KEY: "minio-secret",
  S3_FORCE_PATH_STYLE: "true",
};

Deno.test("photo store config: disk by default, no S3 settings", () => {
  const config = parseConfig({});
  assert.equal(config.photoStore, "disk");
  assert.equal(config.s3, undefined);
});

Deno.test("photo store config: s3 with every variable", () => {
  assert.deepEqual(parseConfig(S3).s3, {
    endpoint: "http://127.0.0.1:9000",
    bucket: "parts-photos",
    region: "us-east-1",
    accessKeyId: "minio",
    secretAccessKey: "minio-secret",
    forcePathStyle: true,
  });
});

Deno.test("photo store config: bad values stop the start with one line naming the variable", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PHOTO_STORE: "ftp" }, /^Invalid configuration: PHOTO_STORE /],
    [{ ...S3, S3_BUCKET: "" }, /^Invalid configuration: S3_BUCKET is required when PHOTO_STORE is s3$/],
    [{ ...S3, S3_BUCKET: "Bad_Bucket" }, /^Invalid configuration: S3_BUCKET /],
    [{ ...S3, S3_ENDPOINT: "ftp://host" }, /^Invalid configuration: S3_ENDPOINT /],
    [{ ...S3, S3_FORCE_PATH_STYLE: "yes" }, /^Invalid configuration: S3_FORCE_PATH_STYLE /],
    [{ ...S3, S3_SECRET_ACCESS_KEY: "" }, /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => parseConfig(env), (e) => e instanceof ConfigError && message.test(e.message));
  }
});

dbTest(
  "photo store config: openPhotoStore builds the configured store, all staging in DATA_DIR/photos/tmp",
  async (t) => {
    for (
      const [env, kind] of [[{}, "disk"], [{ PHOTO_STORE: "postgres" }, "postgres"], [S3, "s3"]] as const
    ) {
      const store = await openPhotoStore({ ...parseConfig(env), dataDir: "/srv/parts" }, t.db);
      assert.equal(store.kind, kind);
      assert.equal((store as unknown as { tmpDir: string }).tmpDir, "/srv/parts/photos/tmp");
      store.close();
    }
    // photos:migrate names the target while PHOTO_STORE still names the source.
    assert.equal((await openPhotoStore(parseConfig(S3), t.db, "postgres")).kind, "postgres");
  },
  { only: "pglite" },
);
