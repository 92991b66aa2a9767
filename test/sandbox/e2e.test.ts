/**
 * End to end, as a partner's integration would run: every partner operation through `createPartnerClient`
 * against the sandbox, the webhooks received by `createWebhookHandler` on a loopback server, the sandbox driven
 * through its control API. Every answer is checked against its contract with Ajv 2020-12: the client's answers
 * inside the fetch it is given, the control API's by test/sandbox/support.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARTNER_HANDLERS } from "../../devkit/src/sandbox/flows/index.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { createPartnerClient, paginate, unwrap } from "../../src/index.ts";
import { createWebhookHandler, type WebhookEvent, webhookEventTypes } from "../../src/webhooks/index.ts";
import { createValidator, listOperations, loadDocument, type Operation } from "../contract/support/contract.ts";
import { clientFor, ONBOARD_BODY } from "./support.ts";

const API_KEY = "e2e-partner-key";
const SECRET = "whsec_e2e";
const CARD_ISSUING_SECONDS = 20;
const KYB_REVIEW_SECONDS = 90;

const document = loadDocument();
const operations = listOperations(document);
const validator = createValidator(document);

function operationOf(method: string, pathname: string): Operation | undefined {
  return operations.find(
    (op) =>
      op.method === method.toLowerCase() && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(pathname),
  );
}

/** The operations answered, and every way an answer broke its contract. */
const answered = new Map<string, number[]>();
const problems: string[] = [];

/** The fetch the client is given: the real one, then the answer checked against the partner contract. */
async function checkingFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  const { pathname } = new URL(request.url);
  const op = operationOf(request.method, pathname);
  if (!op) {
    problems.push(`${request.method} ${pathname}: no such operation in the contract`);
    return response;
  }
  answered.set(op.operationId, [...(answered.get(op.operationId) ?? []), response.status]);
  const declared = op.responses.get(String(response.status));
  const contentType = response.headers.get("content-type") ?? "";
  if (!declared) {
    problems.push(`${op.operationId}: status ${response.status} is not declared`);
  } else if (declared.length > 0) {
    const content = declared.find((c) => contentType.startsWith(c.mediaType));
    if (!content) problems.push(`${op.operationId} ${response.status}: content type ${contentType} not declared`);
    else if (content.mediaType.includes("json")) {
      const errors = validator.errors(content.schemaPointer, await response.clone().json());
      if (errors.length > 0) problems.push(`${op.operationId} ${response.status}: ${errors.join("; ")}`);
    }
  }
  return response;
}

let sandbox: Sandbox;
let receiver: Server;
const received: WebhookEvent[] = [];
const client = () => createPartnerClient({ apiKey: API_KEY, baseUrl: sandbox.url, fetch: checkingFetch });
const control = () => clientFor(sandbox.url, API_KEY);
const advance = (seconds: number) => control().post("/_sandbox/clock/advance", { seconds });

