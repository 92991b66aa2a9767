/**
 * verify against deliberately broken implementations: the real sandbox behind a server that breaks one thing
 * (support/faulty.ts). Each broken implementation must fail with the right check on the right operation (or
 * webhook event type), and nothing else; the sandbox itself, unbroken, must pass the same run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type VerifyOptions, type VerifyReport, verify } from "../../devkit/src/conformance/verify.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { signWebhookPayload } from "../../src/webhooks/node.ts";
import { editJson, type Fault, pathOf, startFaulty } from "./support/faulty.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 3 });
});
afterAll(async () => {
  await sandbox.stop();
});

let accounts = 0;
/** verify through a fault, judged only with `checks`, on accounts of its own. */
async function verifyThrough(
  fault: Fault,
  checks: string[],
  options: Partial<VerifyOptions> = {},
): Promise<VerifyReport> {
  const faulty = await startFaulty(sandbox.url, fault);
  accounts++;
  try {
    return await verify({
      baseUrl: faulty.url,
      apiKey: `fault-${accounts}-a`,
      checks: new Set(checks),
      generated: 0,
      webhookWaitMs: 3_000,
      ...options,
    });
  } finally {
    await faulty.close();
  }
}

/** Every failure is `check` on `operationId`, and there is at least one. */
function expectOnly(report: VerifyReport, check: string, operationId: string): void {
  expect(report.failures.length).toBeGreaterThan(0);
  expect(report.failures.map((failure) => `${failure.check} ${failure.operationId}`)).toEqual(
    report.failures.map(() => `${check} ${operationId}`),
  );
}

const isGet = (method: string, path: string) => (request: { method: string; url: string }) =>
  request.method === method && pathOf(request as never) === path;

