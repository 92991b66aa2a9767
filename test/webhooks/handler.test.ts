import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWebhookDeduper,
  createWebhookHandler,
  signWebhookPayload,
  type WebhookEvent,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type WebhookHandlerResult,
  WebhookRawBodyError,
} from "../../src/webhooks/index.ts";

const SECRET = "whsec_handler_test";

function envelope(
  id: string,
  type: string = "company.kyc_status_changed",
  payload: object = { companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X", kycStatus: "approved" },
) {
  return JSON.stringify({ id, type, payload, createdAt: "2026-11-21T09:12:44Z" });
}

interface SendOptions {
  signature?: string | null;
  method?: string;
  /** Stream the body without a content-length header. */
  chunked?: boolean;
}

type Send = (body: string, options?: SendOptions) => Promise<{ status: number; json: Record<string, unknown> }>;

function requestInit(body: string, options: SendOptions): RequestInit & { duplex?: "half" } {
  const signature = options.signature === undefined ? signWebhookPayload(body, SECRET) : options.signature;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== null) headers["x-signature"] = signature;
  const method = options.method ?? "POST";
  if (method === "GET") return { method, headers };
  if (!options.chunked) return { method, headers, body };
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
      controller.close();
    },
  });
  return { method, headers, body: stream, duplex: "half" };
}

