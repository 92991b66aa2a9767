import { describe, expectTypeOf, it } from "vitest";
import type { components } from "../../generated/schema.d.ts";
import {
  constructWebhookEvent,
  createWebhookHandler,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookPayloadOf,
} from "../../src/webhooks/index.ts";

describe("WebhookEvent", () => {
  it("is discriminated on type, so payload narrows", () => {
    const event = constructWebhookEvent("{}", "sig", "secret");
    // Before narrowing, payload is the union of all six payloads.
    expectTypeOf(event.payload).not.toEqualTypeOf<WebhookPayloadOf<"company.kyc_status_changed">>();
    if (event.type === "company.kyc_status_changed") {
      expectTypeOf(event).toEqualTypeOf<components["schemas"]["CompanyKycStatusChangedEvent"]>();
      expectTypeOf(event.payload).toEqualTypeOf<WebhookPayloadOf<"company.kyc_status_changed">>();
      expectTypeOf(event.payload.kycStatus).toEqualTypeOf<components["schemas"]["KycStatus"] | undefined>();
      // @ts-expect-error once narrowed, type cannot be another event's
      if (event.type === "payment_route.created") return;
    }
    if (event.type === "payment_route.created") {
      expectTypeOf(event.payload).toEqualTypeOf<WebhookPayloadOf<"payment_route.created">>();
      expectTypeOf(event.payload.paymentRoute).toEqualTypeOf<components["schemas"]["PaymentRoute"] | undefined>();
    }
    if (event.type === "payment_route.transaction.created" && event.payload.data?.routeType === "onramp") {
      expectTypeOf(event.payload.data).toEqualTypeOf<components["schemas"]["OnrampTransactionData"]>();
      expectTypeOf(event.payload.data.senderName).toEqualTypeOf<string | undefined>();
    }
    switch (event.type) {
      case "company.kyc_link.issued":
        expectTypeOf(event.payload).toEqualTypeOf<WebhookPayloadOf<"company.kyc_link.issued">>();
        expectTypeOf(event.payload.kycUrl).toEqualTypeOf<string | undefined>();
        break;
      default:
        expectTypeOf(event.type).not.toEqualTypeOf<"company.kyc_link.issued">();
    }
  });

  it("types each payload as exactly its own, open only where the source shows no fields", () => {
    expectTypeOf<WebhookPayloadOf<"payment_route.created">>().toEqualTypeOf<
      components["schemas"]["PaymentRouteCreatedPayload"]
    >();
    expectTypeOf<WebhookPayloadOf<"company.kyc_status_changed">>().toEqualTypeOf<{
      companyId?: components["schemas"]["Ulid"];
      kycStatus?: components["schemas"]["KycStatus"];
    }>();
    expectTypeOf<WebhookPayloadOf<"company.onboarding_status_changed">>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<WebhookPayloadOf<"company.kyb_status_changed">>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<WebhookEventOf<"payment_route.created">["id"]>().toEqualTypeOf<string>();
    expectTypeOf<WebhookEventOf<"payment_route.created">["createdAt"]>().toEqualTypeOf<string>();

    const routeCreated = {} as WebhookEventOf<"payment_route.created">;
    // @ts-expect-error kycStatus belongs to company.kyc_status_changed, not to payment_route.created
    routeCreated.payload.kycStatus;
    const kycChanged = {} as WebhookEventOf<"company.kyc_status_changed">;
    // @ts-expect-error paymentRoute belongs to payment_route.created
    kycChanged.payload.paymentRoute;
    // The two payloads the source does not show stay open records.
    const kybChanged = {} as WebhookEventOf<"company.kyb_status_changed">;
    expectTypeOf(kybChanged.payload.anyField).toEqualTypeOf<unknown>();
  });

  it("is derived from the generated components, not a copy", () => {
    expectTypeOf<Extract<WebhookEvent, { type: "payment_route.created" }>>().toEqualTypeOf<
      components["schemas"]["PaymentRouteCreatedEvent"]
    >();
    expectTypeOf<WebhookPayloadOf<"company.kyc_status_changed">>().toEqualTypeOf<
      components["schemas"]["CompanyKycStatusChangedEvent"]["payload"]
    >();
    expectTypeOf<WebhookEventType>().toEqualTypeOf<
      | "company.onboarding_status_changed"
      | "company.kyc_link.issued"
      | "company.kyc_status_changed"
      | "payment_route.created"
      | "payment_route.transaction.created"
      | "company.kyb_status_changed"
    >();
  });

  it("types handler arguments by their key, and refuses unknown keys", () => {
    createWebhookHandler({
      secrets: "s",
      on: {
        "company.kyc_status_changed": (event) => {
          expectTypeOf(event.type).toEqualTypeOf<"company.kyc_status_changed">();
          expectTypeOf(event.payload.kycStatus).toEqualTypeOf<components["schemas"]["KycStatus"] | undefined>();
        },
        // @ts-expect-error not an event type of the contract
        "company.kyc_status_change": () => undefined,
      },
    });
  });

  it("takes the raw body only", () => {
    // @ts-expect-error a parsed object is not a raw body
    constructWebhookEvent({ id: "evt" }, "sig", "secret");
    // @ts-expect-error a number is not a header value
    constructWebhookEvent("{}", 42, "secret");
    constructWebhookEvent(new Uint8Array(), null, ["old", "new"]);
  });
});
