/**
 * Every operation of the bundled contract against the Prism mock: the success path (status, content type and
 * body checked against the contract), each documented error through `Prefer: code=`, Prism's 401 without
 * the API key, 422 without X-Company-Id, and 422 for each rule a request body or parameter states.
 */

import { lookup } from "partner-api-devkit/cli";
import { describe, expect, inject, it } from "vitest";
import { clientOperationIds, successCall } from "./support/client.ts";
import { createValidator, listOperations, loadDocument, type Operation } from "./support/contract.ts";
import { call, conformanceProblems, explain } from "./support/http.ts";
import { ruleViolations } from "./support/rules.ts";

const document = loadDocument();
const operations = listOperations(document);
const validator = createValidator(document);
const baseUrl = inject("prismUrl");

const ULID_REF = "#/components/schemas/Ulid";
const NOT_A_ULID = "01JD8X2K7P3M9Q4R6S8T0V2W4"; // 25 characters: one short

function successStatuses(op: Operation): string[] {
  return [...op.responses.keys()].filter((status) => status.startsWith("2"));
}

function errorStatuses(op: Operation): string[] {
  return [...op.responses.keys()].filter((status) => /^[45]/.test(status));
}

function firstExampleBody(op: Operation): unknown {
  if (!op.requestBody) return undefined;
  const [name, value] = Object.entries(op.requestBody.examples)[0] ?? [];
  if (name === undefined) throw new Error(`${op.operationId}: the request body has no named example`);
  return value;
}

/** A rejected request: 422, and when the operation documents 422 the answer must conform to it. */
function expectRejected(op: Operation, result: Awaited<ReturnType<typeof call>>): void {
  expect(result.status, explain(result)).toBe(422);
  if (op.responses.has("422")) expect(conformanceProblems(validator, op, result), explain(result)).toEqual([]);
  else expect(result.mediaType, explain(result)).toBe("application/problem+json");
}

it("the bundle has the 15 operations of the source, each with a unique operationId", () => {
  expect(operations).toHaveLength(15);
  expect(new Set(operations.map((op) => op.operationId)).size).toBe(15);
});

it("the success paths go through the typed client for exactly the contract's operations", () => {
  expect([...clientOperationIds].sort()).toEqual(operations.map((op) => op.operationId).sort());
});