/** Each adapter, behind the same `send`: a real Node http server on loopback, and a fetch-style call. */
const adapters: {
  name: string;
  mount: (handler: WebhookHandler) => Promise<{ send: Send; close: () => Promise<void> }>;
}[] = [
  {
    name: "Node http (req, res)",
    async mount(handler) {
      const server: Server = createServer((req, res) => void handler(req, res));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      return {
        async send(body, options = {}) {
          const response = await fetch(url, requestInit(body, options));
          return { status: response.status, json: (await response.json()) as Record<string, unknown> };
        },
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
  },
  {
    name: "fetch-style (Request → Response)",
    async mount(handler) {
      return {
        async send(body, options = {}) {
          const response = await handler(new Request("http://receiver.invalid/webhooks", requestInit(body, options)));
          return { status: response.status, json: (await response.json()) as Record<string, unknown> };
        },
        close: async () => undefined,
      };
    },
  },
];

describe.each(adapters)("createWebhookHandler with $name", ({ mount }) => {
  const received: WebhookEvent[] = [];
  const results: WebhookHandlerResult[] = [];
  let failuresLeft = 0;
  let send: Send;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const handler = createWebhookHandler({
      secrets: ["whsec_next", SECRET],
      maxBodyBytes: 4096,
      onResult: (result) => results.push(result),
      on: {
        "company.kyc_status_changed": (event) => {
          received.push(event);
        },
        "payment_route.created": async (event) => {
          if (failuresLeft > 0) {
            failuresLeft--;
            throw new Error("database unavailable");
          }
          received.push(event);
        },
      },
    });
    ({ send, close } = await mount(handler));
  });
  afterAll(() => close());

  it("answers 200 and dispatches a verified event to its typed handler", async () => {
    const response = await send(envelope("evt_handled"));
    expect(response).toEqual({ status: 200, json: { verdict: "handled", id: "evt_handled" } });
    expect(received.at(-1)).toMatchObject({ id: "evt_handled", payload: { kycStatus: "approved" } });
  });

  it("answers 200 without dispatching again for a duplicate", async () => {
    const before = received.length;
    const response = await send(envelope("evt_dup"));
    const again = await send(envelope("evt_dup"));
    expect(response.json.verdict).toBe("handled");
    expect(again).toEqual({ status: 200, json: { verdict: "duplicate", id: "evt_dup" } });
    expect(received.length).toBe(before + 1);
  });

  it("answers 200 'ignored' for a known event type without a handler", async () => {
    const response = await send(envelope("evt_ignored", "company.kyb_status_changed", {}));
    expect(response).toEqual({ status: 200, json: { verdict: "ignored", id: "evt_ignored" } });
  });

  it("accepts the older secret of a rotation", async () => {
    const body = envelope("evt_rotated");
    expect((await send(body, { signature: signWebhookPayload(body, "whsec_next") })).status).toBe(200);
  });

  it.each([
    ["a wrong signature", { signature: "0".repeat(64) }, /matches none of the signing secrets/],
    ["a missing signature", { signature: null }, /missing or empty/],
    ["a non-hex signature", { signature: "not-a-signature" }, /not 64 hex digits/],
  ])("answers 401 for %s and dispatches nothing", async (_, options, message) => {
    const before = received.length;
    const response = await send(envelope("evt_badsig"), options);
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ verdict: "bad_signature" });
    expect(String(response.json.error)).toMatch(message);
    expect(received.length).toBe(before);
  });

  it("answers 401 for a signed body that was changed on the way", async () => {
    const body = envelope("evt_tampered");
    const response = await send(body.replace("approved", "rejected"), { signature: signWebhookPayload(body, SECRET) });
    expect(response.status).toBe(401);
  });

  it.each([
    ["not JSON", "{not json", /not JSON/],
    ["not an envelope", JSON.stringify({ hello: "world" }), /"id" must be a non-empty string/],
    ["an unknown event type", envelope("evt_unknown", "card.created"), /unknown event type "card.created"/],
  ])("answers 400 for a correctly signed body that is %s", async (_, body, message) => {
    const response = await send(body);
    expect(response.status).toBe(400);
    expect(response.json.verdict).toBe("bad_body");
    expect(String(response.json.error)).toMatch(message);
  });

  it.each([false, true])("answers 413 for a body over maxBodyBytes (streamed without length: %s)", async (chunked) => {
    const body = envelope("evt_big", "company.kyc_status_changed", { note: "x".repeat(10_000) });
    const response = await send(body, { chunked });
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ verdict: "too_large" });
    expect(String(response.json.error)).toMatch(/maxBodyBytes \(4096 bytes\)/);
  });

  it("reads a streamed body under the limit", async () => {
    expect((await send(envelope("evt_streamed"), { chunked: true })).status).toBe(200);
  });

  it("answers 500 when the handler fails, without leaking its error, and processes the retry", async () => {
    failuresLeft = 2;
    const body = envelope("evt_retry", "payment_route.created", { companyId: "01JD8X2K7P3M9Q4R6S8T0V2W4X" });
    const statuses = [];
    for (let attempt = 0; attempt < 4; attempt++) statuses.push(await send(body));
    expect(statuses.map((s) => s.status)).toEqual([500, 500, 200, 200]);
    expect(statuses.map((s) => s.json.verdict)).toEqual(["handler_failed", "handler_failed", "handled", "duplicate"]);
    expect(JSON.stringify(statuses[0]!.json)).not.toContain("database unavailable");
    expect(received.filter((e) => e.id === "evt_retry")).toHaveLength(1);
    const failed = results.find((r) => r.verdict === "handler_failed" && r.event?.id === "evt_retry");
    expect((failed?.error as Error | undefined)?.message).toBe("database unavailable");
  });

  it("answers 405 to anything but POST", async () => {
    const response = await send("", { method: "GET" });
    expect(response.status).toBe(405);
    expect(response.json.verdict).toBe("method_not_allowed");
  });
});

