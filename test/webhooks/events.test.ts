import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readContractWebhooks } from "../../devkit/src/webhooks/contract.ts";
import { generateContractModule } from "../../scripts/lib/generate.ts";
import { bundleJsonPath } from "../../scripts/lib/paths.ts";
import { isWebhookEventType, parseWebhookEvent, webhookEventTypes } from "../../src/webhooks/index.ts";

const contract = JSON.parse(readFileSync(bundleJsonPath, "utf8")) as { webhooks: Record<string, unknown> };

describe("the runtime list of event types", () => {
  it("equals the webhooks keys of the bundled contract, in order", () => {
    expect([...webhookEventTypes]).toEqual(Object.keys(contract.webhooks));
    expect(webhookEventTypes).toHaveLength(6);
  });

  it("is generated from whatever the contract holds (generated/contract.ts; its freshness is checked by npm run generate -- --check)", () => {
    const rendered = generateContractModule({ ...contract, webhooks: { "a.b": {}, "c.d": {} } });
    expect(rendered).toContain('export const webhookEventTypes = [\n  "a.b",\n  "c.d"\n] as const');
    expect(() => generateContractModule({ ...contract, webhooks: undefined })).toThrow(/no `webhooks` map/);
  });

  it("tells known types from unknown ones", () => {
    expect(isWebhookEventType("payment_route.created")).toBe(true);
    expect(isWebhookEventType("payment_route.deleted")).toBe(false);
    expect(isWebhookEventType(42)).toBe(false);
  });
});

describe("the contract's examples", () => {
  it("give every event type a named example whose envelope parses as that type", async () => {
    const webhooks = await readContractWebhooks();
    expect(webhooks.map((w) => w.type)).toEqual([...webhookEventTypes]);
    for (const webhook of webhooks) {
      const event = parseWebhookEvent(JSON.stringify(webhook.example));
      expect(event.type).toBe(webhook.type);
      expect(event.payload).toEqual(webhook.example.payload);
    }
  });
});

describe("the package entry", () => {
  it("exports the webhook kit", async () => {
    const entry = await import("../../src/index.ts");
    const kit = await import("../../src/webhooks/index.ts");
    for (const name of Object.keys(kit))
      expect(entry[name as keyof typeof entry], name).toBe(kit[name as keyof typeof kit]);
    expect(Object.keys(kit)).toEqual(
      expect.arrayContaining(["createWebhookHandler", "constructWebhookEvent", "verifyWebhookSignatureAsync"]),
    );
  });
});
