/**
 * The sandbox's picks in docs/partners.md ("How the sandbox decides what the API description leaves open"): a
 * scannable table, one line per pick linking to its detail section below, in the same order. Each summary that
 * gives a number gives the sandbox's own: the figures are read from the code, not written here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../devkit/src/common/json-depth.ts";
import { SEEDED_CARD_BINS } from "../../devkit/src/sandbox/flows/cards.ts";
import { MAX_ATTEMPTS_PER_RECEIVER } from "../../devkit/src/sandbox/flows/webhooks.ts";
import {
  MAX_ACCOUNTS,
  MAX_API_KEY_LENGTH,
  MAX_BODY_BYTES,
  MAX_STRING_LENGTH,
  MAX_WEBHOOK_ENDPOINTS,
} from "../../devkit/src/sandbox/limits.ts";
import { DEFAULT_CARD_ISSUING_SECONDS, DEFAULT_KYB_REVIEW_SECONDS } from "../../devkit/src/sandbox/options.ts";
import { MAX_FAULTS, MAX_FAULTS_PER_ACCOUNT } from "../../devkit/src/sandbox/testmode/faults.ts";
import {
  DEFAULT_REQUEST_LOG_SIZE,
  MAX_REQUEST_STREAMS,
  MAX_REQUEST_STREAMS_PER_ACCOUNT,
} from "../../devkit/src/sandbox/testmode/log.ts";
import { DELIVERY_ATTEMPTS, RETRY_DELAYS_MS } from "../../devkit/src/webhooks/deliver.ts";
import { partnersGuidePath } from "../../scripts/lib/paths.ts";
import { documentAnchors } from "../helpers/markdown-links.ts";

const guide = readFileSync(partnersGuidePath, "utf8");
const SECTION = "## How the sandbox decides what the API description leaves open";
const DETAIL = "### The picks in detail";
/** A summary fits a table cell of one line: a phrase, not a paragraph. */
const MAX_SUMMARY = 100;

interface Pick {
  question: string;
  anchor: string;
  summary: string;
}

/** The table's rows and the detail sections (heading → text) of the picks section of a guide. */
function readPicks(text: string): { rows: Pick[]; details: Map<string, string>; anchors: Set<string> } {
  const start = text.indexOf(`\n${SECTION}\n`);
  if (start === -1) throw new Error(`no "${SECTION}" section`);
  const section = text.slice(start + 1);
  const end = section.indexOf("\n## ");
  const body = end === -1 ? section : section.slice(0, end);
  const rows: Pick[] = [];
  for (const line of body.split("\n")) {
    if (!line.startsWith("| ") || line.startsWith("| Open question") || line.startsWith("| ---")) continue;
    const row = /^\| \[(.+)\]\(#([^)]+)\) \| (.+) \|$/.exec(line);
    if (!row) throw new Error(`a picks row without a link to its detail: ${line.slice(0, 80)}`);
    rows.push({ question: row[1]!, anchor: row[2]!, summary: row[3]! });
  }
  const details = new Map<string, string>();
  const detailText = body.slice(body.indexOf(DETAIL));
  for (const part of detailText.split("\n#### ").slice(1)) {
    const [heading, ...rest] = part.split("\n");
    details.set(heading!, rest.join("\n").trim());
  }
  return { rows, details, anchors: documentAnchors(text) };
}

const { rows, details, anchors } = readPicks(guide);
const summary = (question: string) => {
  const row = rows.find((pick) => pick.question === question);
  if (!row) throw new Error(`no pick "${question}"`);
  return row.summary;
};
const en = (n: number) => n.toLocaleString("en-US");

describe("the picks table of the partners' guide", () => {
  it("is one line per pick, a short summary linking to its detail section, in the detail sections' order", () => {
    expect(rows.length).toBeGreaterThan(40);
    expect(rows.map((pick) => pick.question)).toEqual([...details.keys()]);
    for (const pick of rows) {
      expect(pick.summary.length, pick.question).toBeLessThanOrEqual(MAX_SUMMARY);
      expect(anchors.has(pick.anchor), `${pick.question} → #${pick.anchor}`).toBe(true);
      expect(details.get(pick.question)!.length, pick.question).toBeGreaterThan(pick.summary.length);
    }
    // The anchor is the detail heading's own: its slug, numbered as GitHub numbers a repeated one.
    const headingAnchors = [...documentAnchors(`${guide.slice(0, guide.indexOf(DETAIL))}`)];
    for (const pick of rows) expect(headingAnchors).not.toContain(pick.anchor);
  });

  it("gives the sandbox's figures, read from its code, in the summary and the detail alike", () => {
    const figures: Record<string, string[]> = {
      "Request body size": [`${MAX_BODY_BYTES / 1024 / 1024} MiB`],
      "JSON nesting": [`${MAX_JSON_DEPTH} levels`],
      "String length": [`${en(MAX_STRING_LENGTH)} characters`],
      "API keys, ids and names": [`${MAX_API_KEY_LENGTH} characters`, `${en(MAX_ACCOUNTS)} accounts`],
      "Card status": [`${DEFAULT_CARD_ISSUING_SECONDS} s of clock time`],
      "KYB result": [`${DEFAULT_KYB_REVIEW_SECONDS} s of clock time`],
      "Webhook endpoints": [`at most ${MAX_WEBHOOK_ENDPOINTS}`],
      Faults: [`${MAX_FAULTS_PER_ACCOUNT} faults per account`, `${en(MAX_FAULTS)} in all`],
      "Request log": [`${en(DEFAULT_REQUEST_LOG_SIZE)} calls`],
      "Request streams": [`${MAX_REQUEST_STREAMS} open`, `${MAX_REQUEST_STREAMS_PER_ACCOUNT} per account`],
      "Order and duplicates": [`up to ${MAX_ATTEMPTS_PER_RECEIVER} at once`],
      "Webhook retries": [`${DELIVERY_ATTEMPTS} attempts`],
      "What every company is seeded with": SEEDED_CARD_BINS.map((bin) => `\`${bin.bin}\``),
    };
    for (const [question, texts] of Object.entries(figures)) {
      const detail = details.get(question)!.replace(/\s+/g, " ");
      for (const text of texts) {
        expect(summary(question), question).toContain(text);
        expect(detail, question).toContain(text);
      }
    }
    // The retry waits, as the sender waits them.
    const waits = RETRY_DELAYS_MS.map((ms) => (ms < 60_000 ? `${ms / 1000} s` : `${ms / 60_000} min`));
    expect(summary("Webhook retries")).toContain(waits.join(", "));
  });

  it("refuses a paragraph in a row and a row without its link", () => {
    const table = (row: string) =>
      `\n${SECTION}\n\n| Open question | The sandbox's choice, in short |\n| --- | --- |\n${row}\n\n${DETAIL}\n\n#### A\n\nlong text\n`;
    expect(readPicks(table("| [A](#a) | short |")).rows).toEqual([{ question: "A", anchor: "a", summary: "short" }]);
    expect(() => readPicks(table("| A | a whole paragraph |"))).toThrow(/without a link/);
    expect(() => readPicks("# none")).toThrow(/no "## How the sandbox/);
  });
});
