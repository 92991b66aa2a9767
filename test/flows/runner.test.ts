/**
 * The devkit's Arazzo runner on its own: runtime expressions and simple conditions as the grammar reads them;
 * `runWorkflow` against a server over HTTP (a sandbox), and against a stand-in fetch that shows the requests it
 * builds, the retries it makes, and each bound it keeps (calls, bytes of an answer, time of a call).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ExpressionError,
  type ExpressionScope,
  evaluateCondition,
  fillExpressions,
  parseCondition,
  parseExpression,
} from "../../devkit/src/arazzo/expressions.ts";
import {
  type CallContext,
  type Fetch,
  type RunLimits,
  runWorkflow,
  WorkflowError,
} from "../../devkit/src/arazzo/index.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { arazzoDocument, type Json, workflow } from "../helpers/arazzo.ts";

/** A scope over a fixed set of values, by expression text. */
function scope(values: Record<string, unknown>): ExpressionScope {
  return {
    resolve(expression) {
      if (!Object.hasOwn(values, expression.text)) throw new ExpressionError(`${expression.text} has no value`);
      return values[expression.text];
    },
  };
}

describe("runtime expressions", () => {
  it("parse as the Arazzo grammar names them", () => {
    expect(parseExpression("$statusCode")).toMatchObject({ kind: "statusCode" });
    expect(parseExpression("$response.body#/company/id")).toMatchObject({
      kind: "response",
      source: "body",
      pointer: ["company", "id"],
    });
    expect(parseExpression("$response.header.X-Rate.Limit")).toMatchObject({ source: "header", name: "X-Rate.Limit" });
    expect(parseExpression("$steps.onboard.outputs.companyId")).toMatchObject({
      kind: "steps",
      stepId: "onboard",
      tail: ["companyId"],
    });
    expect(parseExpression("$steps.a.outputs.body#/a~1b/0")).toMatchObject({ pointer: ["a/b", "0"] });
    expect(parseExpression("$workflows.card-issued.outputs.cardId")).toMatchObject({
      kind: "workflows",
      workflowId: "card-issued",
      field: "outputs",
    });
    expect(parseExpression("$sourceDescriptions.partner.listCards")).toMatchObject({
      name: "partner",
      tail: ["listCards"],
    });
  });

  it("refuse what is not one, saying why", () => {
    expect(() => parseExpression("$steps.onboard.companyId")).toThrow(/a step is read through \.outputs/);
    expect(() => parseExpression("$response.status")).toThrow(/followed by header, query, path or body/);
    expect(() => parseExpression("$response.body.company")).toThrow(/read with #\/a\/json\/pointer/);
    expect(() => parseExpression("$env.HOME")).toThrow(/starts with none of/);
  });

  it("fill a value: a whole expression keeps its type, one inside a string becomes text, $5 stays text", () => {
    const values = scope({ "$inputs.amount": 250, "$steps.a.outputs.id": "01ABC", "$inputs.tags": ["a"] });
    expect(
      fillExpressions(
        {
          amount: "$inputs.amount",
          note: "fee of {$steps.a.outputs.id} ({$inputs.tags})",
          price: "$5 off",
          list: ["$inputs.amount"],
        },
        values,
      ),
    ).toEqual({ amount: 250, note: 'fee of 01ABC (["a"])', price: "$5 off", list: [250] });
  });
});

describe("simple conditions", () => {
  const values = scope({
    $statusCode: 201,
    "$response.body#/card/status": "Creating",
    "$response.body#/cards": [{ status: "Active" }],
    "$response.body#/count": "3",
    "$steps.a.outputs.id": "x",
  });
  const holds = (condition: string) => evaluateCondition(parseCondition(condition), values);

  it("compare numbers by value and strings case-insensitively, as the grammar asks", () => {
    expect(holds("$statusCode == 201")).toBe(true);
    expect(holds("$statusCode != 201")).toBe(false);
    expect(holds("$response.body#/card/status == 'creating'")).toBe(true);
    expect(holds("$response.body#/count == 3 && $response.body#/count >= 2.5")).toBe(true);
    expect(holds("$statusCode < 300 && $statusCode >= 200")).toBe(true);
    expect(holds("'it''s' == 'IT''S'")).toBe(true);
  });

  it("combine with ! && || and parentheses, and index arrays and read properties", () => {
    expect(holds("!($statusCode == 404) && ($statusCode == 200 || $statusCode == 201)")).toBe(true);
    expect(holds("$response.body#/cards[0].status == 'Active'")).toBe(true);
    expect(holds("$response.body#/cards[1].status == 'Active'")).toBe(false);
  });

  it("read a value that is not there as absent: comparing with it is false, not an error", () => {
    expect(holds("$steps.b.outputs.id == 'x'")).toBe(false);
    expect(holds("$steps.b.outputs.id != 'x'")).toBe(true);
  });

  it("refuse what does not parse, saying where", () => {
    expect(() => parseCondition("$statusCode == ")).toThrow(/ends where a value was expected/);
    expect(() => parseCondition("$statusCode = 200")).toThrow(/"=" is not allowed at character 13/);
    expect(() => parseCondition("'open")).toThrow(/a string is not closed/);
    expect(() => parseCondition("$statusCode == 200 200")).toThrow(/"200" follows where the condition should end/);
    expect(() => parseCondition("")).toThrow(/it is empty/);
  });
});

describe("runWorkflow against a server over HTTP", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 61 });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("runs a shipped workflow against the sandbox's URL: outputs, and every call with the key masked", async () => {
    const run = await runWorkflow({ workflowId: "card-issued", baseUrl: sandbox.url, inputs: { apiKey: "over-http" } });
    expect(run.outputs).toEqual({
      companyId: expect.any(String),
      cardHolderId: expect.any(String),
      cardId: expect.any(String),
    });
    expect(run.workflows.map((w) => w.workflowId)).toEqual(["onboard-company", "card-issued"]);
    const create = run.steps.find((step) => step.stepId === "createCard")!;
    expect(create).toMatchObject({ method: "POST", path: "/v1/cards", status: 201, url: `${sandbox.url}/v1/cards` });
    expect(create.request.headers).toMatchObject({ "x-api-key": "(redacted)", "content-type": "application/json" });
    expect(create.request.body).toMatchObject({ name: "Team travel", category: "TravelExpenses" });
    // Not in-process: these calls are the account's own, not a scenario's.
    const logged = await fetch(`${sandbox.url}/_sandbox/requests?operationId=createCard`, {
      headers: { "x-api-key": "over-http" },
    });
    expect(((await logged.json()) as { requests: { scenario?: string }[] }).requests[0]!.scenario).toBeUndefined();
  });

  it("refuses a workflow that is not shipped and a base URL that is not http(s)", async () => {
    await expect(runWorkflow({ workflowId: "issue-card", baseUrl: sandbox.url })).rejects.toThrow(
      /workflowId must be a shipped workflow \(onboard-company, .*\) or come with a document, got "issue-card"/,
    );
    await expect(runWorkflow({ workflowId: "card-issued", baseUrl: "ftp://x" })).rejects.toThrow(
      /baseUrl must be an http\(s\) URL/,
    );
    await expect(runWorkflow({ workflowId: "card-issued", baseUrl: sandbox.url })).rejects.toThrow(
      /workflow card-issued needs the input apiKey/,
    );
  });
});

