/**
 * The chat text of a driver's return request (docs/submissions-and-announcements.md "Return requests in
 * chat") in the plain text and every CHAT_FORMAT: the shop as "At", the driver's note on its own labelled
 * line (escaped like every typed value), and a link to the dispatchers' queue, never to a movement.
 */
import assert from "node:assert/strict";
import type { Announcement } from "@/db/schema.ts";
import { formatChatBody } from "@/lib/announcements/formats.ts";
import { announcementText } from "@/lib/announcements/text.ts";

const ZONE = "Australia/Sydney";
const FORMATS = ["cliq", "slack", "teams", "json"] as const;

function request(overrides: Partial<Announcement> = {}): Announcement {
  return {
    messageId: "0b7f7a52-3f4e-4d39-9b8e-7c5e8e1f2a10",
    title: "Return Requested",
    rego: "RET123",
    place: "North Smash Repairs",
    parts: [{ partNo: "PN-1", description: "Front bumper" }],
    driver: "Dana Driver",
    at: "2026-11-21T09:30:00Z",
    link: "https://parts.example.com/hq/return-requests#request-7",
    movementId: 0,
    returnRequestId: 7,
    note: "Shop says they are done",
    ...overrides,
  };
}

const allText = (value: unknown): string =>
  typeof value === "string"
    ? value
    : Array.isArray(value)
    ? value.map(allText).join("\n")
    : value && typeof value === "object"
    ? Object.values(value).map(allText).join("\n")
    : String(value);

Deno.test("return request text: the shop, parts, driver, time, note and the queue's link, one fact a line", () => {
  assert.equal(
    announcementText(request(), ZONE),
    [
      "Return Requested: RET123",
      "Rego: RET123",
      "At: North Smash Repairs",
      "Parts (1):",
      "- PN-1 — Front bumper",
      "Driver: Dana Driver",
      "Time: 2026-11-21 20:30 AEDT",
      "Note: Shop says they are done",
      "Return request: https://parts.example.com/hq/return-requests#request-7",
    ].join("\n"),
  );
  assert.doesNotMatch(announcementText(request({ note: null }), ZONE), /Note:/);
  assert.doesNotMatch(announcementText(request({ note: "  \n " }), ZONE), /Note:/);
});

Deno.test("return request text: every chat format names the note and opens the request, not a movement", () => {
  for (const format of FORMATS) {
    const text = allText(formatChatBody(format, request(), ZONE));
    for (
      const expected of ["RET123", "North Smash Repairs", "Dana Driver", "PN-1", "Shop says they are done"]
    ) {
      assert.ok(text.includes(expected), `${format}: ${expected}`);
    }
    assert.ok(text.includes("https://parts.example.com/hq/return-requests#request-7"), `${format}: link`);
    assert.doesNotMatch(text, /movement #/i, `${format}: no movement link`);
    if (format !== "json") assert.match(text, /Open return request( #7)?/, `${format}: link label`);
  }
  const json = formatChatBody("json", request(), ZONE) as Record<string, unknown>;
  assert.equal(json.return_request_id, 7);
  assert.equal(json.note, "Shop says they are done");
  assert.equal(json.title, "Return Requested");
});

Deno.test("return request text: a note cannot forge a line, a mention or a link in any format", () => {
  const note = "ok\nDriver: Someone Else @all <!channel> [x](https://evil.example)";
  assert.match(announcementText(request({ note }), ZONE), /\nNote: ok Driver: Someone Else /);
  const cliq = formatChatBody("cliq", request({ note }), ZONE) as { text: string };
  assert.doesNotMatch(cliq.text, /\nDriver: Someone Else/);
  assert.doesNotMatch(cliq.text, /@all/);
  assert.doesNotMatch(cliq.text, /\]\(https:\/\/evil/);
  const slack = JSON.stringify(formatChatBody("slack", request({ note }), ZONE));
  assert.doesNotMatch(slack, /<!channel>/);
  // Teams: the card's Note fact is markdown-escaped (its fallbackText is plain text, shown as typed).
  const teams = JSON.stringify(formatChatBody("teams", request({ note }), ZONE));
  assert.ok(
    teams.includes(
      JSON.stringify({
        title: "Note",
        value: "ok Driver: Someone Else @all <!channel> \\[x\\]\\(https://evil.example\\)",
      }),
    ),
  );
});
