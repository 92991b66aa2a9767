/**
 * createSandboxHandlers (partner-api-devkit/msw) in this process, from source: its options refused with errors
 * that name them, the partner and control APIs through MSW's setupServer with `onUnhandledFrame: "error"`,
 * the same contract validation as the HTTP sandbox, a fault that drops a call as a network error, the request
 * log's stream as a streamed body, and `answer()` without MSW. The whole onboarding through the packed packages:
 * installed.test.ts.
 */
import { http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxHandlers, DEFAULT_BASE_URL } from "../../devkit/src/msw/index.ts";
import { createPartnerClient, signWebhookPayload, verifyWebhookSignature } from "../../src/index.ts";
import { ONBOARD_BODY } from "../sandbox/support.ts";

const BASE = "https://sandbox.example.test";
const RECEIVER = "https://app.example.test/hooks";
const SECRET = "whsec_msw";
const sandbox = createSandboxHandlers({ baseUrl: BASE, seed: 3, webhooks: { url: RECEIVER, secret: SECRET } });
const deliveries: { body: string; signature: string | null; attempt: number }[] = [];
let failNext = 0;
const server = setupServer(
  ...sandbox.handlers,
  http.post(RECEIVER, async ({ request }) => {
    deliveries.push({
      body: await request.text(),
      signature: request.headers.get("x-signature"),
      attempt: deliveries.length,
    });
    if (failNext > 0) {
      failNext--;
      return new Response(null, { status: 500 });
    }
    return new Response(null, { status: 204 });
  }),
);

beforeAll(() => server.listen({ onUnhandledFrame: "error" }));
afterAll(async () => {
  server.close();
  await sandbox.stop();
});

describe("createSandboxHandlers", () => {
  it("refuses bad options by name", () => {
    expect(() => createSandboxHandlers({ baseUrl: "ftp://x" })).toThrow(/baseUrl must be an http\(s\) URL/);
    expect(() => createSandboxHandlers({ seed: -1 })).toThrow(/seed must be a non-negative integer, got -1/);
    expect(() => createSandboxHandlers({ port: 1 } as never)).toThrow(/unknown option "port"/);
    expect(() => createSandboxHandlers({ webhooks: { url: "x", secret: "s" } })).toThrow(/webhooks.url/);
    expect(() => createSandboxHandlers({ startTime: "yesterday" })).toThrow(/startTime/);
  });

  it("defaults to the contract's sandbox address, under .invalid", () => {
    expect(DEFAULT_BASE_URL).toBe("https://sandbox.partner-api.invalid");
    expect(createSandboxHandlers().baseUrl).toBe(DEFAULT_BASE_URL);
  });

  it("serves the partner API with its validation, state per key, and the control API", async () => {
    const client = createPartnerClient({ apiKey: "msw-a", baseUrl: BASE });
    const { data, response } = await client.GET("/v1/companies");
    expect(response.status).toBe(200);
    expect(data!.companies!.length).toBe(1);
    const bad = await fetch(`${BASE}/v1/companies`, {
      method: "POST",
      headers: { "x-api-key": "msw-a", "content-type": "application/json" },
      body: "{",
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).title).toBe("Malformed JSON");
    expect((await fetch(`${BASE}/v1/companies`)).status).toBe(401);
    expect((await fetch(`${BASE}/v1/nowhere`)).status).toBe(404);
    const { data: clock } = await sandbox.control.GET("/_sandbox/clock");
    expect(clock!.frozen).toBe(false);
    const { data: accounts } = await sandbox.control.GET("/_sandbox/accounts");
    expect(accounts!.accounts.length).toBe(1);
  });

  it("delivers signed webhooks by fetch, retried on the sandbox's clock", async () => {
    const control = sandbox.controlFor("msw-b", { throwOnError: true });
    failNext = 1;
    const before = deliveries.length;
    // Onboarding with Swap sends company.kyc_link.issued.
    const onboarded = await createPartnerClient({ apiKey: "msw-b", baseUrl: BASE }).POST("/v1/companies", {
      body: { ...ONBOARD_BODY, products: ["Swap"] },
    });
    expect(onboarded.response.status).toBe(201);
    const waitFor = async (count: number) => {
      const deadline = Date.now() + 5_000;
      while (deliveries.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    };
    await waitFor(before + 1);
    expect(deliveries.length).toBe(before + 1);
    // The retry waits 10 s of the sandbox's clock, not of the test's.
    await control.POST("/_sandbox/clock/advance", { body: { seconds: 10 } });
    await waitFor(before + 2);
    const [first, second] = deliveries.slice(before);
    expect(second!.body).toBe(first!.body);
    expect(verifyWebhookSignature(second!.body, second!.signature, SECRET)).toBe(true);
    expect(second!.signature).toBe(signWebhookPayload(second!.body, SECRET));
    expect(JSON.parse(second!.body).type).toBe("company.kyc_link.issued");
  });

  it("a fault that drops the call is a network error; the request log streams", async () => {
    const control = sandbox.controlFor("msw-c", { throwOnError: true });
    await control.POST("/_sandbox/faults", { body: { operationId: "listCompanies", drop: true, times: 1 } });
    const client = createPartnerClient({ apiKey: "msw-c", baseUrl: BASE, retry: false });
    await expect(client.GET("/v1/companies")).rejects.toThrow();
    const stream = await fetch(`${BASE}/_sandbox/requests/stream`, { headers: { "x-api-key": "msw-c" } });
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = stream.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toMatch(/listCompanies|:/);
    await reader.cancel();
  });

  it("answers a Request without MSW, and 503 once stopped", async () => {
    const own = createSandboxHandlers({ seed: 5 });
    const answered = await own.answer(new Request(`${own.baseUrl}/_sandbox/clock`));
    expect(answered.status).toBe(200);
    await own.stop();
    expect((await own.answer(new Request(`${own.baseUrl}/_sandbox/clock`))).status).toBe(503);
  });
});
