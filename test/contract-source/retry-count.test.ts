/**
 * One webhook retry count everywhere: the contract's webhook texts, the webhook kit's sender (which the sandbox
 * delivers with), the control contract's delivery log and the partners' guide say the same number of retries,
 * after the same waits, as the sender does.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DELIVERY_ATTEMPTS, RETRY_DELAYS_MS } from "../../devkit/src/webhooks/deliver.ts";
import { repoRoot, sandboxBundleJsonPath } from "../../scripts/lib/paths.ts";
import { loadDocument } from "../contract/support/contract.ts";

const WAITS = "10 s, 30 s, 1 min, 2 min and 5 min";
const retries = RETRY_DELAYS_MS.length;

describe("the webhook retry count", () => {
  it("is the sender's: one retry per wait of the schedule, the first attempt besides", () => {
    expect(RETRY_DELAYS_MS).toEqual([10_000, 30_000, 60_000, 120_000, 300_000]);
    expect(DELIVERY_ATTEMPTS).toBe(retries + 1);
  });

  it("is the one every webhook of the contract states, with the same waits", () => {
    const { webhooks } = loadDocument() as { webhooks: Record<string, { post: { description: string } }> };
    for (const [name, webhook] of Object.entries(webhooks)) {
      const text = webhook.post.description.replace(/\s+/g, " ");
      expect(text, name).toContain(`up to ${retries} retries, after ${WAITS}.`);
      expect(text, name).not.toMatch(/\battempts\b/);
    }
  });

  it("is the one the control contract's delivery log counts", () => {
    const control = JSON.parse(readFileSync(sandboxBundleJsonPath, "utf8"));
    const attempt = control.components.schemas.WebhookDelivery.properties.attempt.description as string;
    expect(attempt).toContain(`up to ${DELIVERY_ATTEMPTS} (five retries)`);
  });

  it("is the one the partners' guide gives, its reading among the sandbox's picks", () => {
    const guide = readFileSync(path.join(repoRoot, "docs", "partners.md"), "utf8");
    // The pick's detail section (its row in the table is a one-line summary: test/docs/picks-table.test.ts).
    const lines = guide.split("\n");
    const row = lines[lines.indexOf("#### Webhook retries") + 2];
    expect(row).toContain(`${retries} retries after the first delivery, ${DELIVERY_ATTEMPTS} attempts in all`);
    expect(row).toContain('"at most 5 attempts, at intervals of');
    expect(guide).toContain(`retries a failed delivery up to ${retries} times`);
    expect(guide).not.toMatch(/\bup to 6 attempts\b/i);
  });
});