/** A fetch that answers from a list, recording each request and the step it was for. */
function standIn(answers: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const requests: { url: string; init: RequestInit; call: CallContext }[] = [];
  const fetch: Fetch = async (url, init, call) => {
    requests.push({ url, init, call });
    return answers(url, init);
  };
  return { requests, fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const listStep = (extra: Json = {}): Json => ({
  stepId: "companies",
  operationId: "$sourceDescriptions.partner.listCompanies",
  ...extra,
});

/** Runs a document against the stand-in, as account "k" unless told. */
const runOn = (
  document: Json,
  fetch: Fetch,
  limits: Partial<RunLimits> = {},
  inputs: Record<string, unknown> = { apiKey: "k" },
) => runWorkflow({ document: document as never, baseUrl: "http://x.invalid", inputs, fetch, limits });

describe("runWorkflow with a stand-in fetch: requests and retries", () => {
  it("builds each request from the step: the server per source, path, query, headers, cookie and body", async () => {
    const { requests, fetch } = standIn((url) =>
      url.endsWith("/v1/companies")
        ? json(201, { company: { id: "01JD8X2K7P3M9Q4R6S8T0V2W4X" } })
        : json(200, { cardBins: [] }),
    );
    const document = arazzoDocument([
      workflow(
        "w",
        [
          {
            stepId: "onboard",
            operationId: "$sourceDescriptions.partner.onboardCompany",
            requestBody: { payload: { name: "{$inputs.name} Inc." } },
            outputs: { id: "$response.body#/company/id" },
          },
          {
            stepId: "bins",
            operationId: "$sourceDescriptions.partner.listCardBins",
            parameters: [
              { name: "X-Company-Id", in: "header", value: "$steps.onboard.outputs.id" },
              { name: "session", in: "cookie", value: "a b" },
            ],
          },
        ],
        {
          inputs: {
            type: "object",
            properties: { apiKey: { type: "string" }, name: { type: "string", default: "Acme" } },
          },
        },
      ),
    ]);
    const run = await runWorkflow({
      document: document as never,
      baseUrl: "http://default.invalid/",
      servers: { partner: "https://partner.invalid/base" },
      inputs: { apiKey: "k" },
      fetch,
    });
    expect(requests.map((request) => [request.init.method, request.url])).toEqual([
      ["POST", "https://partner.invalid/base/v1/companies"],
      ["GET", "https://partner.invalid/base/v1/card-bins"],
    ]);
    expect(requests[0]!.init).toMatchObject({
      headers: { "x-api-key": "k", "content-type": "application/json" },
      body: JSON.stringify({ name: "Acme Inc." }),
    });
    expect(requests[1]!.init.headers).toMatchObject({
      "x-company-id": "01JD8X2K7P3M9Q4R6S8T0V2W4X",
      cookie: "session=a%20b",
    });
    expect(run.steps.map((step) => step.status)).toEqual([201, 200]);
  });

  it("retries as asked (Retry-After over retryAfter, within the bound), then fails naming the step and the answer", async () => {
    let calls = 0;
    const { requests, fetch } = standIn(() =>
      ++calls < 3 ? json(503, { detail: "busy" }, { "retry-after": "0" }) : json(200, {}),
    );
    const retrying = (retryLimit: number) =>
      arazzoDocument([
        workflow("w", [
          listStep({
            successCriteria: [{ condition: "$statusCode == 200" }],
            onFailure: [
              {
                name: "again",
                type: "retry",
                retryAfter: 10,
                retryLimit,
                criteria: [{ condition: "$statusCode == 503" }],
              },
            ],
          }),
        ]),
      ]);
    const run = await runOn(retrying(2), fetch);
    expect(run.steps.map((step) => step.status)).toEqual([503, 503, 200]);
    calls = 0;
    requests.length = 0;
    await expect(runOn(retrying(1), fetch)).rejects.toThrow(
      /workflow w, step companies failed: \$statusCode == 200 — it answered 503: busy/,
    );
    expect(requests).toHaveLength(2);
  });
});

describe("runWorkflow with a stand-in fetch: bounds and inputs", () => {
  it("stops at its bounds, naming each: calls, bytes of one answer, bytes kept, time of a call", async () => {
    const loop = arazzoDocument([
      workflow("loop", [listStep({ onSuccess: [{ name: "again", type: "goto", stepId: "companies" }] })]),
    ]);
    const small = standIn(() => json(200, { companies: [] }));
    await expect(runOn(loop, small.fetch, { maxCalls: 5 })).rejects.toThrow(
      /workflow loop, step companies: the run made 5 calls, the most a run makes/,
    );
    expect(small.requests).toHaveLength(5);

    const endless = standIn(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(new Uint8Array(64 * 1024));
            },
          }),
          { status: 200, headers: { "content-type": "application/json" } },
        ),
    );
    const once = arazzoDocument([workflow("once", [listStep()])]);
    await expect(runOn(once, endless.fetch, { maxAnswerBytes: 1_000_000 })).rejects.toThrow(
      /workflow once, step companies: the answer is over 1000000 bytes, the most a run reads of one answer/,
    );

    const big = standIn(() => json(200, { companies: "x".repeat(600_000) }));
    await expect(runOn(loop, big.fetch, { maxKeptBytes: 2_000_000 })).rejects.toThrow(
      /the run's requests and answers passed 2000000 bytes, the most a run keeps/,
    );
    expect(big.requests).toHaveLength(4);

    const silent = standIn(
      (_url, init) =>
        new Promise<Response>((_resolve, reject) =>
          init.signal!.addEventListener("abort", () => reject(init.signal!.reason)),
        ),
    );
    await expect(runOn(once, silent.fetch, { callTimeoutMs: 50 })).rejects.toThrow(
      /workflow once, step companies: GET http:\/\/x\.invalid\/v1\/companies failed: no answer within 50 ms/,
    );
  });

  it("takes inputs by the workflow's schema: defaults fill, a required one missing or of another type is named", async () => {
    const { fetch } = standIn(() => json(200, {}));
    const typed = arazzoDocument([
      workflow("typed", [listStep()], {
        inputs: {
          type: "object",
          required: ["apiKey", "count"],
          properties: { apiKey: { type: "string" }, count: { type: "integer" } },
        },
      }),
    ]);
    await expect(runOn(typed, fetch)).rejects.toThrow(/workflow typed needs the input count/);
    await expect(runOn(typed, fetch, {}, { apiKey: "k", count: "two" })).rejects.toThrow(
      /workflow typed: the input count must be integer, got string/,
    );
    await expect(runOn(typed, fetch, {}, { apiKey: "k", count: 2 })).resolves.toMatchObject({
      workflows: [{ workflowId: "typed" }],
    });
  });
});

