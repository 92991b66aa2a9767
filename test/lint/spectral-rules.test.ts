import { describe, expect, it } from "vitest";
import { loadDocument } from "../contract/support/contract.ts";
import { linterForRule } from "../helpers/spectral.ts";

const ULID_REF = { $ref: "#/components/schemas/Ulid" };
const COMPANY_REF = { $ref: "#/components/parameters/CompanyId" };

function codes(results: { code: string | number }[]) {
  return results.map((result) => result.code);
}

describe("partner-ulid-ids", async () => {
  const lint = await linterForRule("partner-ulid-ids");

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires when an id the source calls a ULID is a plain string", async () => {
    const doc = loadDocument();
    doc.components.schemas.Card.properties.id = { type: "string" };
    const results = await lint(doc);
    expect(codes(results)).toEqual(["partner-ulid-ids"]);
    expect(results[0]!.message).toContain("Card.id");
    expect(results[0]!.path).toEqual(["components", "schemas", "Card", "properties", "id"]);
  });

  it("fires when a path id parameter does not reference the shared schema", async () => {
    const doc = loadDocument();
    doc.components.parameters.CardId.schema = { type: "string", pattern: doc.components.schemas.Ulid.pattern };
    const results = await lint(doc);
    expect(results.map((r) => r.message).join("\n")).toMatch(/Parameter "cardId"[\s\S]*copy of the ULID pattern/);
  });

  it("fires when an id the source does not call a ULID uses the shared schema", async () => {
    const doc = loadDocument();
    doc.components.parameters.WalletId.schema = ULID_REF;
    doc.components.schemas.CardBin.properties.bin = ULID_REF;
    const messages = (await lint(doc)).map((r) => r.message);
    expect(messages).toHaveLength(2);
    expect(messages.join("\n")).toMatch(/walletId/);
    expect(messages.join("\n")).toMatch(/CardBin\.bin/);
  });
});

describe("partner-company-scope", async () => {
  const lint = await linterForRule("partner-company-scope");

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires when a company-scope operation lacks the shared parameter", async () => {
    const doc = loadDocument();
    doc.paths["/v1/cards"].get.parameters = doc.paths["/v1/cards"].get.parameters.filter(
      (p: any) => p.$ref !== COMPANY_REF.$ref,
    );
    const results = await lint(doc);
    expect(results).toHaveLength(1);
    expect(results[0]!.message).toContain('"listCards" has company scope');
  });

  it("fires when an operation without company scope carries it", async () => {
    const doc = loadDocument();
    doc.paths["/v1/companies"].get.parameters = [COMPANY_REF];
    const results = await lint(doc);
    expect(results).toHaveLength(1);
    expect(results[0]!.message).toContain('"listCompanies" has no company scope');
  });

  it("fires when the header is defined inline instead of shared", async () => {
    const doc = loadDocument();
    doc.paths["/v1/card-bins"].get.parameters = [
      { name: "X-Company-Id", in: "header", required: true, schema: ULID_REF },
    ];
    const messages = (await lint(doc)).map((r) => r.message);
    expect(messages.some((m) => m.includes("Define X-Company-Id once"))).toBe(true);
  });
});

describe("partner-body-examples", async () => {
  const lint = await linterForRule("partner-body-examples");

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires for a request body, a response and a webhook body without a named example", async () => {
    const doc = loadDocument();
    delete doc.paths["/v1/kyb-profiles"].post.requestBody.content["application/json"].examples;
    const listCards = doc.paths["/v1/cards"].get.responses["200"].content["application/json"];
    listCards.example = listCards.examples.twoCards.value; // an unnamed example does not count
    delete listCards.examples;
    delete doc.webhooks["payment_route.created"].post.requestBody.content["application/json"].examples;
    const messages = (await lint(doc)).map((r) => r.message);
    expect(messages).toHaveLength(3);
    expect(messages.join("\n")).toMatch(/request body of "submitKybProfile"/);
    expect(messages.join("\n")).toMatch(/200 response of "listCards"/);
    expect(messages.join("\n")).toMatch(/webhook body of "receivePaymentRouteCreated"/);
  });
});

describe("partner-operation-id-verb", async () => {
  const lint = await linterForRule("partner-operation-id-verb");

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires when the verb does not fit the method, or the id is not camelCase", async () => {
    const doc = loadDocument();
    doc.paths["/v1/cards"].get.operationId = "createCards";
    doc.paths["/v1/cards/{cardId}/unfreeze"].patch.operationId = "getUnfrozenCard";
    doc.paths["/v1/card-bins"].get.operationId = "list_card_bins";
    doc.webhooks["payment_route.created"].post.operationId = "createPaymentRoute";
    const messages = (await lint(doc)).map((r) => r.message);
    expect(messages).toHaveLength(4);
    expect(messages.join("\n")).toMatch(/"createCards" starts with "create", which does not fit GET \/v1\/cards/);
    expect(messages.join("\n")).toMatch(/"getUnfrozenCard".*PATCH/);
    expect(messages.join("\n")).toMatch(/"list_card_bins" is not camelCase/);
    expect(messages.join("\n")).toMatch(/webhook payment_route.created: use one of receive/);
  });

  it("tells operations by shape: every method is checked, path-item fields and extensions are not", async () => {
    const doc = loadDocument();
    const item = doc.paths["/v1/cards"];
    item.trace = { operationId: "getCardsTrace", responses: {} };
    item.options = { operationId: "listCardOptions", responses: {} };
    item["x-internal"] = { operationId: "whatever" };
    item.summary = "Cards";
    const messages = (await lint(doc)).map((r) => r.message);
    expect(messages).toHaveLength(2);
    expect(messages.join("\n")).toMatch(/"getCardsTrace".*TRACE \/v1\/cards/);
    expect(messages.join("\n")).toMatch(/"listCardOptions".*OPTIONS \/v1\/cards/);
  });
});

