import assert from "node:assert/strict";
import type { Announcement } from "@/db/schema.ts";
import { escapeCliq, escapeSlack, escapeTeams, formatChatBody } from "@/lib/announcements/formats.ts";
import { announcementText, formatAnnouncementTime } from "@/lib/announcements/text.ts";

/** The depot of these tests keeps Sydney time: 09:30 UTC on 21 November is 20:30 summer time (AEDT). */
const ZONE = "Australia/Sydney";

function announcement(overrides: Partial<Announcement> = {}): Announcement {
  return {
    messageId: "6f1c2b1e-8d7a-4c3b-9e2f-0a1b2c3d4e5f",
    title: "Parts Delivered",
    rego: "ABC123",
    place: "Smith Panel Beaters",
    parts: [
      { partNo: "PN-1001", description: "Front bumper" },
      { partNo: "PN-2002", description: "Left headlamp" },
    ],
    driver: "Jo Bloggs",
    at: "2026-11-21T09:30:00Z",
    link: "https://parts.example.com/hq/movements/42",
    movementId: 42,
    ...overrides,
  };
}

/** Every string anywhere inside a JSON value, joined: "does the body mention X" without caring where. */
function allText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(allText).join("\n");
  if (value && typeof value === "object") return Object.values(value).map(allText).join("\n");
  return String(value);
}

function assertNamesEverything(text: string, a: Announcement) {
  for (const expected of [a.rego, a.place, a.driver, "2026-11-21 20:30 AEDT", a.link]) {
    assert.ok(text.includes(expected), `expected ${JSON.stringify(expected)} in:\n${text}`);
  }
  for (const p of a.parts) {
    assert.ok(text.includes(p.partNo), `expected part no ${p.partNo}`);
    assert.ok(text.includes(p.description), `expected description ${p.description}`);
  }
}

Deno.test("announcement text: names rego, place, each part, driver, time in the depot's zone and the link", () => {
  const a = announcement();
  const text = announcementText(a, ZONE);
  assertNamesEverything(text, a);
  assert.match(text, /^Parts Delivered: ABC123\n/);
  assert.ok(text.includes("Delivered to: Smith Panel Beaters"));
  assert.ok(text.includes("- PN-1001 — Front bumper"));
});

Deno.test("announcement text: the place is labelled by what happened there", () => {
  assert.ok(
    announcementText(announcement({ title: "Parts Picked Up From Repair Shop" }), ZONE).includes(
      "Picked up from:",
    ),
  );
  assert.ok(
    announcementText(announcement({ title: "Parts Returned to HQ", place: "HQ Depot" }), ZONE).includes(
      "Returned to: HQ Depot",
    ),
  );
});

Deno.test("announcement text: a line break in a value cannot forge a line of its own", () => {
  const text = announcementText(
    announcement({ parts: [{ partNo: "PN-1", description: "Bumper\nDriver: Mallory" }] }),
    ZONE,
  );
  assert.equal(text.split("\n").filter((l) => l.startsWith("Driver:")).length, 1);
  assert.ok(text.includes("- PN-1 — Bumper Driver: Mallory"));
});

Deno.test("announcement time: the depot's zone named, whatever offset it was written with", () => {
  assert.equal(formatAnnouncementTime("2026-11-21T20:05:00+10:00", "UTC"), "2026-11-21 10:05 UTC");
  assert.equal(formatAnnouncementTime("2026-11-21T20:05:00+10:00", ZONE), "2026-11-21 21:05 AEDT");
  assert.equal(formatAnnouncementTime("2026-01-02T03:04:59.999Z", "UTC"), "2026-01-02 03:04 UTC");
  assert.equal(formatAnnouncementTime("not a time", ZONE), "not a time");
});

Deno.test("cliq body: text and a modern-inline card with a button to the movement", () => {
  const a = announcement();
  const body = formatChatBody("cliq", a, ZONE) as {
    text: string;
    card: {
      theme: string;
      title: string;
      buttons: { label: string; action: { type: string; data: { web: string } } }[];
    };
  };
  assert.deepEqual(Object.keys(body).sort(), ["card", "text"]);
  assertNamesEverything(body.text, a);
  assert.ok(body.text.includes(`Ref: ${a.messageId}`));
  assert.ok(body.text.includes(`[Open movement #42](${a.link})`));
  assert.equal(body.card.theme, "modern-inline");
  assert.equal(body.card.title, "Parts Delivered: ABC123");
  assert.ok(body.card.buttons[0].label.length <= 30);
  assert.deepEqual(body.card.buttons[0].action, { type: "open.url", data: { web: a.link } });
});

Deno.test("cliq body: stays within Cliq's 5,000 characters, summarising the parts that do not fit", () => {
  const parts = Array.from({ length: 200 }, (_, i) => ({ partNo: `PN-${i}`, description: "x".repeat(40) }));
  const body = formatChatBody("cliq", announcement({ parts }), ZONE) as { text: string };
  assert.ok(body.text.length <= 5000);
  assert.match(body.text, /…and \d+ more \(see the movement page\)/);
  assert.ok(body.text.includes("Driver: Jo Bloggs"), "facts after the parts are kept");
});

Deno.test("cliq escaping: mentions and inline links are defused, the text still reads the same", () => {
  const escaped = escapeCliq("Ping @all {@boss@x.com} [free](http://evil.example)");
  assert.ok(!escaped.includes("@all"));
  assert.ok(!escaped.includes("{@"));
  assert.ok(!escaped.includes("]("));
  assert.equal(escaped.replace(/\u200b/g, ""), "Ping @all {@boss@x.com} [free](http://evil.example)");
});

