/**
 * The bundle against the source (../shared/seed/partner-api-spec.md), table by table. The expectations
 * below are transcribed from the source's Endpoints, Resources, States and Events sections.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { HTTP_METHODS } from "../../src/http-methods.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { READINGS, ungrounded } from "./fidelity-grounds.ts";

const doc = loadDocument();
const schemas = doc.components.schemas;

// [method, path, operationId, success statuses, documented error statuses, company scope, safe to repeat]
// Safe to repeat: openWalletAddress by the source ("Idempotent: when an address already exists on that chain it
// is returned"); the GETs by HTTP's definition of GET (a reading, listed in READINGS below), not by a source line.
const OPERATIONS: [string, string, string, string[], string[], boolean, boolean][] = [
  ["get", "/transactions/{transactionId}", "getTransaction", ["200"], ["403", "404"], false, true],
  ["post", "/v1/cards", "createCard", ["201"], ["422"], true, false],
  ["get", "/v1/cards", "listCards", ["200"], [], true, true],
  ["patch", "/v1/cards/{cardId}/spend-settings", "updateCardSpendSettings", ["200"], [], true, false],
  ["patch", "/v1/cards/{cardId}/unfreeze", "unfreezeCard", ["200"], [], true, false],
  ["post", "/v1/cards/{cardId}/details", "createCardDetailsToken", ["200"], [], true, false],
  ["get", "/v1/card-holders/{cardHolderId}", "getCardHolder", ["200"], [], true, true],
  ["get", "/v1/card-bins", "listCardBins", ["200"], [], true, true],
  ["get", "/v1/card-spending-account/transactions", "listSpendingAccountTransactions", ["200"], [], true, true],
  ["post", "/v1/wallets/{walletId}/addresses", "openWalletAddress", ["200", "201"], [], true, true],
  ["post", "/v1/companies", "onboardCompany", ["201"], [], false, false],
  ["get", "/v1/companies", "listCompanies", ["200"], [], false, true],
  ["post", "/v1/kyb-profiles", "submitKybProfile", ["201"], [], true, false],
  ["get", "/v1/payment-routes/{routeId}", "getPaymentRoute", ["200"], [], true, true],
  ["get", "/v1/payment-routes/{routeId}/payment-instructions", "getPaymentInstructions", ["200"], [], true, true],
];

function resolve(node: any): any {
  if (node && typeof node.$ref === "string") {
    return resolve(
      node.$ref
        .slice(2)
        .split("/")
        .reduce((at: any, key: string) => at[key.replace(/~1/g, "/")], doc),
    );
  }
  return node;
}

function* allNodes(node: any, path: string[] = []): Generator<[any, string[]]> {
  if (!node || typeof node !== "object") return;
  yield [node, path];
  for (const [key, child] of Object.entries(node)) yield* allNodes(child, [...path, key]);
}

describe("operations", () => {
  it("are exactly the 15 of the source", () => {
    const found = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${path} ${item[m].operationId}`),
    );
    expect(found.sort()).toEqual(OPERATIONS.map(([m, p, id]) => `${m.toUpperCase()} ${p} ${id}`).sort());
  });

  it.each(OPERATIONS)("%s %s: statuses, scope and safety", (method, path, _id, success, errors, scoped, safe) => {
    const item = doc.paths[path];
    const operation = item[method];
    expect(Object.keys(operation.responses).sort()).toEqual([...success, ...errors].sort());
    const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
    expect(parameters.some((p: any) => p.$ref === "#/components/parameters/CompanyId")).toBe(scoped);
    expect(operation["x-idempotent"] === true).toBe(safe);
    expect(operation.security).toBeUndefined(); // the global X-API-Key requirement applies
    for (const name of path.match(/\{(\w+)\}/g) ?? []) {
      const parameter = parameters.map(resolve).find((p: any) => p.in === "path" && `{${p.name}}` === name);
      expect(parameter?.required, `${name} is a required path parameter`).toBe(true);
    }
  });

  it("require the X-API-Key header everywhere, and nothing else", () => {
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    });
  });

  it("use one shared, required X-Company-Id header holding a ULID", () => {
    expect(doc.components.parameters.CompanyId).toMatchObject({
      name: "X-Company-Id",
      in: "header",
      required: true,
      schema: { $ref: "#/components/schemas/Ulid" },
    });
  });

  it("take the query parameters of the source", () => {
    const names = (path: string) =>
      doc.paths[path].get.parameters
        .map(resolve)
        .filter((p: any) => p.in === "query")
        .map((p: any) => p.name);
    expect(names("/v1/cards")).toEqual(["page", "limit", "keyword"]);
    expect(names("/v1/card-spending-account/transactions")).toEqual([
      "page",
      "limit",
      "type",
      "orderBy",
      "orderDirection",
    ]);
    const ledger = doc.paths["/v1/card-spending-account/transactions"].get.parameters.map(resolve);
    expect(resolve(ledger.find((p: any) => p.name === "type").schema).enum).toEqual(["Credit", "Debit"]);
    expect(ledger.find((p: any) => p.name === "orderBy").schema.enum).toEqual(["createdAt", "amount"]);
    expect(ledger.find((p: any) => p.name === "orderDirection").schema.enum).toEqual(["ASC", "DESC"]);
  });
});

describe("request bodies", () => {
  const body = (path: string, method: string) =>
    resolve(doc.paths[path][method].requestBody?.content["application/json"].schema);

  it("have the source's required fields", () => {
    expect(body("/v1/cards", "post").required).toEqual(["cardHolderId", "name", "category", "bin"]);
    expect(body("/v1/cards/{cardId}/spend-settings", "patch").required).toEqual([
      "isUnlimitedLimitPerTransaction",
      "isAllowedAllCurrencies",
    ]);
    expect(body("/v1/companies", "post").required).toEqual([
      "name",
      "countryCode",
      "directorName",
      "directorEmail",
      "directorPhone",
      "addressLine1",
      "city",
      "state",
      "postalCode",
    ]);
    expect(Object.keys(body("/v1/companies", "post").properties)).toEqual(
      expect.arrayContaining(["addressLine2", "products", "redirectUri"]),
    );
    expect(body("/v1/kyb-profiles", "post").required).toHaveLength(11);
    expect(body("/v1/kyb-profiles", "post").properties.website).toEqual({ type: "string" });
    expect(body("/v1/wallets/{walletId}/addresses", "post").required).toBeUndefined();
    expect(doc.paths["/v1/cards/{cardId}/details"].post.requestBody).toBeUndefined(); // "No body."
  });

  it("constrain walletId no further than a string (the source gives no length or form)", () => {
    expect(doc.components.parameters.WalletId.schema).toEqual({ type: "string" });
  });

  it("leave the create-card body open for the limit fields the source does not name", () => {
    expect(body("/v1/cards", "post").additionalProperties).toBeUndefined();
  });

  it("state the conditional, currency, default and chain rules", () => {
    const spend = body("/v1/cards/{cardId}/spend-settings", "patch");
    expect(spend.allOf).toEqual([
      expect.objectContaining({
        if: expect.objectContaining({ properties: { isUnlimitedLimitPerTransaction: { const: false } } }),
        then: expect.objectContaining({ required: ["limitPerTransaction"] }),
      }),
      expect.objectContaining({
        if: expect.objectContaining({ properties: { isAllowedAllCurrencies: { const: false } } }),
        then: expect.objectContaining({ required: ["allowedCurrencies"] }),
      }),
    ]);
    expect(resolve(spend.properties.allowedCurrencies.items).pattern).toBe("^[A-Z]{3}$");
    expect(body("/v1/companies", "post").properties.products.default).toEqual(["Card"]);
    expect(schemas.Chain.enum).toEqual(["TRX", "ETH", "BNB", "AVAX", "SOL", "ARB", "OP", "TON", "MATIC"]);
    expect(schemas.KybProfile.properties.uboDob.format).toBe("date");
  });
});

describe("resources", () => {
  it("say the instructions PDF is fetched on demand and not stored, not generated", () => {
    const description = doc.paths["/v1/payment-routes/{routeId}/payment-instructions"].get.description;
    expect(description).toMatch(/fetched\s+on demand and not stored/);
    expect(description).not.toMatch(/generated/);
  });

  it("have every enum complete", () => {
    expect(schemas.TransactionStatus.enum).toEqual([
      "NEW",
      "PENDING",
      "PROCESSING",
      "PAID",
      "SETTLED",
      "CANCELLED",
      "FAILED",
      "REVERSED",
      "REFUNDED",
    ]);
    expect(schemas.KycStatus.enum).toEqual([
      "not_started",
      "incomplete",
      "awaiting_questionnaire",
      "awaiting_ubo",
      "under_review",
      "approved",
      "rejected",
      "paused",
      "offboarded",
    ]);
    expect(schemas.CardCategory.enum).toHaveLength(9);
    expect(schemas.CardType.enum).toEqual(["employee", "company"]);
    expect(schemas.PaymentRouteType.enum).toEqual(["onramp", "offramp"]);
    expect(schemas.PaymentRoute.properties.status.enum).toEqual(["active", "inactive"]);
    expect(schemas.KybProfile.properties.uboIdType.enum).toEqual([
      "PASSPORT",
      "DRIVERS_LICENSE",
      "HONG_KONG_ID",
      "CHINA_RESIDENT_ID",
      "GOVERNMENT_ISSUED_ID",
    ]);
    expect(schemas.Product.enum).toEqual(["Card", "Swap"]);
  });

  it("type the transaction and ledger amounts as the source does", () => {
    expect(schemas.Transaction.properties.amount).toMatchObject({ type: "number", format: "double" });
    expect(schemas.Transaction.properties.paymentMethod.type).toEqual(["string", "null"]);
    for (const field of ["last4", "type", "country"])
      expect(schemas.TransactionCardDetails.properties[field].type).toEqual(["string", "null"]);
    expect(schemas.LedgerTransaction.properties.amount).toEqual({ $ref: "#/components/schemas/DecimalString" });
    // No `discriminator`: Respect's Ajv refuses one over anyOf with an optional tag (docs/design/flows.md); the kinds
    // are told apart by the const of `type` alone.
    expect(schemas.LedgerEntry.discriminator).toBeUndefined();
    // anyOf: an entry without `type` (every response field may be absent) matches all three kinds.
    expect(schemas.LedgerEntry.oneOf).toBeUndefined();
    const kinds = schemas.LedgerEntry.anyOf.map(resolve);
    expect(kinds.map((kind: any) => kind.properties.type.const)).toEqual(["Card", "PaymentAcceptance", "Account"]);
    for (const kind of kinds) expect(kind.required).toBeUndefined();
    expect(Object.keys(schemas.Pagination.properties)).toEqual(["currentPage", "totalPages", "perPage"]);
  });

  it("keep the company's swap block nullable, 3.1 style", () => {
    expect(schemas.Company.properties.swap.oneOf).toEqual([
      { $ref: "#/components/schemas/CompanySwap" },
      { type: "null" },
    ]);
    expect(Object.keys(schemas.CompanySwap.properties)).toEqual(["kycUrl", "kycStatus", "tosUrl", "tosAccepted"]);
  });

  it("never use `nullable`, and set the 2020-12 dialect", () => {
    expect([...allNodes(doc)].filter(([node]) => "nullable" in node)).toEqual([]);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.jsonSchemaDialect).toBe("https://json-schema.org/draft/2020-12/schema");
  });

  it("mark timestamps as date-time", () => {
    const createdAt = [...allNodes(schemas)]
      .filter(([node]) => node.properties?.createdAt)
      .map(([node]) => node.properties.createdAt.format);
    expect(createdAt.length).toBe(7); // Transaction, ledger transaction, Card, CardHolder, Company, PaymentRoute, webhook envelope
    expect(new Set(createdAt)).toEqual(new Set(["date-time"]));
  });
});

describe("webhooks", () => {
  const EVENTS = [
    "company.onboarding_status_changed",
    "company.kyc_link.issued",
    "company.kyc_status_changed",
    "payment_route.created",
    "payment_route.transaction.created",
    "company.kyb_status_changed",
  ];

  it("are the 6 events of the source", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENTS].sort());
  });

  it.each(EVENTS)("%s: signed envelope with its type fixed, no API key", (name) => {
    const post = doc.webhooks[name].post;
    expect(post.security).toEqual([]);
    expect(post.parameters).toEqual([{ $ref: "#/components/parameters/WebhookSignature" }]);
    const event = resolve(post.requestBody.content["application/json"].schema);
    expect(event.allOf[0]).toEqual({ $ref: "#/components/schemas/WebhookEvent" });
    expect(event.allOf[1].properties.type.const).toBe(name);
    expect(post.description).toMatch(/HMAC-SHA256/);
    expect(post.description).toMatch(/constant time/);
    expect(post.description).toMatch(/10 s, 30 s, 1 min, 2 min\s+and 5 min/);
  });

  it("sign with a 64-digit hex digest in either letter case (the source gives no case)", () => {
    const signature = doc.components.parameters.WebhookSignature;
    expect(signature).toMatchObject({ name: "X-Signature", in: "header", required: true });
    const pattern = new RegExp(signature.schema.pattern);
    expect(pattern.test("ab".repeat(32))).toBe(true);
    expect(pattern.test("AB".repeat(32))).toBe(true);
    expect(pattern.test("ab".repeat(31))).toBe(false);
    expect(pattern.test("zz".repeat(32))).toBe(false);
    expect(signature.description).not.toMatch(/lower-?case/i);
  });

  it.each(EVENTS)("%s: any 2xx acknowledges a delivery, not only 200", (name) => {
    expect(Object.keys(doc.webhooks[name].post.responses)).toEqual(["2XX"]);
  });

  it("promise nothing about the event id on a retry", () => {
    const sameIdPromise = /\b(?:every retry|retries)\b[^.]*\bcarr(?:y|ies) the same\b/i;
    const descriptions = [
      ...EVENTS.map((name) => doc.webhooks[name].post.description as string),
      schemas.WebhookEvent.properties.id.description as string,
    ];
    for (const description of descriptions) expect(description).not.toMatch(sameIdPromise);
    expect(sameIdPromise.test("Every retry carries the same event `id`.")).toBe(true);
    for (const name of EVENTS)
      expect(doc.webhooks[name].post.description).toMatch(/whether a retry carries the same event `id`/);
  });

  it("keep the payloads the source does not show open", () => {
    for (const name of ["CompanyOnboardingStatusChangedPayload", "CompanyKybStatusChangedPayload"]) {
      expect(schemas[name].properties).toBeUndefined();
      expect(schemas[name].additionalProperties).toBeUndefined();
      expect(schemas[name].description).toMatch(/not specified/);
    }
  });

  it("tell route transaction data's kinds apart by routeType's const, never requiring it", () => {
    const data = schemas.PaymentRouteTransactionCreatedPayload.properties.data;
    // No discriminator: its tag would have to be required, and the source never says routeType is always there.
    expect(data.discriminator).toBeUndefined();
    expect(data.oneOf).toBeUndefined();
    const kinds = data.anyOf.map(resolve);
    expect(kinds.map((kind: any) => kind.properties.routeType.const)).toEqual(["offramp", "onramp"]);
    for (const kind of kinds) expect(kind.required).toBeUndefined();
  });
});

describe("servers", () => {
  it("are production and sandbox with no invented host", () => {
    expect(doc.servers.map((s: any) => s.url)).toEqual(["{base_url}", "{staging_base_url}"]);
    for (const server of doc.servers) {
      for (const variable of Object.values<any>(server.variables))
        expect(new URL(variable.default).hostname).toMatch(/\.invalid$/);
    }
  });
});

describe("value rules and fields", () => {
  it("state no rule without a source line or a listed reading, and exactly the source's fields and required lists", () => {
    expect(ungrounded(doc)).toEqual([]);
  });

  it("list every reading under Readings in docs/api-team.md, by the name of the field or schema it constrains", () => {
    const guide = readFileSync("docs/api-team.md", "utf8");
    const section = guide.slice(guide.indexOf("Readings the contract had to make"));
    const names = new Set(
      Object.keys(READINGS).map((reading) => {
        const pointer = reading.split(" ")[0]!.split("/");
        const property = pointer.lastIndexOf("properties");
        if (property !== -1) return pointer[property + 1]!;
        // A parameter by its HTTP name (X-Signature), a schema by its own.
        return pointer[2] === "parameters" ? doc.components.parameters[pointer[3]!].name : pointer[3]!;
      }),
    );
    expect(names.size).toBeGreaterThan(5);
    for (const name of names) expect(section, name).toContain(`\`${name}\``);
  });

  it("x-idempotent: on every GET (HTTP's definition of GET) and on openWalletAddress (the source), nowhere else", () => {
    for (const [method, path, operationId, , , , safe] of OPERATIONS) {
      expect(safe, operationId).toBe(method === "get" || operationId === "openWalletAddress");
      expect(doc.paths[path][method]["x-idempotent"] === true, operationId).toBe(safe);
    }
  });

  // The suite's own check, shown to fail: each mutation is a kind of made-up rule or field.
  const mutations: Array<[string, (document: any) => void, RegExp]> = [
    [
      "a made-up response field",
      (document) => {
        document.components.schemas.CardDetailsToken.properties.data.properties.expiresAt = {
          type: "string",
          format: "date-time",
        };
      },
      /fields of #\/components\/schemas\/CardDetailsToken\/properties\/data: accessToken expiresAt/,
    ],
    [
      "a maximum on limit",
      (document) => {
        document.components.parameters.Limit.schema.maximum = 100;
      },
      /rule without a source line or reading: #\/components\/parameters\/Limit\/schema maximum 100/,
    ],
    [
      "a minLength",
      (document) => {
        document.components.schemas.OnboardCompanyRequest.properties.name.minLength = 1;
      },
      /OnboardCompanyRequest\/properties\/name minLength 1/,
    ],
    [
      "a pattern",
      (document) => {
        document.components.schemas.OnboardCompanyRequest.properties.postalCode.pattern = "^[0-9]{5}$";
      },
      /OnboardCompanyRequest\/properties\/postalCode pattern/,
    ],
    [
      "a format",
      (document) => {
        document.components.schemas.OnboardCompanyRequest.properties.directorEmail.format = "email";
      },
      /OnboardCompanyRequest\/properties\/directorEmail format email/,
    ],
    [
      "a required routeType (route transaction data)",
      (document) => {
        document.components.schemas.OfframpTransactionData.required = ["routeType"];
      },
      /required of #\/components\/schemas\/OfframpTransactionData: routeType \(the source: none\)/,
    ],
    [
      "a required response field",
      (document) => {
        document.components.schemas.Card.required = ["id"];
      },
      /required of #\/components\/schemas\/Card: id/,
    ],
    [
      "a request field made required that the source leaves optional",
      (document) => {
        document.components.schemas.OnboardCompanyRequest.required.push("addressLine2");
      },
      /required of #\/components\/schemas\/OnboardCompanyRequest: .* addressLine2/,
    ],
    [
      "a required field the source names dropped",
      (document) => {
        document.components.schemas.CreateCardRequest.required = ["cardHolderId", "name", "category"];
      },
      /required of #\/components\/schemas\/CreateCardRequest: cardHolderId name category \(the source: .* bin\)/,
    ],
    [
      "a changed reading (the ULID pattern made upper-case only)",
      (document) => {
        document.components.schemas.Ulid.pattern = "^[0-7][0-9A-HJKMNP-TV-Z]{25}$";
      },
      /rule without a source line or reading: #\/components\/schemas\/Ulid pattern/,
    ],
  ];
  it.each(mutations)("fail on %s", (_name, mutate, problem) => {
    const mutated = structuredClone(doc);
    mutate(mutated);
    const problems = ungrounded(mutated);
    expect(
      problems.some((line) => problem.test(line)),
      problems.join("\n"),
    ).toBe(true);
  });
});

describe("links and the partner journeys", () => {
  it("assert no relationship the source does not state: no ledger entry read back as a transaction", () => {
    // The source gives a ledger entry a transaction.id and reads a transaction by its ULID, but never says the
    // one reads back through the other: that is the sandbox's reading, kept in sandbox.arazzo.yaml.
    const links = [...allNodes(doc.paths)].filter(([, path]) => path.at(-2) === "links").map(([node]) => node);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => link.operationId === "getTransaction")).toEqual([]);
    const partner = parse(readFileSync("openapi/workflows/partner-api.arazzo.yaml", "utf8"));
    const reads = partner.workflows.flatMap((workflow: any) =>
      workflow.steps.filter((step: any) => String(step.operationId).endsWith("getTransaction")),
    );
    expect(reads).toEqual([]);
    const sandbox = parse(readFileSync("openapi/workflows/sandbox.arazzo.yaml", "utf8"));
    const reading = sandbox.workflows.find((workflow: any) => workflow.workflowId === "ledger-entry-as-transaction");
    expect(reading.description).toMatch(/sandbox reading/);
    expect(reading.description).toMatch(/never runs against staging/);
  });
});
