/** The control API: reset, the clock, card holders, wallets, status changes and their events, hosted pages. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxControl, type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { ApiError } from "../../src/index.ts";
import { approvedCompany, clientFor, KYB_PROFILE_BODY, ONBOARD_BODY, request, seededCompany } from "./support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    seed: 21,
    cardIssuingSeconds: 20,
    kybReviewSeconds: 10,
    startTime: "2030-01-01T00:00:00Z",
  });
});
afterAll(() => sandbox.stop());

const eventTypes = async (client: ReturnType<typeof clientFor>) =>
  (await client.get("/_sandbox/events")).body.events.map((e: { type: string }) => e.type);

describe("the clock", () => {
  it("starts at startTime, follows real time, and advance moves it by the given seconds", async () => {
    const before = (await sandbox.control.GET("/_sandbox/clock")).data!.now;
    expect(Date.parse(before)).toBeGreaterThanOrEqual(Date.parse("2030-01-01T00:00:00Z"));
    expect(Date.parse(before)).toBeLessThan(Date.parse("2030-01-01T00:10:00Z"));
    const advanced = await sandbox.control.POST("/_sandbox/clock/advance", { body: { seconds: 3600 } });
    expect(Date.parse(advanced.data!.now) - Date.parse(before)).toBeGreaterThanOrEqual(3_600_000);
    expect(Date.parse(advanced.data!.now) - Date.parse(before)).toBeLessThan(3_660_000);
  });

  it("refuses a negative advance naming seconds", async () => {
    const answer = await request(sandbox.url, "POST", "/_sandbox/clock/advance", { body: { seconds: -1 } });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain("seconds");
  });

  it("runs everything that falls due, in due order, before advance returns", async () => {
    const client = clientFor(sandbox.url, "clock-order");
    const { companyId, cardHolderId } = await seededCompany(client);
    await client.post("/v1/cards", { cardHolderId, name: "C", category: "Other", bin: "45671234" }, { companyId });
    await client.post("/v1/kyb-profiles", KYB_PROFILE_BODY, { companyId });
    const advanced = await client.post("/_sandbox/clock/advance", { seconds: 25 });
    const card = (await client.get("/v1/cards", { companyId })).body.cards[0];
    expect(card.status).toBe("Active");
    const [kyb] = (await client.get("/_sandbox/events")).body.events;
    expect(kyb.type).toBe("company.kyb_status_changed");
    // The review (10 s) fell due before the card (20 s), and ran with the clock at its own due time.
    expect(Date.parse(advanced.body.now) - Date.parse(kyb.createdAt)).toBeGreaterThanOrEqual(15_000);
  });
});

describe("real time", () => {
  it("without advancing, timed work runs on its own as the clock follows real time times the speed", async () => {
    const fast = await startSandbox({ port: 0, seed: 21, speed: 1000, cardIssuingSeconds: 10 });
    try {
      const client = clientFor(fast.url, "real-time");
      const { companyId, cardHolderId } = await seededCompany(client);
      await client.post("/v1/cards", { cardHolderId, name: "C", category: "Other", bin: "45671234" }, { companyId });
      const started = performance.now();
      let status = "Creating";
      while (status === "Creating" && performance.now() - started < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        status = (await client.get("/v1/cards", { companyId })).body.cards[0].status;
      }
      expect(status).toBe("Active");
    } finally {
      await fast.stop();
    }
  });
});

describe("reset", () => {
  it("goes back to the seeded state for every account and cancels pending work", async () => {
    const client = clientFor(sandbox.url, "reset-me");
    const seeded = await seededCompany(client);
    await client.post("/v1/companies", ONBOARD_BODY);
    await client.post("/v1/kyb-profiles", KYB_PROFILE_BODY, { companyId: seeded.companyId });
    expect((await client.post("/_sandbox/reset")).status).toBe(204);
    const companies = (await client.get("/v1/companies")).body.companies;
    expect(companies.map((c: { id: string }) => c.id)).toEqual([seeded.companyId]);
    await client.post("/_sandbox/clock/advance", { seconds: 60 });
    expect(await eventTypes(client)).toEqual([]);
  });
});

describe("companies through the control API: holders, wallets and statuses", () => {
  it("card holders: created, listed, readable with getCardHolder and usable for createCard", async () => {
    const client = clientFor(sandbox.url, "holders");
    const { companyId } = await seededCompany(client);
    const created = await client.post(`/_sandbox/companies/${companyId}/card-holders`, {
      name: "Jane Doe",
      email: "jane@example.com",
    });
    expect(created.status).toBe(201);
    const id = created.body.cardHolder.id;
    // The seeded holder, the contract examples' holder, and this one.
    expect((await client.get(`/_sandbox/companies/${companyId}/card-holders`)).body.cardHolders).toHaveLength(3);
    expect((await client.get(`/v1/card-holders/${id}`, { companyId })).body.cardHolder.name).toBe("Jane Doe");
    const card = await client.post(
      "/v1/cards",
      { cardHolderId: id, name: "J", category: "Other", bin: "45671234" },
      { companyId },
    );
    expect(card.status).toBe(201);
    expect(
      (await client.post(`/_sandbox/companies/${companyId}/card-holders`, { name: "No mail", email: "nope" })).status,
    ).toBe(422);
  });

  it("wallets: created with their chains, listed, and usable for openWalletAddress", async () => {
    const client = clientFor(sandbox.url, "wallets");
    const { companyId } = await seededCompany(client);
    const created = await client.post(`/_sandbox/companies/${companyId}/wallets`, { currency: "USDT" });
    expect(created.body.wallet).toMatchObject({ currency: "USDT", defaultChain: "TRX" });
    // The seeded USDC wallet, the contract examples' wallet, and this one.
    expect((await client.get(`/_sandbox/companies/${companyId}/wallets`)).body.wallets).toHaveLength(3);
    const opened = await client.post(`/v1/wallets/${created.body.wallet.id}/addresses`, {}, { companyId });
    expect(opened.body.address.chain).toBe("TRX");
    expect(opened.body.address.address).toMatch(/^T/);
  });

  it("kyc-status, onboarding-status and kyb-result change the state and fire their events, once per change", async () => {
    const client = clientFor(sandbox.url, "statuses");
    const company = (await client.post("/v1/companies", { ...ONBOARD_BODY, products: ["Swap"] })).body.company;
    const base = `/_sandbox/companies/${company.id}`;
    const kyc = await client.post(`${base}/kyc-status`, { kycStatus: "under_review" });
    expect(kyc.body.company.swap.kycStatus).toBe("under_review");
    await client.post(`${base}/kyc-status`, { kycStatus: "under_review" });
    const onboarding = await client.post(`${base}/onboarding-status`, { status: "Active" });
    expect(onboarding.body.company.status).toBe("Active");
    expect((await client.post("/v1/kyb-profiles", KYB_PROFILE_BODY, { companyId: company.id })).status).toBe(201);
    expect((await client.post(`${base}/kyb-result`, { status: "REJECTED" })).body).toEqual({
      companyId: company.id,
      status: "REJECTED",
    });
    const events = (await client.get("/_sandbox/events")).body.events;
    expect(events.map((e: { type: string; payload: unknown }) => [e.type, e.payload])).toEqual([
      ["company.kyb_status_changed", { companyId: company.id, status: "REJECTED" }],
      ["company.onboarding_status_changed", { companyId: company.id, status: "Active" }],
      ["company.kyc_status_changed", { companyId: company.id, kycStatus: "under_review" }],
      ["company.kyc_link.issued", expect.objectContaining({ companyId: company.id })],
    ]);
    expect(
      (await client.get("/v1/companies")).body.companies.find((c: { id: string }) => c.id === company.id).status,
    ).toBe("Active");
    expect((await client.post(`${base}/kyc-status`, { kycStatus: "bogus" })).status).toBe(422);
  });
});

describe("companies through the control API: KYB, KYC and routes", () => {
  it("kyb-result announces only a result that changes a submission's status", async () => {
    const client = clientFor(sandbox.url, "kyb-results");
    const { companyId } = await seededCompany(client);
    const base = `/_sandbox/companies/${companyId}`;
    const kybEvents = async () =>
      ((await client.get("/_sandbox/events")).body.events as { type: string; payload: { status: string } }[])
        .filter((event) => event.type === "company.kyb_status_changed")
        .map((event) => event.payload.status);
    // No submission: the result is recorded, not announced.
    expect((await client.post(`${base}/kyb-result`, { status: "REJECTED" })).status).toBe(200);
    expect(await kybEvents()).toEqual([]);
    // A submission (SUBMITTED), then a result that changes it: announced once.
    expect((await client.post("/v1/kyb-profiles", KYB_PROFILE_BODY, { companyId })).status).toBe(201);
    await client.post(`${base}/kyb-result`, { status: "APPROVED" });
    expect(await kybEvents()).toEqual(["APPROVED"]);
    // The same result again changes nothing: no second event.
    await client.post(`${base}/kyb-result`, { status: "APPROVED" });
    expect(await kybEvents()).toEqual(["APPROVED"]);
    await client.post(`${base}/kyb-result`, { status: "REJECTED" });
    expect(await kybEvents()).toEqual(["REJECTED", "APPROVED"]);
    // A new submission's timed review ends APPROVED: a change from SUBMITTED, announced.
    await client.post("/v1/kyb-profiles", KYB_PROFILE_BODY, { companyId });
    await client.post("/_sandbox/clock/advance", { seconds: 60 });
    expect(await kybEvents()).toEqual(["APPROVED", "REJECTED", "APPROVED"]);
  });

  it("kyc-status of a company without Swap answers 422 naming the company", async () => {
    const client = clientFor(sandbox.url, "no-swap");
    const { companyId } = await seededCompany(client);
    const answer = await client.post(`/_sandbox/companies/${companyId}/kyc-status`, { kycStatus: "approved" });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain(companyId);
  });

  it("an inactive route refuses deposits; an off-ramp in a non-fiat currency is refused", async () => {
    const client = clientFor(sandbox.url, "routes");
    const companyId = await approvedCompany(client);
    const inactive = await client.post(`/_sandbox/companies/${companyId}/payment-routes`, {
      type: "onramp",
      status: "inactive",
    });
    expect(
      (await client.post(`/_sandbox/payment-routes/${inactive.body.paymentRoute.id}/deposits`, { amount: 5 })).status,
    ).toBe(422);
    expect(
      (await client.post(`/_sandbox/companies/${companyId}/payment-routes`, { type: "offramp", currency: "USDC" }))
        .status,
    ).toBe(422);
  });

  it("spending-account entries are listed as the ledger shows them (debits negative)", async () => {
    const client = clientFor(sandbox.url, "entries");
    const { companyId } = await seededCompany(client);
    const entry = await client.post(`/_sandbox/companies/${companyId}/spending-account/entries`, {
      type: "PaymentAcceptance",
      direction: "Debit",
      amount: 3,
    });
    expect(entry.body.entry.transaction.amount).toBe("-3.00");
    const listed = await client.get("/v1/card-spending-account/transactions", { companyId });
    expect(listed.body.transactions[0]).toEqual(entry.body.entry);
  });
});

describe("hosted pages", () => {
  it("the verification page moves kycStatus on and fires company.kyc_status_changed; the terms page sets tosAccepted", async () => {
    const client = clientFor(sandbox.url, "hosted");
    const { id, swap } = (
      await client.post("/v1/companies", {
        ...ONBOARD_BODY,
        products: ["Swap"],
        redirectUri: "https://partner.example/done",
      })
    ).body.company;
    const post = (url: string, form: Record<string, string>) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form),
      });
    const completed = await post(swap.kycUrl, { action: "complete" });
    expect(completed.status).toBe(200);
    const html = await completed.text();
    expect(html).toContain("approved");
    expect(html).toContain("https://partner.example/done");
    expect((await post(swap.kycUrl, { action: "dance" })).status).toBe(422);
    expect((await post(swap.tosUrl, { accept: "yes" })).status).toBe(200);
    const company = (await client.get("/v1/companies")).body.companies.find((c: { id: string }) => c.id === id);
    expect(company.swap).toMatchObject({ kycStatus: "approved", tosAccepted: true });
    expect(await eventTypes(client)).toEqual(["company.kyc_status_changed", "company.kyc_link.issued"]);
    expect((await fetch(`${sandbox.url}/_sandbox/hosted/kyc/01JD8X4M6Q2V7R9T3W5Y0Z1A2B`)).status).toBe(404);
  });
});

describe("the typed control client", () => {
  it("controlFor(apiKey) sends the account's key on every call", async () => {
    const control = sandbox.controlFor("typed");
    const created = await control.POST("/_sandbox/webhook-endpoints", {
      body: { url: "http://127.0.0.1:9/x", secret: "s" },
    });
    expect(created.response.status).toBe(201);
    const listed = await control.GET("/_sandbox/webhook-endpoints");
    expect(listed.data?.webhookEndpoints.map((e) => e.id)).toEqual([created.data?.id]);
    const withoutKey = await sandbox.control.GET("/_sandbox/webhook-endpoints");
    expect(withoutKey.response.status).toBe(401);
  });

  it("with throwOnError, resolves to data or throws ApiError naming the operation and the problem", async () => {
    const control = sandbox.controlFor("typed-throwing", { throwOnError: true });
    const { data } = await control.GET("/_sandbox/webhook-endpoints");
    expect(data.webhookEndpoints).toEqual([]);
    const failure = await control
      .POST("/_sandbox/companies/{companyId}/wallets", {
        params: { path: { companyId: "01JD8X4M6Q2V7R9T3W5Y0Z1A2B" } },
        body: { currency: "USDC" },
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({
      status: 404,
      method: "POST",
      path: "/_sandbox/companies/01JD8X4M6Q2V7R9T3W5Y0Z1A2B/wallets",
      operationId: "createWallet",
      declared: true,
      body: { detail: "company 01JD8X4M6Q2V7R9T3W5Y0Z1A2B does not exist in this account" },
    });
    // Any error answer is thrown; one with no operation, or a status the operation does not declare, is undeclared.
    const unauthorized = await sandbox
      .controlFor(undefined, { throwOnError: true })
      .GET("/_sandbox/events")
      .catch((error: unknown) => error);
    expect(unauthorized).toMatchObject({ status: 401, operationId: "listEvents", declared: true });
    const missing = await sandbox
      .controlFor(undefined, { throwOnError: true })
      .request("get", "/_sandbox/nothing" as "/_sandbox/events")
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 404, operationId: undefined, declared: false });
    expect(() => sandbox.controlFor("", { throwOnError: true })).toThrow(/apiKey must be a non-empty string/);
  });

  it("createSandboxControl talks to a sandbox by its URL, throwing or not", async () => {
    const control = createSandboxControl({ url: `${sandbox.url}/`, apiKey: "by-url", throwOnError: true });
    const { data } = await control.GET("/_sandbox/clock");
    expect(data.speed).toBe(1);
    const plain = createSandboxControl({ url: sandbox.url });
    expect((await plain.GET("/_sandbox/events")).response.status).toBe(401);
    expect(() => createSandboxControl({ url: "localhost:4020" })).toThrow(/url must be the sandbox's http\(s\) URL/);
  });

  it("calls through a fetch of one's own when given one (verify's, which bounds what it reads)", async () => {
    const seen: string[] = [];
    const control = createSandboxControl({
      url: sandbox.url,
      apiKey: "own-fetch",
      throwOnError: true,
      fetch: async (request) => {
        seen.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get("x-api-key")}`);
        return fetch(request);
      },
    });
    const { data } = await control.GET("/_sandbox/webhook-endpoints");
    expect(data.webhookEndpoints).toEqual([]);
    expect(seen).toEqual(["GET /_sandbox/webhook-endpoints own-fetch"]);
    expect(() => createSandboxControl({ url: sandbox.url, fetch: "no" as never })).toThrow(/fetch must be a function/);
  });
});