/** The first event of `type` matching `where`, once the receiver has it. */
async function eventOf<T extends WebhookEvent["type"]>(
  type: T,
  where: (payload: Record<string, unknown>) => boolean,
): Promise<Extract<WebhookEvent, { type: T }>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = received.find((e) => e.type === type && where(e.payload as Record<string, unknown>));
    if (found) return found as Extract<WebhookEvent, { type: T }>;
    if (Date.now() > deadline) {
      throw new Error(`no ${type} received; received: ${received.map((e) => e.type).join(", ") || "nothing"}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  const handler = createWebhookHandler({
    secrets: SECRET,
    on: Object.fromEntries(webhookEventTypes.map((type) => [type, (event: WebhookEvent) => received.push(event)])),
  });
  receiver = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  sandbox = await startSandbox({
    port: 0,
    seed: 21,
    webhooks: { url, secret: SECRET },
    cardIssuingSeconds: CARD_ISSUING_SECONDS,
    kybReviewSeconds: KYB_REVIEW_SECONDS,
  });
});

afterAll(async () => {
  await sandbox?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

let companyId: string;

describe("a partner integration against the sandbox: onboarding and cards", () => {
  it("onboards a company with Swap: link event, KYC status changes, KYB result", async () => {
    const api = client();
    const { company } = unwrap(
      await api.POST("/v1/companies", { body: { ...ONBOARD_BODY, products: ["Card", "Swap"] } }),
    );
    companyId = company!.id!;
    expect(company).toMatchObject({ status: "Pending", swap: { kycStatus: "not_started", tosAccepted: false } });
    const listed = unwrap(await api.GET("/v1/companies"));
    expect(listed.companies!.map((c) => c.id)).toContain(companyId);

    const link = await eventOf("company.kyc_link.issued", (p) => p.companyId === companyId);
    expect(link.payload).toMatchObject({ kycUrl: company!.swap!.kycUrl, kycStatus: "not_started" });

    for (const kycStatus of ["under_review", "approved"] as const) {
      expect((await control().post(`/_sandbox/companies/${companyId}/kyc-status`, { kycStatus })).status).toBe(200);
      const changed = await eventOf(
        "company.kyc_status_changed",
        (p) => p.companyId === companyId && p.kycStatus === kycStatus,
      );
      expect(changed.id).toMatch(/^evt_/);
    }

    const kyb = unwrap(
      await api.forCompany(companyId).POST("/v1/kyb-profiles", {
        body: {
          companyName: ONBOARD_BODY.name,
          industry: "541511",
          registrationCountry: "US",
          registrationNumber: "7286451",
          uboFirstName: "Maria",
          uboLastName: "Garcia",
          uboGender: "FEMALE",
          uboCountryCode: "US",
          uboIdType: "PASSPORT",
          uboIdNumber: "563218907",
          uboDob: "1984-03-17",
        },
      }),
    );
    expect(kyb.status).toBe("SUBMITTED");
    expect(received.some((e) => e.type === "company.kyb_status_changed" && e.payload.companyId === companyId)).toBe(
      false,
    );
    await advance(KYB_REVIEW_SECONDS);
    const result = await eventOf("company.kyb_status_changed", (p) => p.companyId === companyId);
    expect(result.payload).toMatchObject({ companyId, status: "APPROVED" });

    expect(
      (await control().post(`/_sandbox/companies/${companyId}/onboarding-status`, { status: "Active" })).status,
    ).toBe(200);
    await eventOf("company.onboarding_status_changed", (p) => p.companyId === companyId && p.status === "Active");
  });

  it("card holder, then a card that is Active after a clock advance; spend settings, unfreeze, details token", async () => {
    const company = client().forCompany(companyId);
    const holder = await control().post(`/_sandbox/companies/${companyId}/card-holders`, {
      name: "Ada Lovelace",
      email: "ada@acme.example",
    });
    expect(holder.status).toBe(201);
    const cardHolderId = holder.body.cardHolder.id as string;
    const read = unwrap(await company.GET("/v1/card-holders/{cardHolderId}", { params: { path: { cardHolderId } } }));
    expect(read.cardHolder).toMatchObject({ id: cardHolderId, name: "Ada Lovelace", email: "ada@acme.example" });

    const { cardBins } = unwrap(await company.GET("/v1/card-bins"));
    expect(cardBins!.length).toBeGreaterThan(0);
    const created = unwrap(
      await company.POST("/v1/cards", {
        body: { cardHolderId, name: "Travel", category: "TravelExpenses", bin: cardBins![0]!.bin! },
      }),
    );
    const cardId = created.card!.id!;
    const statusOf = async () =>
      unwrap(await company.GET("/v1/cards", { params: { query: { limit: 100 } } })).cards!.find((c) => c.id === cardId)
        ?.status;
    expect(await statusOf()).not.toBe("Active");
    await advance(CARD_ISSUING_SECONDS);
    expect(await statusOf()).toBe("Active");

    unwrap(
      await company.PATCH("/v1/cards/{cardId}/spend-settings", {
        params: { path: { cardId } },
        body: { isUnlimitedLimitPerTransaction: false, limitPerTransaction: 250, isAllowedAllCurrencies: true },
      }),
    );
    unwrap(await company.PATCH("/v1/cards/{cardId}/unfreeze", { params: { path: { cardId } }, body: {} }));
    const token = unwrap(await company.POST("/v1/cards/{cardId}/details", { params: { path: { cardId } } }));
    expect(typeof token.data?.accessToken).toBe("string");
  });
});

describe("a partner integration against the sandbox: money, wallets and what arrived", () => {
  it("route, deposit, the transaction event, then getTransaction", async () => {
    const company = client().forCompany(companyId);
    // Verification is approved; the terms are still to be accepted, and block routes alongside it.
    const refused = await control().post(`/_sandbox/companies/${companyId}/payment-routes`, { type: "onramp" });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain("its terms are not accepted");
    const { companies } = unwrap(await client().GET("/v1/companies"));
    const tosUrl = companies!.find((c) => c.id === companyId)!.swap!.tosUrl!;
    const accepted = await fetch(tosUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "accept=yes",
    });
    expect(accepted.status).toBe(200);
    const route = await control().post(`/_sandbox/companies/${companyId}/payment-routes`, { type: "onramp" });
    expect(route.status).toBe(201);
    const routeId = route.body.paymentRoute.id as string;
    await eventOf("payment_route.created", (p) => (p.paymentRoute as { id?: string } | undefined)?.id === routeId);
    const read = unwrap(await company.GET("/v1/payment-routes/{routeId}", { params: { path: { routeId } } }));
    expect(read.paymentRoute).toMatchObject({ id: routeId, type: "onramp" });
    const instructions = unwrap(
      await company.GET("/v1/payment-routes/{routeId}/payment-instructions", { params: { path: { routeId } } }),
    );
    expect(typeof instructions.url).toBe("string");

    const deposit = await control().post(`/_sandbox/payment-routes/${routeId}/deposits`, { amount: 125.5 });
    expect(deposit.status).toBe(201);
    const transactionId = deposit.body.transaction.id as string;
    const event = await eventOf("payment_route.transaction.created", (p) => JSON.stringify(p).includes(transactionId));
    expect(event.id).toMatch(/^evt_/);
    const { transaction } = unwrap(
      await client().GET("/transactions/{transactionId}", { params: { path: { transactionId } } }),
    );
    expect(transaction).toMatchObject({ id: transactionId, type: "Credit", amount: 125.5 });
  });

  it("opens a wallet address: 201 the first time, 200 with the same address after", async () => {
    const company = client().forCompany(companyId);
    const wallets = await control().get(`/_sandbox/companies/${companyId}/wallets`);
    const { id: walletId, defaultChain: chain } = wallets.body.wallets[0] as { id: string; defaultChain: "TRX" };
    const open = () =>
      company.POST("/v1/wallets/{walletId}/addresses", { params: { path: { walletId } }, body: { chain } });
    const first = await open();
    const second = await open();
    expect([first.response.status, second.response.status]).toEqual([201, 200]);
    expect(unwrap(second).address).toEqual(unwrap(first).address);
  });

  it("pages through the spending-account ledger", async () => {
    for (let i = 0; i < 7; i++) {
      const entry = await control().post(`/_sandbox/companies/${companyId}/spending-account/entries`, {
        type: i % 2 === 0 ? "Card" : "Account",
        direction: i % 2 === 0 ? "Debit" : "Credit",
        amount: 10 + i,
      });
      expect(entry.status).toBe(201);
    }
    const company = client().forCompany(companyId);
    const first = unwrap(
      await company.GET("/v1/card-spending-account/transactions", { params: { query: { page: 1, limit: 3 } } }),
    );
    expect(first.pagination).toMatchObject({ currentPage: 1, perPage: 3 });
    const total = first.pagination!.totalPages!;
    expect(total).toBeGreaterThanOrEqual(3);
    const ids: string[] = [];
    for await (const entry of paginate(company, "/v1/card-spending-account/transactions", {
      params: { query: { limit: 3 } },
    }))
      ids.push(entry.transaction!.id!);
    expect(ids.length).toBeGreaterThanOrEqual(7);
    expect(new Set(ids).size).toBe(ids.length);
    expect(answered.get("listSpendingAccountTransactions")!.length).toBeGreaterThanOrEqual(total + 1);
  });

  it("answered every partner operation a flow handles, every answer within its contract", () => {
    // One without a handler answers its contract example (units.test.ts lists it): nothing to run end to end.
    const handled = operations.filter((op) => Object.hasOwn(PARTNER_HANDLERS, op.operationId));
    expect([...answered.keys()].sort()).toEqual(handled.map((op) => op.operationId).sort());
    expect(problems).toEqual([]);
  });

  it("received only verified events, each of the six types at least once, each as the contract describes it", () => {
    expect(new Set(received.map((e) => e.type))).toEqual(new Set(webhookEventTypes));
    for (const event of received) {
      const pointer = `#/webhooks/${event.type}/post/requestBody/content/application~1json/schema`;
      expect(validator.errors(pointer, event), `${event.type} ${event.id}`).toEqual([]);
    }
  });
});
