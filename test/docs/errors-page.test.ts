/**
 * The errors page against what it describes: the contract (each declared status, and only those, marked declared;
 * the client's own table of declared statuses agrees), the client (a path id that is not a ULID is refused before
 * sending), and a running sandbox (every case of every operation provoked, its status compared with the page's).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARTNER_HANDLERS } from "../../devkit/src/sandbox/flows/index.ts";
import {
  ERROR_CASES,
  type ErrorOperation,
  errorOperations,
  errorRows,
  errorsDocument,
} from "../../scripts/lib/docs/errors.ts";
import { operationExamples } from "../../scripts/lib/docs/samples.ts";
import { createPartnerClient, InvalidInputError } from "../../src/index.ts";
import { operationFor, type UpperMethod } from "../../src/operations.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { ONBOARD_BODY } from "../sandbox/support.ts";
import { LIVE_API_KEY, type LiveSandbox, requestOf, startLiveSandbox } from "./support/live-sandbox.ts";

const document = loadDocument();
const operations = errorOperations(document);
const examples = new Map(operationExamples(document).map((example) => [example.operationId, example]));

describe("the errors page and the contract", () => {
  it("lists every operation, with each status the contract declares marked declared, and no other", () => {
    expect(operations).toHaveLength(examples.size);
    for (const operation of operations) {
      const responses = document.paths[operation.path][operation.method].responses;
      const contractErrors = Object.keys(responses)
        .filter((code) => /^[45]/.test(code))
        .map(Number)
        .sort();
      const rows = errorRows(operation);
      const declaredOnPage = [...new Set(rows.filter((row) => row.declared).map((row) => row.status))].sort();
      expect(declaredOnPage, operation.operationId).toEqual(contractErrors);
      // The client's table (generated/contract.ts) marks the same statuses `declared`.
      const facts = operationFor(operation.method.toUpperCase() as UpperMethod, operation.path);
      expect([...(facts?.[3] ?? [])].sort(), operation.operationId).toEqual(contractErrors);
      for (const row of rows.filter((candidate) => !candidate.declared))
        expect(row.client, `${operation.operationId} ${row.status}`).not.toContain("declared: true");
    }
  });

  it("renders one table per operation under its tag, with the declared and the open statuses", () => {
    const page = errorsDocument(document, "Errors") as { info: { description: string }; paths: object };
    const text = page.info.description;
    expect(page.paths).toEqual({});
    expect(text.match(/^\| Status \| In the contract \|/gm)).toHaveLength(operations.length);
    expect(text).toContain("`GET /transactions/{transactionId}` (`getTransaction`; no company header; safe to repeat");
    expect(text).toMatch(/\| 403 \| declared \| A transaction of another account \|/);
    expect(text).toMatch(/\| 422 \| declared \| A body that breaks the contract .*\| `ApiError`, `declared: true`/);
    expect(text).toMatch(/\| 401 \| left open \| No `X-API-Key` header \|/);
    expect(text).toContain("## Cards");
  });

  it("the client refuses a path id that is not a ULID before sending, as the page says", async () => {
    let sent = 0;
    const client = createPartnerClient({
      apiKey: "k",
      baseUrl: "http://127.0.0.1:9",
      fetch: async () => {
        sent++;
        return new Response("{}");
      },
    });
    const company = client.forCompany("01JD8X2K7P3M9Q4R6S8T0V2W4X");
    await expect(
      company.PATCH("/v1/cards/{cardId}/unfreeze", { params: { path: { cardId: "not-a-ulid" } }, body: {} }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(sent).toBe(0);
    const unfreeze = operations.find((operation) => operation.operationId === "unfreezeCard")!;
    expect(errorRows(unfreeze).find((row) => row.caseId === "invalid-path-id")?.client).toContain("InvalidInputError");
  });
});

describe("the errors page and the sandbox", () => {
  let live: LiveSandbox;
  let other: { companyId: string; transactionId: string };
  beforeAll(async () => {
    live = await startLiveSandbox();
    const call = async (target: string, headers: Record<string, string> = {}) =>
      (await fetch(live.url + target, { headers: { "X-API-Key": "sk_test_other_account", ...headers } })).json() as any;
    const { companies } = await call("/v1/companies");
    const { transactions } = await call("/v1/card-spending-account/transactions", { "X-Company-Id": companies[0].id });
    // Every account holds the examples' company; one onboarded here is this other account's alone.
    const onboarded = await fetch(`${live.url}/v1/companies`, {
      method: "POST",
      headers: { "X-API-Key": "sk_test_other_account", "content-type": "application/json" },
      body: JSON.stringify(ONBOARD_BODY),
    });
    const { company } = (await onboarded.json()) as any;
    other = { companyId: company.id, transactionId: transactions[0].transaction.id };
  });
  afterAll(async () => {
    await live?.sandbox.stop();
  });

  /** A valid request of the operation with one case applied to it. */
  function provoke(operation: ErrorOperation, caseId: string) {
    const request = requestOf(examples.get(operation.operationId)!, LIVE_API_KEY);
    const firstUlid = operation.pathParams.find((parameter) => parameter.ulid)?.name;
    switch (caseId) {
      case "no-api-key":
        request.headers.delete("X-API-Key");
        break;
      case "api-key-too-long":
        request.headers.set("X-API-Key", "k".repeat(600));
        break;
      case "no-company":
        request.headers.delete("X-Company-Id");
        break;
      case "company-not-yours":
        request.headers.set("X-Company-Id", other.companyId);
        break;
      case "invalid-path-id":
        request.setPath(firstUlid!, "not-a-ulid");
        break;
      case "unknown-id":
        for (const parameter of operation.pathParams)
          request.setPath(parameter.name, parameter.ulid ? "01JZZZZZZZZZZZZZZZZZZZZZZZ" : "no-such-record");
        break;
      case "other-account":
        request.setPath("transactionId", other.transactionId);
        break;
      case "invalid-query":
        request.query.set(operation.integerQuery[0]!, "abc");
        break;
      case "invalid-body":
        request.body = "[]";
        break;
      case "malformed-json":
        request.body = "{";
        break;
      case "wrong-content-type":
        request.headers.set("Content-Type", "text/plain");
        request.body = "x";
        break;
      case "body-too-large":
        request.body = JSON.stringify({ name: "x".repeat(1024 * 1024) });
        break;
      default:
        throw new Error(`no way to provoke the case ${caseId}: add one to test/docs/errors-page.test.ts`);
    }
    return request;
  }

  it("answers every case of every operation with the status the page shows", async () => {
    let checked = 0;
    for (const operation of operations) {
      // One without a handler answers its contract example (units.test.ts lists it): no error case to provoke.
      if (!Object.hasOwn(PARTNER_HANDLERS, operation.operationId)) continue;
      for (const row of errorRows(operation)) {
        if (row.caseId === undefined) continue;
        const request = provoke(operation, row.caseId);
        const response = await fetch(live.url + request.target(), {
          method: operation.method.toUpperCase(),
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        const text = await response.text();
        expect(response.status, `${operation.operationId} ${row.caseId}: ${text.slice(0, 300)}`).toBe(row.status);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(90);
    expect(new Set(ERROR_CASES.map((errorCase) => errorCase.id)).size).toBe(ERROR_CASES.length);
  });
});
