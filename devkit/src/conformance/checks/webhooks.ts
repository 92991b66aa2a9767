/** The checks of a webhook delivery: its signature, media type, event type and schema. */
import { verifyWebhookSignature } from "partner-api-client";
import type { Delivery, Finding } from "../types.ts";
import { type CheckContext, excerpt, isJsonMediaType, mediaTypeOf } from "./define.ts";

export function webhookSignature(delivery: Delivery, context: CheckContext): Finding[] {
  const secret = context.webhookSecrets?.get(delivery.account);
  if (secret === undefined) return [];
  if (verifyWebhookSignature(delivery.raw, delivery.signature, secret)) return [];
  const others = [...(context.webhookSecrets ?? [])].filter(([account]) => account !== delivery.account);
  const mixedUp = others.find(([, other]) => verifyWebhookSignature(delivery.raw, delivery.signature, other));
  return [
    {
      message:
        delivery.signature === undefined
          ? "no X-Signature header"
          : mixedUp
            ? `X-Signature is the HMAC-SHA256 of the body under the ${mixedUp[0]} account's signing secret, not the ${delivery.account} account's: another account's secret`
            : `X-Signature ${excerpt(delivery.signature, 70)} is not the HMAC-SHA256 of the body under the ${delivery.account} account's signing secret`,
    },
  ];
}

/** The API description: every body is JSON. A delivery without a JSON Content-Type fails. */
export function webhookContentType(delivery: Delivery): Finding[] {
  const type = mediaTypeOf(delivery.contentType ?? null);
  if (type === undefined) return [{ message: "no Content-Type header; every body of this API is application/json" }];
  if (isJsonMediaType(type)) return [];
  return [{ message: `Content-Type ${type}; every body of this API is JSON (application/json)` }];
}

function envelopeType(delivery: Delivery): unknown {
  return (delivery.json as { type?: unknown } | undefined)?.type;
}

export function webhookEventType(delivery: Delivery, context: CheckContext): Finding[] {
  if (delivery.json === undefined) return [{ message: "the body is not JSON" }];
  const type = envelopeType(delivery);
  if (typeof type === "string" && context.router.webhooks.has(type)) return [];
  return [
    {
      message: `event type ${JSON.stringify(type)} is not one the contract names (${[...context.router.webhooks.keys()].join(", ")})`,
      jsonPath: "/type",
    },
  ];
}

export function webhookSchemaConformance(delivery: Delivery, context: CheckContext): Finding[] {
  const type = envelopeType(delivery);
  if (typeof type !== "string") return [];
  const issues = context.router.validateWebhook(type, delivery.json);
  return (issues ?? []).map((issue) => ({
    message: issue.message,
    jsonPath: `/${issue.location.slice(1).join("/")}`,
    ...(issue.rule ? { rule: issue.rule } : {}),
  }));
}