describe("createWebhookHandler behind body-parsing middleware (Express style)", () => {
  function fakeReqRes(body: unknown, signature: string) {
    const res = {
      statusCode: 0,
      headers: {} as Record<string, string>,
      sent: "",
      setHeader(n: string, v: string) {
        this.headers[n] = v;
      },
      end(b: string) {
        this.sent = b;
      },
    };
    const req = {
      method: "POST",
      headers: { "x-signature": signature },
      body,
      on: () => req,
      removeAllListeners: () => req,
      resume: () => req,
    };
    return { req, res };
  }

  it("verifies a raw Buffer body (express.raw)", async () => {
    const seen: string[] = [];
    const handler = createWebhookHandler({
      secrets: SECRET,
      on: { "company.kyc_status_changed": (e) => void seen.push(e.id) },
    });
    const body = envelope("evt_express");
    const { req, res } = fakeReqRes(Buffer.from(body), signWebhookPayload(body, SECRET));
    await handler(req, res);
    expect(res.statusCode).toBe(200);
    expect(seen).toEqual(["evt_express"]);
  });

  it("refuses an already-parsed body (express.json) with 500 and the raw-body explanation", async () => {
    const results: WebhookHandlerResult[] = [];
    const handler = createWebhookHandler({ secrets: SECRET, on: {}, onResult: (r) => results.push(r) });
    const body = envelope("evt_parsed");
    const { req, res } = fakeReqRes(JSON.parse(body), signWebhookPayload(body, SECRET));
    await handler.node(req, res);
    expect(res.statusCode).toBe(500);
    expect(results[0]?.error).toBeInstanceOf(WebhookRawBodyError);
    expect((results[0]?.error as Error | undefined)?.message).toMatch(/req\.body must be the raw request body/);
  });
});

describe("createWebhookHandler options", () => {
  const valid: WebhookHandlerOptions = { secrets: SECRET, on: {} };
  it.each([
    ["no secrets", { ...valid, secrets: [] }, /options\.secrets is an empty list/],
    ["an empty secret", { ...valid, secrets: "" }, /options\.secrets is empty/],
    [
      "a handler for an unknown type",
      { ...valid, on: { "card.created": () => 1 } },
      /unknown event type "card.created"/,
    ],
    [
      "a handler that is not a function",
      { ...valid, on: { "payment_route.created": "yes" } },
      /options\.on\["payment_route\.created"\] must be a function/,
    ],
    ["a bad maxBodyBytes", { ...valid, maxBodyBytes: 0 }, /options\.maxBodyBytes must be a positive integer/],
  ])("refuses %s, naming it", (_, options, message) => {
    expect(() => createWebhookHandler(options as WebhookHandlerOptions)).toThrow(message);
  });

  it("can run without dedupe, or with a shared deduper", async () => {
    let count = 0;
    const body = envelope("evt_same");
    const signature = signWebhookPayload(body, SECRET);
    const plain = createWebhookHandler({
      ...valid,
      dedupe: false,
      on: { "company.kyc_status_changed": () => void count++ },
    });
    await plain.handle(body, signature);
    await plain.handle(body, signature);
    expect(count).toBe(2);
    const shared = createWebhookDeduper();
    const a = createWebhookHandler({
      ...valid,
      dedupe: shared,
      on: { "company.kyc_status_changed": () => void count++ },
    });
    const b = createWebhookHandler({
      ...valid,
      dedupe: shared,
      on: { "company.kyc_status_changed": () => void count++ },
    });
    expect((await a.handle(body, signature)).verdict).toBe("handled");
    expect((await b.handle(body, signature)).verdict).toBe("duplicate");
    expect(count).toBe(3);
  });
});

describe("createWebhookHandler on Node, a sender that goes away mid-body", () => {
  it("resolves without answering (no unhandled rejection to end the receiver), and serves the next request", async () => {
    const settled: string[] = [];
    const handler = createWebhookHandler({ secrets: ["whsec_abort"], on: {} });
    const server: Server = createServer((req, res) => {
      handler.node(req, res).then(
        () => settled.push("resolved"),
        (error: Error) => settled.push(`rejected: ${error.message}`),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const socket = connect(port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{");
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await expect.poll(() => settled).toEqual(["resolved"]);
      expect((await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" })).status).toBe(401);
    } finally {
      server.close();
    }
  });
});
