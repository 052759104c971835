/**
 * Fuzzing the v2.1 upload path (D18) with fast-check: random and mutated multipart bodies, headers and
 * paths. Whatever arrives, the answer is never a 5xx or a stack trace: it is `{"code":3000,"data":…}` for a
 * stored photo, else `{"code":<non-3000>,"message":…}`; and nothing is left in the storage's temp folder.
 */
import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { appTest } from "@/testkit/app.ts";
import { jpegPhoto, pngPhoto } from "@/testkit/photos.ts";
import { concat } from "@/tests/helpers/multipart.ts";
import { mint, UPLOAD_REPORT } from "@/tests/helpers/uploads.ts";

const enc = new TextEncoder();

function validBody(bytes: Uint8Array) {
  const form = `--B0undary\r\nContent-Disposition: form-data; name="file"; filename="p.jpg"\r\n\r\n`;
  return {
    body: concat(enc.encode(form), bytes, enc.encode("\r\n--B0undary--\r\n")),
    type: "multipart/form-data; boundary=B0undary",
  };
}

/** A multipart body with `file` holding `bytes`, then mutated: cut short, bytes flipped, boundary damaged. */
const multipartArbitrary = (photos: Uint8Array[]) =>
  fc.record({
    boundary: fc.oneof(fc.constant("XyZ123boundary"), fc.string({ minLength: 1, maxLength: 70 })),
    declaredBoundary: fc.option(fc.string({ maxLength: 70 }), { nil: undefined }),
    fieldName: fc.oneof(fc.constant("file"), fc.string({ maxLength: 10 })),
    bytes: fc.oneof(fc.constantFrom(...photos), fc.uint8Array({ maxLength: 2048 })),
    cut: fc.option(fc.nat(), { nil: undefined }),
    flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
    contentType: fc.oneof(
      fc.constant(undefined),
      fc.constantFrom("multipart/form-data", "application/json", "image/jpeg", "multipart/mixed"),
      fc.string({ maxLength: 40 }),
    ),
  }).map((m) => {
    const head = enc.encode(
      `--${m.boundary}\r\nContent-Disposition: form-data; name="${m.fieldName}"; filename="p.jpg"\r\n` +
        `Content-Type: image/jpeg\r\n\r\n`,
    );
    let body = concat(head, m.bytes, enc.encode(`\r\n--${m.boundary}--\r\n`));
    if (m.cut !== undefined) body = body.slice(0, m.cut % (body.length + 1));
    for (const [at, value] of m.flips) if (body.length) body[at % body.length] = value;
    const type = m.contentType === undefined
      ? `multipart/form-data; boundary=${m.declaredBoundary ?? m.boundary}`
      : m.contentType;
    return { body, type };
  });

const headerArbitrary = fc.record({
  scheme: fc.oneof(fc.constant("Zoho-oauthtoken"), fc.string({ maxLength: 20 }), fc.constant(null)),
  tokenMutation: fc.oneof(fc.constant("none"), fc.constant("truncate"), fc.constant("random")),
  randomToken: fc.string({ maxLength: 60 }),
  environment: fc.option(fc.oneof(fc.constantFrom("development", "stage", "production"), fc.string()), {
    nil: undefined,
  }),
  pathMutation: fc.oneof(
    fc.constant(null),
    fc.tuple(
      fc.nat({ max: 8 }),
      fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("..", "%2F", "%2e%2e", "")),
    ),
  ),
});

type UploadBody = { body: Uint8Array; type: string };
type FuzzHeaders = typeof headerArbitrary extends fc.Arbitrary<infer T> ? T : never;
const VALID_HEADERS: FuzzHeaders = {
  scheme: "Zoho-oauthtoken",
  tokenMutation: "none",
  randomToken: "",
  environment: undefined,
  pathMutation: null,
};

async function assertUploadEnvelope(res: Response, context: string): Promise<boolean> {
  const text = await res.text();
  const where = `${res.status} ${text.slice(0, 200)} for ${context.slice(0, 300)}`;
  assert.ok(res.status < 500, `5xx: ${where}`);
  assert.ok(!/\bat .+\.(ts|js):\d+/.test(text), `stack trace: ${where}`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, where);
  const body = JSON.parse(text);
  if (body.code === 3000) {
    assert.equal(res.status, 200, where);
    assert.equal(body.data.message, "File uploaded successfully", where);
    assert.match(body.data.filename, /^[0-9a-f]{64}\.(jpg|png|webp|heic)$/, where);
    return true;
  }
  assert.equal(typeof body.code, "number", where);
  assert.equal(typeof body.message, "string", where);
  assert.ok(res.status >= 400, where);
  return false;
}

appTest(
  "upload fuzz: mutated multipart bodies, headers and paths never get a 5xx or a stack trace",
  async (a) => {
    const photos = [await jpegPhoto(), await pngPhoto()];
    let stored = 0;
    await fc.assert(
      fc.asyncProperty(multipartArbitrary(photos), headerArbitrary, async (m, h) => {
        const minted = await mint(a);
        const segments = [
          "data",
          minted.app_owner,
          minted.app_name,
          "report",
          UPLOAD_REPORT,
          String(minted.record_id),
          "Parts_Image",
          "upload",
        ];
        if (h.pathMutation) segments[h.pathMutation[0] % segments.length] = h.pathMutation[1];
        const token = h.tokenMutation === "none"
          ? minted.token
          : h.tokenMutation === "truncate"
          ? minted.token.slice(0, 20)
          : h.randomToken;
        const headers: Record<string, string> = {};
        if (m.type) headers["content-type"] = m.type;
        if (h.scheme !== null) headers.authorization = `${h.scheme} ${token}`;
        if (h.environment !== undefined) headers.environment = h.environment;
        let res: Response;
        try {
          res = await a.app.request(`/api/v2.1/${segments.join("/")}`, {
            method: "POST",
            headers,
            body: m.body as BodyInit,
          });
        } catch (error) {
          // Header values the Fetch API itself refuses never reach a server; nothing to check.
          if (error instanceof TypeError && /header/i.test(error.message)) return;
          throw error;
        }
        if (
          await assertUploadEnvelope(res, JSON.stringify({ type: m.type, h, size: m.body.length }))
        ) stored++;
      }),
      {
        numRuns: 500,
        // Unmutated uploads first, so the storing path is reached whatever the random draws are.
        examples: photos.map((bytes): [UploadBody, FuzzHeaders] => [validBody(bytes), VALID_HEADERS]),
      },
    );
    // Valid bodies with a valid token do get through: the fuzzing reaches the storing path too.
    assert.ok(stored > 0, "no fuzzed upload was stored");
    const leftovers: string[] = [];
    try {
      for await (const entry of Deno.readDir(`${a.dataDir}/photos/tmp`)) leftovers.push(entry.name);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    assert.deepEqual(leftovers, [], "temp files left behind");
  },
);
