/**
 * Chat bodies for one announcement (D21), one per supported chat (CHAT_FORMAT in io/config.ts).
 *
 * Each body carries the announcement's stable message id so a receiver can tell a retry from a new
 * announcement (the sender also puts it in the Idempotency-Key and X-Message-Id headers). User-typed
 * values (shop names, part descriptions, driver names) are made single-line and escaped for the
 * chat's markup, so a description cannot forge a line, a link or a channel-wide mention.
 */
import type { Announcement } from "@/db/schema.ts";
import { announcementJson } from "@/db/queries/announcements.ts";
import type { ChatFormat } from "@/io/config.ts";
import {
  announcementText,
  formatAnnouncementTime,
  linkButtonLabel,
  linkLabel,
  noteOf,
  oneLine,
  partLine,
  placeLabel,
} from "@/lib/announcements/text.ts";

/**
 * The JSON body to POST to a channel's incoming webhook in the given chat format, its time shown in the
 * depot's zone (`DEPOT_TIME_ZONE`).
 */
export function formatChatBody(format: ChatFormat, a: Announcement, timeZone: string): unknown {
  switch (format) {
    case "cliq":
      return cliqBody(a, timeZone);
    case "slack":
      return slackBody(a, timeZone);
    case "teams":
      return teamsBody(a, timeZone);
    case "json":
      return jsonBody(a, timeZone);
  }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

function truncate(value: string, max: number): string {
  return value.length <= max ? value : value.slice(0, max - 1) + "…";
}

/**
 * Joins head, part lines and tail within `limit` characters. Chats reject over-long messages
 * outright (which would only be retried until given up), so trailing parts are summarised
 * as "…and N more" and the movement page stays the full record.
 */
function fitLines(head: string[], partLines: string[], tail: string[], limit: number): string {
  const join = (parts: string[], more: number) =>
    [...head, ...parts, ...(more > 0 ? [`- …and ${more} more (see the movement page)`] : []), ...tail]
      .join("\n");
  let kept = partLines.length;
  let text = join(partLines, 0);
  while (text.length > limit && kept > 0) {
    kept--;
    text = join(partLines.slice(0, kept), partLines.length - kept);
  }
  return truncate(text, limit);
}

// ---------------------------------------------------------------------------------------------
// Zoho Cliq: channel incoming webhook (POST …/channelsbyname/<channel>/message?zapikey=…).

/** Cliq caps a channel message's text at 5,000 characters and a card title at 200. */
const CLIQ_TEXT_MAX = 5000;
const CLIQ_TITLE_MAX = 200;
const ZWSP = "\u200b";

/**
 * Cliq documents no escape character, so instead of escaping, a zero-width space is put where it
 * defuses the two things that would do harm: mentions (`@all`, `@available`, `{@user}` notify
 * people) and inline links (`[text](url)` could disguise a URL). Other markup (`*bold*`) is only
 * cosmetic and left alone rather than littering the text with visible backslashes.
 */
export function escapeCliq(value: string): string {
  return oneLine(value).replace(/@/g, `@${ZWSP}`).replace(/\{/g, `{${ZWSP}`).replace(/\]\(/g, `]${ZWSP}(`);
}

/** Characters that would end a markdown link target early are percent-encoded. */
function markdownUrl(url: string): string {
  return url.replace(/[()\s<>]/g, (c) => encodeURIComponent(c));
}

function cliqBody(a: Announcement, timeZone: string) {
  const e = escapeCliq;
  const text = fitLines(
    [
      `*${a.title}*: ${e(a.rego)}`,
      `Rego: ${e(a.rego)}`,
      `${placeLabel(a.title)}: ${e(a.place)}`,
      `Parts (${a.parts.length}):`,
    ],
    a.parts.map((p) => `- ${e(partLine(p))}`),
    [
      `Driver: ${e(a.driver)}`,
      `Time: ${formatAnnouncementTime(a.at, timeZone)}`,
      ...(noteOf(a) !== null ? [`Note: ${e(noteOf(a)!)}`] : []),
      `[Open ${linkLabel(a).toLowerCase()}](${markdownUrl(a.link)})`,
      // Cliq's message API has no free-form field for an id, and Zoho's input validation may
      // reject unknown keys, so the id travels as a short reference line a person can quote too.
      `Ref: ${a.messageId}`,
    ],
    CLIQ_TEXT_MAX,
  );
  return {
    text,
    card: {
      theme: "modern-inline",
      title: truncate(`${a.title}: ${e(a.rego)}`, CLIQ_TITLE_MAX),
      buttons: [{
        label: linkButtonLabel(a),
        action: { type: "open.url", data: { web: a.link } },
      }],
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Slack: incoming webhook (Block Kit).

/** Slack limits: header 150 chars, section text 3,000, field 2,000, 50 blocks per message. */
const SLACK_HEADER_MAX = 150;
const SLACK_SECTION_MAX = 3000;
const SLACK_FIELD_MAX = 2000;
const SLACK_MAX_BLOCKS = 50;

/** Slack mrkdwn: only `&`, `<` and `>` are control characters (and `<!channel>` needs `<`). */
export function escapeSlack(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A URL inside `<url|label>`: `|` and `>` would end it early. */
function slackUrl(url: string): string {
  return escapeSlack(url.replace(/\|/g, "%7C"));
}

function slackBody(a: Announcement, timeZone: string) {
  const e = (v: string) => escapeSlack(oneLine(v));
  const id = a.messageId;
  const field = (label: string, value: string) => ({
    type: "mrkdwn",
    text: truncate(`*${label}*\n${value}`, SLACK_FIELD_MAX),
  });

  // Part lines go into as few sections as fit Slack's 3,000-character section limit.
  const partLines = a.parts.map((p) => `• ${e(partLine(p))}`);
  const chunks: string[] = [];
  let current = `*Parts (${a.parts.length})*`;
  for (const line of partLines) {
    const candidate = `${current}\n${truncate(line, 500)}`;
    if (candidate.length > SLACK_SECTION_MAX) {
      chunks.push(current);
      current = truncate(line, 500);
    } else {
      current = candidate;
    }
  }
  chunks.push(current);
  const maxPartBlocks = SLACK_MAX_BLOCKS - 3;
  if (chunks.length > maxPartBlocks) {
    chunks.length = maxPartBlocks;
    chunks[maxPartBlocks - 1] = truncate(chunks[maxPartBlocks - 1], SLACK_SECTION_MAX - 60) +
      "\n…more parts on the movement page";
  }

  return {
    // The fallback shown in notifications and by clients that cannot draw blocks.
    text: escapeSlack(announcementText(a, timeZone)),
    blocks: [
      {
        type: "header",
        block_id: `${id}:header`,
        text: { type: "plain_text", text: truncate(oneLine(`${a.title}: ${a.rego}`), SLACK_HEADER_MAX) },
      },
      {
        type: "section",
        block_id: `${id}:facts`,
        fields: [
          field("Rego", e(a.rego)),
          field(placeLabel(a.title), e(a.place)),
          field("Driver", e(a.driver)),
          field("Time", formatAnnouncementTime(a.at, timeZone)),
          ...(noteOf(a) !== null ? [field("Note", e(noteOf(a)!))] : []),
        ],
      },
      ...chunks.map((text, i) => ({
        type: "section",
        block_id: `${id}:parts:${i}`,
        text: { type: "mrkdwn", text },
      })),
      {
        type: "section",
        block_id: `${id}:link`,
        text: { type: "mrkdwn", text: `<${slackUrl(a.link)}|Open ${linkLabel(a).toLowerCase()}>` },
      },
    ],
    // Incoming webhooks accept message metadata: the machine-readable place for the id.
    metadata: {
      event_type: "parts_movement_announcement",
      event_payload: {
        message_id: id,
        movement_id: a.movementId,
        title: a.title,
        ...(a.returnRequestId !== undefined ? { return_request_id: a.returnRequestId } : {}),
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Microsoft Teams: incoming webhook / Workflows "post card when a webhook request is received".

/** Past this many parts the card summarises the rest: Teams rejects messages over ~28 KB. */
const TEAMS_MAX_PARTS = 100;

/**
 * Adaptive Card text understands a markdown subset (**bold**, _italic_, [links](url), "- " and
 * "1. " lists); those markers are backslash-escaped so a value shows as typed.
 */
export function escapeTeams(value: string): string {
  return oneLine(value)
    .replace(/[\\*_[\]()~`]/g, (c) => `\\${c}`)
    .replace(/^([-+#>])/, "\\$1")
    .replace(/^(\d+)\./, "$1\\.");
}

function teamsBody(a: Announcement, timeZone: string) {
  const e = escapeTeams;
  const shown = a.parts.slice(0, TEAMS_MAX_PARTS);
  const hidden = a.parts.length - shown.length;
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          fallbackText: announcementText(a, timeZone),
          msteams: { width: "Full" },
          body: [
            {
              // The container's element id is the message id: a Teams-side flow or a test receiver
              // can read it from the card without parsing text.
              type: "Container",
              id: a.messageId,
              items: [
                { type: "TextBlock", text: e(a.title), size: "Large", weight: "Bolder", wrap: true },
                {
                  type: "FactSet",
                  facts: [
                    { title: "Rego", value: e(a.rego) },
                    { title: placeLabel(a.title), value: e(a.place) },
                    { title: "Driver", value: e(a.driver) },
                    { title: "Time", value: formatAnnouncementTime(a.at, timeZone) },
                    ...(noteOf(a) !== null ? [{ title: "Note", value: e(noteOf(a)!) }] : []),
                  ],
                },
                { type: "TextBlock", text: `Parts (${a.parts.length})`, weight: "Bolder", wrap: true },
                {
                  type: "FactSet",
                  facts: shown.map((p) => ({ title: e(p.partNo), value: e(p.description) || "—" })),
                },
                ...(hidden > 0
                  ? [{ type: "TextBlock", text: `…and ${hidden} more (see the movement page)`, wrap: true }]
                  : []),
              ],
            },
          ],
          actions: [{ type: "Action.OpenUrl", title: `Open ${linkLabel(a).toLowerCase()}`, url: a.link }],
        },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Plain JSON for a custom receiver (an integration, a bot, or tests).

function jsonBody(a: Announcement, timeZone: string) {
  return { message_id: a.messageId, ...announcementJson(a), text: announcementText(a, timeZone) };
}