describe("verify fails each broken implementation with the right check and operation", () => {
  it("the sandbox itself conforms to the same checks (the good one)", async () => {
    const report = await verifyThrough({}, [
      "not_a_server_error",
      "status_code_conformance",
      "content_type_conformance",
      "response_schema_conformance",
      "negative_data_rejection",
      "ignored_auth",
    ]);
    expect(report.failures).toEqual([]);
    // Read-only: the 8 reads (the two payment-route reads get their negative requests only: no write made a route).
    expect(report.summary.operations).toBe(8);
    expect(report.skipped.map((skip) => skip.what)).toEqual(expect.arrayContaining(["getPaymentRoute", "createCard"]));
    expect(report.summary.requests).toBeGreaterThan(25);
  });

  it("a wrong type: a BIN's fee as a string", async () => {
    const report = await verifyThrough(
      {
        response(request, response) {
          if (isGet("GET", "/v1/card-bins")(request) && response.status === 200)
            editJson(response, (body) => {
              body.cardBins[0].fee = "1.5";
            });
        },
      },
      ["response_schema_conformance"],
    );
    expectOnly(report, "response_schema_conformance", "listCardBins");
    expect(report.failures[0]).toMatchObject({ jsonPath: "/cardBins/0/fee", status: 200, method: "GET" });
    expect(report.failures[0]!.message).toMatch(/must be number/);
  });

  it("a broken pattern: a ledger amount that is no decimal string", async () => {
    const report = await verifyThrough(
      {
        response(request, response) {
          if (isGet("GET", "/v1/card-spending-account/transactions")(request) && response.status === 200)
            editJson(response, (body) => {
              for (const entry of body.transactions) entry.transaction.amount = "12,50";
            });
        },
      },
      ["response_schema_conformance"],
    );
    expectOnly(report, "response_schema_conformance", "listSpendingAccountTransactions");
    expect(report.failures[0]).toMatchObject({
      jsonPath: "/transactions/0/transaction/amount",
      rule: "#/components/schemas/DecimalString/pattern",
    });
  });

  it("an undeclared status: 203 for the BINs", async () => {
    const report = await verifyThrough(
      {
        response(request, response) {
          if (isGet("GET", "/v1/card-bins")(request) && response.status === 200) response.status = 203;
        },
      },
      ["status_code_conformance"],
    );
    expectOnly(report, "status_code_conformance", "listCardBins");
    expect(report.failures[0]!.message).toMatch(/status 203 is not declared for listCardBins \(declared: 200/);
  });

  it("a wrong content type: a card holder as text/plain", async () => {
    const report = await verifyThrough(
      {
        response(request, response) {
          if (request.method === "GET" && pathOf(request).startsWith("/v1/card-holders/") && response.status === 200)
            response.headers["content-type"] = "text/plain";
        },
      },
      ["content_type_conformance"],
    );
    expectOnly(report, "content_type_conformance", "getCardHolder");
    expect(report.failures[0]!.message).toMatch(/Content-Type text\/plain is not declared for 200/);
    expect(report.failures[0]!.curl).toMatch(
      /^curl -sS -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/v1\/card-holders\/\w{26}' -H "X-API-Key: \$PARTNER_API_KEY"/,
    );
  });

  it("invalid input accepted: a KYB profile that breaks the contract answered 201", async () => {
    const report = await verifyThrough(
      {
        response(request, response) {
          if (request.method === "POST" && pathOf(request) === "/v1/kyb-profiles" && response.status >= 400) {
            response.status = 201;
            response.headers["content-type"] = "application/json";
            response.body = '{"status":"SUBMITTED"}';
          }
        },
      },
      ["negative_data_rejection"],
      { allowWrites: true },
    );
    expectOnly(report, "negative_data_rejection", "submitKybProfile");
    const labels = report.failures.map((failure) => failure.label);
    expect(labels).toContain("malformed JSON");
    expect(labels).toContain("Content-Type text/plain");
  });

  it("a 5xx on bad input: listCards crashes on a bad query value", async () => {
    const report = await verifyThrough(
      {
        response(request, response) {
          if (isGet("GET", "/v1/cards")(request) && response.status === 422) {
            response.status = 500;
            response.body = '{"error":"NaN is not a page"}';
          }
        },
      },
      ["not_a_server_error", "negative_data_rejection"],
    );
    expectOnly(report, "not_a_server_error", "listCards");
    const labels = report.failures.map((failure) => failure.label);
    expect(labels).toContain('query limit is "1.5x"');
    expect(labels).toContain('query page is "1.5x"');
  });

  it("credentials ignored: the BINs answered without an X-API-Key", async () => {
    const report = await verifyThrough(
      {
        request(request) {
          if (pathOf(request) === "/v1/card-bins" && request.headers["x-api-key"] === undefined)
            request.headers["x-api-key"] = "fault-open";
        },
      },
      ["ignored_auth"],
      { apiKey: "fault-open" },
    );
    expectOnly(report, "ignored_auth", "listCardBins");
    expect(report.failures[0]!.message).toBe("a request without X-API-Key was answered 200, not 401 or 403");
    expect(report.failures[0]!.curl).not.toMatch(/X-API-Key/);
  });

  it("accounts that see each other: every key served as one account", async () => {
    const report = await verifyThrough(
      {
        request(request) {
          if (request.headers["x-api-key"]?.endsWith("-b"))
            request.headers["x-api-key"] = request.headers["x-api-key"].replace(/-b$/, "-a");
        },
      },
      ["account_isolation"],
      { otherApiKey: `fault-${accounts + 1}-b` },
    );
    const operations = new Set(report.failures.map((failure) => failure.operationId));
    expect(report.failures.every((failure) => failure.check === "account_isolation")).toBe(true);
    for (const operationId of ["listCompanies", "listCardBins", "getCardHolder", "listSpendingAccountTransactions"])
      expect(operations).toContain(operationId);
  });

  it("a slow operation: the BINs take 250 ms, over --max-response-time 150", async () => {
    const report = await verifyThrough(
      {
        async response(request) {
          if (isGet("GET", "/v1/card-bins")(request)) await new Promise((resolve) => setTimeout(resolve, 250));
        },
      },
      ["max_response_time"],
      { maxResponseTimeMs: 150 },
    );
    expectOnly(report, "max_response_time", "listCardBins");
    expect(report.failures[0]!.message).toMatch(/answered in \d+ ms, over the 150 ms limit/);
  });

  it("a bad webhook signature: events signed with another secret", async () => {
    const report = await verifyThrough(
      {
        request(request) {
          if (request.method === "POST" && pathOf(request) === "/_sandbox/webhook-endpoints")
            request.body = JSON.stringify({ ...JSON.parse(request.body), secret: "whsec_not_the_one_verify_gave" });
        },
      },
      ["webhook_signature"],
      { allowWrites: true },
    );
    expect(report.summary.deliveries).toBeGreaterThanOrEqual(6);
    expect(report.failures.every((failure) => failure.check === "webhook_signature")).toBe(true);
    expect(new Set(report.failures.map((failure) => failure.operationId))).toEqual(
      new Set([
        "company.kyc_link.issued",
        "company.kyc_status_changed",
        "company.onboarding_status_changed",
        "company.kyb_status_changed",
        "payment_route.created",
        "payment_route.transaction.created",
      ]),
    );
    expect(report.failures[0]!.eventId).toMatch(/^evt_/);
  });

  it("a webhook payload that breaks its schema: a KYC status the contract does not name", async () => {
    let receiver = "";
    let secret = "";
    let relay = "";
    const faulty = await startFaulty(sandbox.url, {
      async intercept(request) {
        if (request.method === "POST" && pathOf(request) === "/_sandbox/webhook-endpoints") {
          const body = JSON.parse(request.body);
          if (body.url.endsWith("/main")) {
            receiver = body.url;
            secret = body.secret;
            request.body = JSON.stringify({ ...body, url: `${relay}/relay` });
          }
          return undefined;
        }
        if (pathOf(request) !== "/relay") return undefined;
        const event = JSON.parse(request.body);
        if (event.type === "company.kyc_status_changed") event.payload.kycStatus = "almost_approved";
        const raw = JSON.stringify(event);
        await fetch(receiver, {
          method: "POST",
          headers: { "content-type": "application/json", "x-signature": signWebhookPayload(raw, secret) },
          body: raw,
        });
        return { status: 200, headers: {}, body: "" };
      },
    });
    relay = faulty.url;
    try {
      const report = await verify({
        baseUrl: faulty.url,
        apiKey: "fault-relay",
        allowWrites: true,
        generated: 0,
        webhookWaitMs: 3_000,
        checks: new Set(["webhook_signature", "webhook_event_type", "webhook_schema_conformance", "webhook_delivered"]),
      });
      expectOnly(report, "webhook_schema_conformance", "company.kyc_status_changed");
      expect(report.failures[0]).toMatchObject({
        jsonPath: "/payload/kycStatus",
        rule: "#/components/schemas/KycStatus/enum",
      });
    } finally {
      await faulty.close();
    }
  });

  it("a response header the contract declares and the implementation leaves out", async () => {
    const document = structuredClone(
      JSON.parse((await import("node:fs")).readFileSync("generated/openapi.json", "utf8")),
    );
    document.paths["/v1/card-bins"].get.responses["200"].headers = {
      "X-Request-Id": { required: true, schema: { type: "string", minLength: 8 } },
    };
    const report = await verifyThrough({}, ["response_headers_conformance"], { document });
    expectOnly(report, "response_headers_conformance", "listCardBins");
    expect(report.failures[0]).toMatchObject({
      message: "the response header X-Request-Id is required",
      jsonPath: "header X-Request-Id",
    });
  });
});
