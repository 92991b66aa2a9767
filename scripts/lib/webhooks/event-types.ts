/**
 * Renders src/webhooks/event-types.generated.ts: the runtime list of webhook event types, read from the
 * `webhooks` keys of the bundled contract, so the list can never drift from the contract by hand.
 */
import path from "node:path";
import { repoRoot } from "../paths.ts";

export const eventTypesModulePath = path.join(repoRoot, "src", "webhooks", "event-types.generated.ts");

/** The webhook event types of a bundled document, in contract order. */
export function contractEventTypes(document: Record<string, unknown>): string[] {
  const webhooks = document.webhooks;
  if (!webhooks || typeof webhooks !== "object") throw new Error("the bundled contract has no `webhooks` map");
  return Object.keys(webhooks);
}

/** The TypeScript module holding the event types of a bundled document. */
export function renderEventTypesModule(document: Record<string, unknown>): string {
  const items = contractEventTypes(document).map((type) => `  ${JSON.stringify(type)},`);
  return `/**
 * Generated from the \`webhooks\` keys of generated/openapi.json (scripts/lib/webhooks/event-types.ts).
 * Do not edit: change the contract under openapi/ and run \`npm run generate\`.
 */
import type { webhooks } from "../../generated/schema.d.ts";

export const webhookEventTypes = [
${items.join("\n")}
] as const satisfies readonly (keyof webhooks)[];

// Fails to compile when the list above misses a key of the generated \`webhooks\` interface.
type AssertNone<T extends never> = T;
export type UnlistedEventTypes = AssertNone<Exclude<keyof webhooks, (typeof webhookEventTypes)[number]>>;
`;
}