describe("runWorkflow with a stand-in fetch: causes, and what the fetch is told", () => {
  it("names a WorkflowError's cause: a document that cannot run is refused before any call", async () => {
    const { requests, fetch } = standIn(() => json(200, {}));
    const broken = arazzoDocument([workflow("broken", [listStep({ outputs: { id: "$steps.nowhere.outputs.id" } })])]);
    const refused = runOn(broken, fetch);
    await expect(refused).rejects.toBeInstanceOf(WorkflowError);
    await expect(refused).rejects.toThrow(
      /the document cannot run: workflow broken, step companies, output id: \$steps\.nowhere\.outputs\.id: names no step/,
    );
    expect(requests).toEqual([]);
  });

  it("tells its fetch which step each call is for, each workflow's end, and which step's answer failed its criteria", async () => {
    const { requests, fetch } = standIn((url) =>
      url.endsWith("/v1/companies")
        ? json(200, { companies: [{ id: "01JD8X2K7P3M9Q4R6S8T0V2W4X" }] })
        : json(200, { cardBins: [] }),
    );
    const document = arazzoDocument([
      workflow("inner", [listStep({ outputs: { id: "$response.body#/companies/0/id" } })], {
        outputs: { companyId: "$steps.companies.outputs.id" },
      }),
      workflow("outer", [
        {
          stepId: "first",
          workflowId: "inner",
          parameters: [{ name: "apiKey", value: "$inputs.apiKey" }],
          outputs: { companyId: "$outputs.companyId" },
        },
        {
          stepId: "bins",
          operationId: "$sourceDescriptions.partner.listCardBins",
          parameters: [{ name: "X-Company-Id", in: "header", value: "$steps.first.outputs.companyId" }],
          successCriteria: [
            { condition: "$statusCode == 200" },
            { condition: "$response.body#/cardBins/0/bin == '4'" },
          ],
        },
      ]),
    ]);
    const ended: string[] = [];
    const run = runWorkflow({
      document: document as never,
      workflowId: "outer",
      baseUrl: "http://x.invalid",
      inputs: { apiKey: "k" },
      fetch,
      onWorkflowEnd: ({ workflowId, outputs }) => ended.push(`${workflowId} ${JSON.stringify(outputs)}`),
    });
    const failure = await run.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowError);
    expect((failure as WorkflowError).failedStep).toEqual({
      workflowId: "outer",
      stepId: "bins",
      operationId: "listCardBins",
      status: 200,
      criteria: ["$response.body#/cardBins/0/bin == '4'"],
    });
    expect(requests.map((request) => request.call)).toEqual([
      { workflowId: "inner", stepId: "companies", operationId: "listCompanies", api: "partner" },
      { workflowId: "outer", stepId: "bins", operationId: "listCardBins", api: "partner" },
    ]);
    // The nested workflow ended (with its outputs) before the step that failed.
    expect(ended).toEqual(['inner {"companyId":"01JD8X2K7P3M9Q4R6S8T0V2W4X"}']);
  });

  it("names the innermost failed step through a nested workflow, and none for a run stopped by a missing value", async () => {
    const { fetch } = standIn(() => json(422, { detail: "no" }));
    const nested = arazzoDocument([
      workflow("inner", [listStep()]),
      workflow("outer", [
        { stepId: "first", workflowId: "inner", parameters: [{ name: "apiKey", value: "$inputs.apiKey" }] },
      ]),
    ]);
    const failure = (await runOn(nested, fetch).catch((error: unknown) => error)) as WorkflowError;
    expect(failure.failedStep).toMatchObject({ workflowId: "inner", stepId: "companies", status: 422 });
    expect(failure.failedStep!.criteria).toEqual(["$statusCode is 2xx (the step has no success criteria)"]);
    const empty = standIn(() => json(200, { companies: [] }));
    const missing = arazzoDocument([
      workflow("w", [
        listStep({ outputs: { id: "$response.body#/companies/0/id" } }),
        {
          stepId: "bins",
          operationId: "$sourceDescriptions.partner.listCardBins",
          parameters: [{ name: "X-Company-Id", in: "header", value: "$steps.companies.outputs.id" }],
        },
      ]),
    ]);
    const stopped = (await runOn(missing, empty.fetch).catch((error: unknown) => error)) as WorkflowError;
    expect(stopped).toBeInstanceOf(WorkflowError);
    expect(stopped.message).toMatch(/step bins, parameter X-Company-Id: \$steps\.companies\.outputs\.id has no value/);
    expect(stopped.failedStep).toBeUndefined();
  });
});
