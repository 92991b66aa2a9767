/**
 * partner-api-client for Node: the public surface (./index.web.ts, listed there name by name) and the three
 * webhook functions that use node:crypto, which the root for browsers and workers leaves out.
 */

export * from "./index.web.ts";
export { constructWebhookEvent, signWebhookPayload, verifyWebhookSignature } from "./webhooks/node.ts";
