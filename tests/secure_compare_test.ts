import assert from "node:assert/strict";
import { anySecretMatcher, secretMatcher, secureEquals } from "@/io/secure_compare.ts";

Deno.test("secretMatcher: only the exact secret matches, whatever the candidate's length", () => {
  const isKey = secretMatcher("s3crét key");
  assert.ok(isKey("s3crét key"));
  for (
    const wrong of [
      "",
      "s3crét ke",
      "s3crét key ",
      "s3cret key",
      "S3crét key",
      "s3crét key\0",
      "x".repeat(99),
    ]
  ) {
    assert.ok(!isKey(wrong), JSON.stringify(wrong));
    assert.equal(isKey(wrong), secureEquals(wrong, "s3crét key"), JSON.stringify(wrong));
  }
  // A candidate whose bytes past the secret's end are zero still differs by its length.
  assert.ok(!secretMatcher("ab")("ab\0"));
  assert.ok(secretMatcher("")(""));
  assert.ok(!secretMatcher("")("a"));
});

Deno.test("anySecretMatcher: either key of a rotation matches, nothing else", () => {
  const isKey = anySecretMatcher(["new-key-0123456789", "old-key-0123456789"]);
  assert.ok(isKey("new-key-0123456789"));
  assert.ok(isKey("old-key-0123456789"));
  for (
    const wrong of ["", "new-key-012345678", "old-key-0123456789 ", "new-key-0123456789old-key-0123456789"]
  ) {
    assert.ok(!isKey(wrong), JSON.stringify(wrong));
  }
  assert.ok(anySecretMatcher(["only-one-key-0123"])("only-one-key-0123"));
});
