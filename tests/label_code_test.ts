/**
 * Label codes (lib/labels/code.ts, docs/labels.md "Codes"): every id round-trips, read in any case and with
 * Crockford's aliases; any one symbol changed, or two neighbours swapped, is refused by the check symbol.
 */
import assert from "node:assert/strict";
import fc from "@/tests/helpers/fast_check.ts";
import { DomainError } from "@/lib/errors.ts";
import { CROCKFORD, LABEL_PREFIX, labelCode, looksLikeLabelCode, parseLabelCode } from "@/lib/labels/code.ts";
import { MAX_ID } from "@/lib/validation.ts";

const partId = fc.integer({ min: 1, max: MAX_ID });

/** The refusal of a code: a DomainError of kind `kind`, its message checked by `message`. */
function refused(text: string, kind: DomainError["kind"], message: RegExp) {
  assert.throws(
    () => parseLabelCode(text),
    (e) => e instanceof DomainError && e.kind === kind && message.test(e.message),
  );
}

Deno.test("label code: a few known codes, short, upper case, in QR's alphanumeric set", () => {
  assert.equal(labelCode(1), "PM-00012");
  assert.equal(labelCode(20), "PM-000MD");
  assert.equal(labelCode(1_048_576), "PM-100005");
  assert.equal(labelCode(MAX_ID), "PM-1ZZZZZZD");
  fc.assert(fc.property(partId, (id) => {
    const code = labelCode(id);
    assert.match(code, /^PM-[0-9A-HJKMNP-TV-Z]{5,8}$/);
  }));
});

Deno.test("label code: round trip, in any case, with O for 0 and I or L for 1, hyphens and spaces ignored", () => {
  fc.assert(fc.property(partId, fc.boolean(), (id, lower) => {
    const code = labelCode(id);
    assert.equal(parseLabelCode(code), id);
    const body = code.slice(LABEL_PREFIX.length);
    const aliased = body.replaceAll("0", "O").replaceAll("1", lower ? "l" : "I");
    const typed = `  ${lower ? "pm" : "PM"} ${aliased.slice(0, 3)}-${aliased.slice(3)} `;
    assert.equal(parseLabelCode(lower ? typed.toLowerCase() : typed), id);
  }));
});

Deno.test("label code: any one symbol changed is refused as a wrong check character", () => {
  fc.assert(fc.property(partId, fc.nat(), fc.integer({ min: 1, max: 31 }), (id, at, shift) => {
    const code = labelCode(id);
    const i = LABEL_PREFIX.length + at % (code.length - LABEL_PREFIX.length);
    const changed = CROCKFORD[(CROCKFORD.indexOf(code[i]) + shift) % 32];
    const text = code.slice(0, i) + changed + code.slice(i + 1);
    refused(text, "invalid", /is not a valid label code: its last character does not match/);
  }));
});

Deno.test("label code: two different neighbours swapped are refused", () => {
  fc.assert(fc.property(partId, fc.nat(), (id, at) => {
    const code = labelCode(id);
    const i = LABEL_PREFIX.length + at % (code.length - LABEL_PREFIX.length - 1);
    fc.pre(code[i] !== code[i + 1]);
    const text = code.slice(0, i) + code[i + 1] + code[i] + code.slice(i + 2);
    refused(text, "invalid", /its last character does not match/);
  }));
});

Deno.test("label code: what is not a code says why", () => {
  assert.equal(looksLikeLabelCode("52119-0K040"), false);
  assert.equal(looksLikeLabelCode("pm-00012"), true);
  refused("52119-0K040", "invalid", /^52119-0K040 is not a label code: codes start with PM-\.$/);
  refused("PM-00U12", "invalid", /^PM-00U12 is not a label code: it has "U", which no code has\.$/);
  refused("PM-0", "invalid", /too short or too long/);
  refused(`PM-${"0".repeat(12)}`, "invalid", /too short or too long/);
  // A valid check over 0 (all zeros fold to 0) or past the id column names no part.
  refused("PM-00000", "not_found", /^No part has the label code PM-00000\.$/);
});