describe.each(operations.map((op) => [op.operationId, op] as const))("%s", (_, op) => {
  const body = firstExampleBody(op);

  it("success path through the typed client: a documented 2xx with a conforming content type and body", async () => {
    const result = await successCall(baseUrl, op, body);
    expect(successStatuses(op), explain(result)).toContain(String(result.status));
    expect(conformanceProblems(validator, op, result), explain(result)).toEqual([]);
  });

  it.each(successStatuses(op))("Prefer: code=%s gives that success status, conforming", async (status) => {
    const result = await call(baseUrl, op, { body, prefer: `code=${status}` });
    expect(result.status, explain(result)).toBe(Number(status));
    expect(conformanceProblems(validator, op, result), explain(result)).toEqual([]);
  });

  const errors = errorStatuses(op);
  if (errors.length > 0) {
    it.each(errors)("documented error %s through Prefer: code=, conforming", async (status) => {
      const result = await call(baseUrl, op, { body, prefer: `code=${status}` });
      expect(result.status, explain(result)).toBe(Number(status));
      expect(conformanceProblems(validator, op, result), explain(result)).toEqual([]);
    });
  }

  it("401 from Prism without X-API-Key (the contract lists no 401: Prism's own answer)", async () => {
    const result = await call(baseUrl, op, { body, apiKey: null });
    expect(op.secured).toBe(true);
    expect(result.status, explain(result)).toBe(401);
    expect(result.mediaType).toBe("application/problem+json");
  });

  if (op.companyScoped) {
    it("422 without X-Company-Id", async () => {
      expectRejected(op, await call(baseUrl, op, { body, companyId: null }));
    });
    it("422 with an X-Company-Id that is not a ULID", async () => {
      expectRejected(op, await call(baseUrl, op, { body, companyId: NOT_A_ULID }));
    });
  } else {
    it("needs no X-Company-Id (not company-scope)", async () => {
      const result = await call(baseUrl, op, { body, companyId: null });
      expect(successStatuses(op), explain(result)).toContain(String(result.status));
    });
  }

  for (const parameter of op.parameters.filter((p) => p.in === "path" && JSON.stringify(p.schema).includes(ULID_REF))) {
    it(`422 with path parameter ${parameter.name} not a ULID`, async () => {
      expectRejected(op, await call(baseUrl, op, { body, pathParams: { [parameter.name]: NOT_A_ULID } }));
    });
  }

  for (const parameter of op.parameters.filter((p) => p.in === "query")) {
    const schema = parameter.schema;
    const bad =
      schema.type === "integer" ? "1.5" : schema.enum || schema.$ref ? "NOT_ONE_OF_THE_ENUM_VALUES" : undefined;
    if (bad === undefined) continue;
    it(`422 with query ${parameter.name}=${bad}`, async () => {
      expectRejected(op, await call(baseUrl, op, { body, query: { [parameter.name]: bad } }));
    });
  }

  if (op.requestBody) {
    const requestBody = op.requestBody;
    it("the example body is valid and the body is required", () => {
      expect(validator.errors(requestBody.schemaPointer, body)).toEqual([]);
      expect(requestBody.required).toBe(true);
    });
    it("422 without a body (the body is required)", async () => {
      expectRejected(op, await call(baseUrl, op, {}));
    });
    const schema = lookup(document, requestBody.schemaPointer) as Record<string, unknown>;
    const violations = ruleViolations(document, schema, body as Record<string, unknown>);
    it.each(violations.map((v) => [v.rule, v.body] as const))("422 for rule %s", async (rule, violating) => {
      // The body must really break the contract, or this test would prove nothing.
      expect(validator.errors(requestBody.schemaPointer, violating), rule).not.toEqual([]);
      expectRejected(op, await call(baseUrl, op, { body: violating }));
    });
  }
});

describe("rules stated in the contract, both ways", () => {
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const op = (id: string): Operation => {
    const found = byId.get(id);
    if (!found) throw new Error(`the contract has no operation ${id}`);
    return found;
  };

  it.each([
    [{ isUnlimitedLimitPerTransaction: false, isAllowedAllCurrencies: true }, 422],
    [{ isUnlimitedLimitPerTransaction: false, isAllowedAllCurrencies: true, limitPerTransaction: 250.5 }, 200],
    [{ isUnlimitedLimitPerTransaction: true, isAllowedAllCurrencies: false }, 422],
    [{ isUnlimitedLimitPerTransaction: true, isAllowedAllCurrencies: false, allowedCurrencies: ["EUR", "USD"] }, 200],
    [{ isUnlimitedLimitPerTransaction: true, isAllowedAllCurrencies: false, allowedCurrencies: ["eur"] }, 422],
    [{ isUnlimitedLimitPerTransaction: true, isAllowedAllCurrencies: true }, 200],
  ])("updateCardSpendSettings %j → %i", async (settings, expected) => {
    const result = await call(baseUrl, op("updateCardSpendSettings"), { body: settings });
    expect(result.status, explain(result)).toBe(expected);
  });

  const chains = (document.components.schemas.Chain?.enum ?? []) as string[];
  it("the wallet chain enum has the 9 chains of the source", () => {
    expect(chains).toHaveLength(9);
  });
  it.each(chains)("openWalletAddress accepts chain %s", async (chain) => {
    const result = await call(baseUrl, op("openWalletAddress"), { body: { chain } });
    expect([200, 201], explain(result)).toContain(result.status);
  });
  it.each(["DOGE", "eth", ""])("openWalletAddress rejects chain %j", async (chain) => {
    const result = await call(baseUrl, op("openWalletAddress"), { body: { chain } });
    expect(result.status, explain(result)).toBe(422);
  });
  it("openWalletAddress accepts an empty object (the chain defaults per wallet currency)", async () => {
    const result = await call(baseUrl, op("openWalletAddress"), { body: {} });
    expect([200, 201], explain(result)).toContain(result.status);
  });
});