Deno.test("slack body: fallback text, header, facts, parts list, link, and the id in block ids and metadata", () => {
  const a = announcement();
  const body = formatChatBody("slack", a, ZONE) as {
    text: string;
    blocks: {
      type: string;
      block_id: string;
      text?: { type: string; text: string };
      fields?: { text: string }[];
    }[];
    metadata: { event_type: string; event_payload: Record<string, unknown> };
  };
  assertNamesEverything(body.text, a);
  assertNamesEverything(allText(body.blocks), a);
  assert.deepEqual(body.blocks.map((b) => b.type), ["header", "section", "section", "section"]);
  assert.equal(body.blocks[0].text?.type, "plain_text");
  assert.equal(body.blocks[0].text?.text, "Parts Delivered: ABC123");
  assert.equal(body.blocks[1].fields?.length, 4);
  assert.equal(body.blocks[2].text?.text, "*Parts (2)*\n• PN-1001 — Front bumper\n• PN-2002 — Left headlamp");
  assert.equal(body.blocks[3].text?.text, `<${a.link}|Open movement #42>`);
  for (const b of body.blocks) assert.ok(b.block_id.startsWith(a.messageId));
  assert.equal(new Set(body.blocks.map((b) => b.block_id)).size, body.blocks.length, "block ids are unique");
  assert.equal(body.metadata.event_payload.message_id, a.messageId);
  assert.equal(body.metadata.event_payload.movement_id, 42);
});

Deno.test("slack body: many parts are split across sections within Slack's limits", () => {
  const parts = Array.from({ length: 400 }, (_, i) => ({ partNo: `PN-${i}`, description: "y".repeat(60) }));
  const body = formatChatBody("slack", announcement({ parts }), ZONE) as {
    blocks: { text?: { text: string } }[];
  };
  assert.ok(body.blocks.length <= 50);
  for (const b of body.blocks) assert.ok((b.text?.text.length ?? 0) <= 3000);
  const shown = allText(body.blocks);
  assert.ok(shown.includes("PN-0 —") && shown.includes("PN-299 —"));
});

Deno.test("slack escaping: &, < and > are escaped in mrkdwn, so <!channel> cannot ping anyone", () => {
  assert.equal(escapeSlack("A&B <!channel> <http://x|y>"), "A&amp;B &lt;!channel&gt; &lt;http://x|y&gt;");
  const body = formatChatBody("slack", announcement({ place: "Smith & Sons <!here>" }), ZONE) as {
    text: string;
    blocks: { fields?: { text: string }[] }[];
  };
  assert.ok(body.text.includes("Smith &amp; Sons &lt;!here&gt;"));
  assert.ok(allText(body.blocks).includes("Smith &amp; Sons &lt;!here&gt;"));
  assert.ok(!allText(body.blocks).includes("<!here>"));
});

Deno.test("teams body: an Adaptive Card 1.4 with facts, parts, an OpenUrl action and the id", () => {
  const a = announcement();
  const body = formatChatBody("teams", a, ZONE) as {
    type: string;
    attachments: {
      contentType: string;
      content: {
        $schema: string;
        type: string;
        version: string;
        fallbackText: string;
        body: {
          type: string;
          id: string;
          items: { type: string; facts?: { title: string; value: string }[] }[];
        }[];
        actions: { type: string; title: string; url: string }[];
      };
    }[];
  };
  assert.equal(body.type, "message");
  assert.equal(body.attachments.length, 1);
  const att = body.attachments[0];
  assert.equal(att.contentType, "application/vnd.microsoft.card.adaptive");
  const card = att.content;
  assert.equal(card.$schema, "http://adaptivecards.io/schemas/adaptive-card.json");
  assert.equal(card.type, "AdaptiveCard");
  assert.equal(card.version, "1.4");
  assert.equal(card.body[0].id, a.messageId);
  assert.deepEqual(card.actions, [{ type: "Action.OpenUrl", title: "Open movement #42", url: a.link }]);
  assertNamesEverything(allText(card), a);
  assertNamesEverything(card.fallbackText, a);
  const partFacts = card.body[0].items.filter((i) => i.type === "FactSet")[1].facts;
  assert.deepEqual(partFacts, [
    { title: "PN-1001", value: "Front bumper" },
    { title: "PN-2002", value: "Left headlamp" },
  ]);
});

Deno.test("teams escaping: markdown markers show as typed", () => {
  assert.equal(
    escapeTeams("**Bold** [x](http://y) snake_case"),
    "\\*\\*Bold\\*\\* \\[x\\]\\(http://y\\) snake\\_case",
  );
  assert.equal(escapeTeams("- not a list"), "\\- not a list");
  assert.equal(escapeTeams("1. not a list"), "1\\. not a list");
  assert.equal(escapeTeams("line\nbreak"), "line break");
});

Deno.test("json body: snake_case fields, the raw values and the plain text", () => {
  const a = announcement({ title: "Parts Returned to HQ", place: "HQ Depot" });
  const body = formatChatBody("json", a, ZONE);
  assert.deepEqual(body, {
    message_id: a.messageId,
    title: "Parts Returned to HQ",
    rego: "ABC123",
    place: "HQ Depot",
    parts: [
      { part_no: "PN-1001", description: "Front bumper" },
      { part_no: "PN-2002", description: "Left headlamp" },
    ],
    driver: "Jo Bloggs",
    at: "2026-11-21T09:30:00Z",
    link: a.link,
    movement_id: 42,
    text: announcementText(a, ZONE),
  });
});

Deno.test("every format: the body is JSON-serialisable and carries the message id", () => {
  const a = announcement();
  for (const format of ["cliq", "slack", "teams", "json"] as const) {
    const json = JSON.stringify(formatChatBody(format, a, ZONE));
    assert.ok(json.includes(a.messageId), `${format} carries the id`);
  }
});
