/**
 * Webhooks on the sandbox clock: each event goes to each endpoint signed with X-Signature, retried on a
 * non-2xx answer or a network error after 10 s, 30 s, 1 min, 2 min and 5 min of clock time, the same body
 * every time; the delivery log shows each attempt; resend starts a new series.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { type Receiver, startReceiver } from "../../scripts/lib/receiver.ts";
import { verifyWebhookSignature } from "../../src/webhooks/index.ts";
import { clientFor, ONBOARD_BODY } from "./support.ts";

let sandbox: Sandbox;
const servers: Receiver[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 2 });
});
afterEach(() => {
  return Promise.all(servers.splice(0).map((receiver) => receiver.close()));
});
afterAll(() => sandbox.stop());

const advance = (seconds: number) => sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds } });
const secondsBetween = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 1000;

describe("delivery and retries", () => {
  it("a receiver answering 500 then 200 gets the same signed body twice, 10 s apart on the clock", async () => {
    const hook = await startReceiver([500, 200]);
    servers.push(hook);
    const client = clientFor(sandbox.url, "hooks-a");
    const endpoint = await client.post("/_sandbox/webhook-endpoints", { url: hook.url, secret: "whsec_a" });
    expect(endpoint.status).toBe(201);
    await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    await advance(0);
    expect(hook.deliveries).toHaveLength(1);
    await advance(9);
    expect(hook.deliveries).toHaveLength(1);
    await advance(1);
    expect(hook.deliveries).toHaveLength(2);
    expect(hook.deliveries[1]!.body).toBe(hook.deliveries[0]!.body);
    for (const { body, signature } of hook.deliveries)
      expect(verifyWebhookSignature(body, signature, "whsec_a")).toBe(true);
    const [event] = (await client.get("/_sandbox/events")).body.events;
    expect(JSON.parse(hook.deliveries[0]!.body).id).toBe(event.id);
    expect(event.deliveries.map((d: { attempt: number; statusCode: number }) => [d.attempt, d.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(secondsBetween(event.deliveries[0].at, event.deliveries[1].at)).toBe(10);
  });

  it.each([302, 307])(
    "a receiver answering %i is not followed: the attempt failed, the redirect target gets nothing, the retry 10 s later reaches the receiver",
    async (redirect) => {
      const target = await startReceiver([200]);
      servers.push(target);
      // Answers the first attempt with the redirect to `target`, then 200.
      const seen: { method: string; body: string }[] = [];
      const redirecting = createServer(async (request, response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        seen.push({ method: request.method ?? "", body: Buffer.concat(chunks).toString("utf8") });
        if (seen.length === 1) response.writeHead(redirect, { location: target.url }).end();
        else response.writeHead(200).end();
      });
      await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
      try {
        const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/hooks`;
        const client = clientFor(sandbox.url, `hooks-redirect-${redirect}`);
        await client.post("/_sandbox/webhook-endpoints", { url, secret: "s" });
        await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
        await advance(0);
        const [event] = (await client.get("/_sandbox/events")).body.events;
        expect(event.deliveries.map((d: { statusCode?: number }) => d.statusCode)).toEqual([redirect]);
        expect(target.requests).toBe(0);
        await advance(10);
        const [after] = (await client.get("/_sandbox/events")).body.events;
        expect(after.deliveries.map((d: { statusCode?: number }) => d.statusCode)).toEqual([redirect, 200]);
        expect(target.requests).toBe(0);
        // Both attempts were the signed POST of the same body, to the endpoint's own URL.
        expect(seen.map((request) => request.method)).toEqual(["POST", "POST"]);
        expect(seen[1]!.body).toBe(seen[0]!.body);
      } finally {
        redirecting.closeAllConnections();
        await new Promise((resolve) => redirecting.close(resolve));
      }
    },
  );

  it("an unreachable receiver is tried six times, 10 s, 30 s, 1 min, 2 min and 5 min apart, each a network error", async () => {
    const closed = await startReceiver([200]);
    await closed.close();
    const client = clientFor(sandbox.url, "hooks-b");
    await client.post("/_sandbox/webhook-endpoints", { url: closed.url, secret: "s" });
    await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    await advance(600);
    const [event] = (await client.get("/_sandbox/events")).body.events;
    const { deliveries } = event;
    expect(deliveries.map((d: { attempt: number }) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(
      deliveries.every((d: { error?: string; statusCode?: number }) => d.error && d.statusCode === undefined),
    ).toBe(true);
    const gaps = deliveries.slice(1).map((d: { at: string }, i: number) => secondsBetween(deliveries[i].at, d.at));
    expect(gaps).toEqual([10, 30, 60, 120, 300]);
    await advance(3600);
    expect((await client.get("/_sandbox/events")).body.events[0].deliveries).toHaveLength(6);
  });

  it("every event goes to each of the account's endpoints", async () => {
    const one = await startReceiver([200]);
    const two = await startReceiver([200]);
    servers.push(one, two);
    const client = clientFor(sandbox.url, "hooks-c");
    await client.post("/_sandbox/webhook-endpoints", { url: one.url, secret: "s1" });
    await client.post("/_sandbox/webhook-endpoints", { url: two.url, secret: "s2" });
    expect((await client.get("/_sandbox/webhook-endpoints")).body.webhookEndpoints).toHaveLength(2);
    await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    await advance(0);
    expect([one.deliveries.length, two.deliveries.length]).toEqual([1, 1]);
    expect(verifyWebhookSignature(two.deliveries[0]!.body, two.deliveries[0]!.signature, "s2")).toBe(true);
    // Each endpoint's own secret: the other's does not verify.
    expect(verifyWebhookSignature(two.deliveries[0]!.body, two.deliveries[0]!.signature, "s1")).toBe(false);
  });

  it("a removed endpoint gets no more attempts", async () => {
    const hook = await startReceiver([500]);
    servers.push(hook);
    const client = clientFor(sandbox.url, "hooks-d");
    const endpoint = await client.post("/_sandbox/webhook-endpoints", { url: hook.url, secret: "s" });
    await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    await advance(0);
    expect((await client.delete(`/_sandbox/webhook-endpoints/${endpoint.body.id}`)).status).toBe(204);
    await advance(600);
    expect(hook.deliveries).toHaveLength(1);
  });
});

describe("resend", () => {
  it("starts a new series of the same event and body, retried on the same schedule", async () => {
    const hook = await startReceiver([200, 503, 200]);
    servers.push(hook);
    const client = clientFor(sandbox.url, "hooks-e");
    await client.post("/_sandbox/webhook-endpoints", { url: hook.url, secret: "s" });
    await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
    await advance(0);
    const eventId = (await client.get("/_sandbox/events")).body.events[0].id;
    const resent = await client.post(`/_sandbox/events/${eventId}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body.id).toBe(eventId);
    await advance(0);
    await advance(10);
    expect(hook.deliveries.map((r) => r.body)).toEqual([
      hook.deliveries[0]!.body,
      hook.deliveries[0]!.body,
      hook.deliveries[0]!.body,
    ]);
    const { deliveries } = (await client.get("/_sandbox/events")).body.events[0];
    expect(deliveries.map((d: { attempt: number; statusCode: number }) => [d.attempt, d.statusCode])).toEqual([
      [1, 200],
      [1, 503],
      [2, 200],
    ]);
  });
});

describe("a receiver registered at start", () => {
  it("gets every account's events, and survives a reset", async () => {
    const hook = await startReceiver([200]);
    servers.push(hook);
    const withHook = await startSandbox({ port: 0, seed: 2, webhooks: { url: hook.url, secret: "start" } });
    try {
      const client = clientFor(withHook.url, "any-account");
      expect(
        (await client.get("/_sandbox/webhook-endpoints")).body.webhookEndpoints.map((e: { url: string }) => e.url),
      ).toEqual([hook.url]);
      await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] });
      await withHook.control.POST("/_sandbox/clock/advance", { body: { seconds: 0 } });
      expect(hook.deliveries).toHaveLength(1);
      expect((await withHook.control.POST("/_sandbox/reset")).response.status).toBe(204);
      expect((await client.get("/_sandbox/webhook-endpoints")).body.webhookEndpoints).toHaveLength(1);
    } finally {
      await withHook.stop();
    }
  });
});
