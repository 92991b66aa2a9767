/**
 * An operation the contract has and no flow handles is answered from the contract's examples, marked by a header
 * and in the request log, instead of the sandbox refusing to start (devkit/src/sandbox/example-answers.ts).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContractRouter } from "../../devkit/src/contract/router.ts";
import {
  EXAMPLE_ANSWER_HEADER,
  exampleAnswerOf,
  operationsWithoutHandler,
} from "../../devkit/src/sandbox/example-answers.ts";
import { CONTROL_HANDLERS, PARTNER_HANDLERS } from "../../devkit/src/sandbox/flows/index.ts";
import { createRequestListener } from "../../devkit/src/sandbox/server.ts";
import { TestMode } from "../../devkit/src/sandbox/testmode/index.ts";
import { sandboxBundleJsonPath } from "../../scripts/lib/paths.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { memoryEngine } from "./support.ts";

type Any = any;

/** The partner contract with one operation no flow handles: GET /v1/card-holders (listCardHoldersOfCompany). */
function withNewOperation(): Any {
  const document: Any = loadDocument();
  const holder = document.paths["/v1/card-holders/{cardHolderId}"].get;
  const example = Object.values<Any>(holder.responses["200"].content["application/json"].examples)[0].value;
  document.paths["/v1/card-holders"] = {
    get: {
      operationId: "listCardHoldersOfCompany",
      parameters: holder.parameters,
      security: holder.security,
      responses: {
        "200": {
          description: "The card holders.",
          content: {
            "application/json": {
              schema: { type: "object", properties: { cardHolders: { type: "array" } } },
              examples: { oneHolder: { value: { cardHolders: [example.cardHolder] } } },
            },
          },
        },
        "401": holder.responses["401"] ?? { description: "Unauthorised" },
      },
    },
  };
  return document;
}

describe("an operation without a handler", () => {
  const partner = withNewOperation();
  const control = JSON.parse(readFileSync(sandboxBundleJsonPath, "utf8"));
  const router = new ContractRouter([
    { api: "control", document: control },
    { api: "partner", document: partner },
  ]);
  const engine = memoryEngine();
  const testMode = new TestMode(engine, router, { seed: 1 });
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer(createRequestListener(router, engine, testMode));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is listed as one (the handler list in units.test.ts fails on it)", () => {
    const missing = operationsWithoutHandler(router.operations, {
      partner: PARTNER_HANDLERS,
      control: CONTROL_HANDLERS,
    });
    expect(missing.map((operation) => operation.operationId)).toEqual(["listCardHoldersOfCompany"]);
  });

  it("is answered with its contract example, marked by a header and in the request log; the sandbox starts", async () => {
    const key = "sk_sandbox_example_answers_test_key_0001";
    const response = await fetch(`${base}/v1/card-holders`, {
      headers: { "x-api-key": key, "x-company-id": "01JD8X2K7P3M9Q4R6S8T0V2W4X" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get(EXAMPLE_ANSWER_HEADER)).toBe("contract-example; example=oneHolder");
    const body = (await response.json()) as Any;
    expect(body).toEqual(
      partner.paths["/v1/card-holders"].get.responses["200"].content["application/json"].examples.oneHolder.value,
    );
    const logged = testMode.log.list({ operationId: "listCardHoldersOfCompany" }, 10).requests as Any[];
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0].response)).toContain("contract-example; example=oneHolder");
  });

  it("a handled operation answers as before, without the mark", async () => {
    const response = await fetch(`${base}/v1/card-bins`, {
      headers: { "x-api-key": "sk_sandbox_example_answers_test_key_0001" },
    });
    expect(response.headers.get(EXAMPLE_ANSWER_HEADER)).toBeNull();
  });

  it("an operation whose success response has no example cannot be answered, and says so", () => {
    const document = withNewOperation();
    delete document.paths["/v1/card-holders"].get.responses["200"].content["application/json"].examples;
    expect(() =>
      exampleAnswerOf(document, { path: "/v1/card-holders", method: "get", operationId: "listCardHoldersOfCompany" }),
    ).toThrow(/listCardHoldersOfCompany's 200 response has no example/);
  });
});
