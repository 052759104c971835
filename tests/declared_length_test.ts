import assert from "node:assert/strict";
import { declaredLength } from "@/io/declared_length.ts";

const request = (headers: Record<string, string>) =>
  new Request("http://localhost/", { method: "POST", headers });

Deno.test("declaredLength: a Content-Length of digits is the length; chunked, absent or malformed is unknown", () => {
  assert.equal(declaredLength(request({ "content-length": "1024" })), 1024);
  assert.equal(declaredLength(request({ "content-length": "1073741824" })), 1024 ** 3);
  assert.equal(declaredLength(request({})), null);
  assert.equal(declaredLength(request({ "content-length": "12abc" })), null);
  assert.equal(declaredLength(request({ "content-length": "-5" })), null);
  assert.equal(declaredLength(request({ "content-length": "10", "transfer-encoding": "chunked" })), null);
});
