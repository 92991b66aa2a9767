/**
 * Generated from the `webhooks` keys of generated/openapi.json (scripts/lib/webhooks/event-types.ts).
 * Do not edit: change the contract under openapi/ and run `npm run generate`.
 */
import type { webhooks } from "../../generated/schema.d.ts";

export const webhookEventTypes = [
  "company.onboarding_status_changed",
  "company.kyc_link.issued",
  "company.kyc_status_changed",
  "payment_route.created",
  "payment_route.transaction.created",
  "company.kyb_status_changed",
] as const satisfies readonly (keyof webhooks)[];

// Fails to compile when the list above misses a key of the generated `webhooks` interface.
type AssertNone<T extends never> = T;
export type UnlistedEventTypes = AssertNone<Exclude<keyof webhooks, (typeof webhookEventTypes)[number]>>;