describe("partner-webhook-envelope", async () => {
  const lint = await linterForRule("partner-webhook-envelope");

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires without the signature header", async () => {
    const doc = loadDocument();
    doc.webhooks["company.kyc_status_changed"].post.parameters = [];
    const results = await lint(doc);
    expect(results).toHaveLength(1);
    expect(results[0]!.message).toContain("lacks the signature header");
  });

  it("fires when the body is not the envelope, or its type is not the webhook's name", async () => {
    const doc = loadDocument();
    doc.webhooks["payment_route.created"].post.requestBody.content["application/json"].schema = {
      $ref: "#/components/schemas/PaymentRouteCreatedPayload",
    };
    doc.components.schemas.CompanyKycStatusChangedEvent.allOf[1].properties.type.const = "company.kyc_status.changed";
    const messages = (await lint(doc)).map((r) => r.message);
    expect(messages).toHaveLength(2);
    expect(messages.join("\n")).toMatch(/"payment_route.created" body is not the shared envelope/);
    expect(messages.join("\n")).toMatch(/"company.kyc_status_changed" envelope must fix a required `type`/);
  });
});

describe("partner-example-properties", async () => {
  const lint = await linterForRule("partner-example-properties");

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires on a response example still carrying a field the schema no longer declares (a removal or a rename)", async () => {
    const doc = loadDocument();
    delete doc.components.schemas.Transaction.properties.counterpartyBankCode;
    const results = await lint(doc);
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((result) => result.code === "partner-example-properties")).toBe(true);
    expect(results[0]!.message).toMatch(/property `counterpartyBankCode` \(at \/transaction\/counterpartyBankCode\)/);
    expect(results[0]!.path.slice(0, 3)).toEqual(["paths", "/transactions/{transactionId}", "get"]);
  });

  it("fires on a webhook example and on an inline request example, naming the property and where it is", async () => {
    const doc = loadDocument();
    const media = doc.paths["/v1/cards"].post.requestBody.content["application/json"];
    media.example = { ...Object.values<any>(media.examples)[0].value, nickname: "x" };
    const webhook = doc.webhooks["payment_route.created"].post.requestBody.content["application/json"];
    const [name, first] = Object.entries<any>(webhook.examples)[0]!;
    first.value = { ...first.value, payload: { ...first.value.payload, colour: "blue" } };
    const messages = (await lint(doc)).map((result) => result.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^the inline example of the request body of "createCard".*`nickname` \(at \/nickname\)/),
        expect.stringMatching(
          new RegExp(`^example "${name}" of the webhook body of .*\`colour\` \\(at /payload/colour\\)`),
        ),
      ]),
    );
  });

  it("judges a oneOf/anyOf value by the member it fits, and leaves open objects open", async () => {
    const doc = loadDocument();
    doc.components.schemas.Thing = {
      anyOf: [
        { type: "object", properties: { kind: { const: "a" }, a: { type: "string" } } },
        { type: "object", properties: { kind: { const: "b" }, b: { type: "string" } } },
      ],
    };
    doc.components.schemas.Free = { type: "object", description: "no properties listed" };
    doc.components.schemas.Thing.examples = [
      { kind: "a", a: "x" },
      { kind: "b", b: "y" },
      { kind: "a", c: "z" },
    ];
    doc.components.schemas.Free.examples = [{ anything: 1 }];
    const messages = (await lint(doc)).map((result) => result.message);
    expect(messages).toEqual([expect.stringMatching(/^example 3 of schema "Thing" has property `c`/)]);
  });
});

describe("partner-parameter-examples", async () => {
  const lint = await linterForRule("partner-parameter-examples");

  it("stays quiet on the contract", async () => {
    expect(await lint(loadDocument())).toEqual([]);
  });

  it("fires on a required parameter without an example, naming it and its operation", async () => {
    const doc = loadDocument();
    doc.paths["/v1/cards"].get.parameters.push(
      { name: "region", in: "query", required: true, schema: { type: "string" } },
      { name: "colour", in: "query", schema: { type: "string" } },
      { name: "size", in: "query", required: true, schema: { type: "string", examples: ["S"] } },
    );
    const results = await lint(doc);
    expect(results.map((result) => result.message)).toEqual([
      expect.stringMatching(/^required query parameter "region" \(of "listCards"\) has no example/),
    ]);
    expect(results[0]!.path.slice(0, 4)).toEqual(["paths", "/v1/cards", "get", "parameters"]);
  });
});
