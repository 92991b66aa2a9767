/**
 * Posted documents runScenario refuses, each with the status and what the problem's detail must say: a scenario
 * that is not shipped, a document of the wrong shape, steps, references and expressions that name nothing, and
 * runs that fail (test/sandbox/scenarios.test.ts sends each).
 */
import { arazzoDocument, workflow } from "../helpers/arazzo.ts";

export const REFUSED_SCENARIOS: [Record<string, unknown>, number, RegExp][] = [
  [{ name: "no-such-scenario" }, 404, /no shipped scenario is called "no-such-scenario" \(onboard-company, /],
  [
    { arazzo: { arazzo: "1.0.1", info: { title: "t", version: "1" } } },
    422,
    /body\/arazzo must have the property sourceDescriptions/,
  ],
  [
    { arazzo: { ...arazzoDocument([]), arazzo: "2.0.0" } },
    422,
    /body\/arazzo\/arazzo got "2\.0\.0"; allowed: .*pattern/,
  ],
  [
    { name: "approved-company", arazzo: arazzoDocument([workflow("w", [])]) },
    422,
    /body has more than one of name, arazzo; allowed: exactly one of them/,
  ],
  [
    {
      arazzo: arazzoDocument([workflow("w", [{ stepId: "s", operationId: "$sourceDescriptions.partner.makeMoney" }])]),
    },
    422,
    /workflow w, step s: operationId "makeMoney" is not an operation of the partner API or the sandbox's control API/,
  ],
  [
    { arazzo: arazzoDocument([workflow("w", [{ stepId: "s", operationId: "listCompanies" }])]) },
    422,
    /operationId "listCompanies" must name its source as \$sourceDescriptions\.<source>\.listCompanies: the document has 2 OpenAPI sources/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [{ stepId: "s", operationId: "$sourceDescriptions.sandbox.runScenario" }]),
      ]),
    },
    422,
    /step s calls runScenario, which a scenario may not call/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [
          {
            stepId: "s",
            operationId: "$sourceDescriptions.sandbox.listWallets",
            parameters: [{ name: "companyId", in: "path", value: "$steps.nobody.outputs.id" }],
          },
        ]),
      ]),
    },
    422,
    /workflow w, step s, parameter companyId: \$steps\.nobody\.outputs\.id: names no step of workflow w \(its steps: s\)/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [
          {
            stepId: "c",
            operationId: "$sourceDescriptions.partner.listCompanies",
            outputs: { id: "$response.body#/companies/0/id" },
          },
          {
            stepId: "s",
            operationId: "$sourceDescriptions.sandbox.listWallets",
            parameters: [{ name: "companyId", in: "path", value: "$steps.c.outputs.companyId" }],
          },
        ]),
      ]),
    },
    422,
    /\$steps\.c\.outputs\.companyId: names no output of step c \(its outputs: id\)/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [{ stepId: "s", operationId: "$sourceDescriptions.sandbox.listWallets" }]),
      ]),
    },
    422,
    /the path parameter companyId of listWallets has no value/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [
          {
            stepId: "s",
            operationId: "$sourceDescriptions.partner.listCompanies",
            parameters: [{ name: "colour", in: "query", value: "red" }],
          },
        ]),
      ]),
    },
    422,
    /listCompanies has no query parameter colour \(it has none\)/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [
          {
            stepId: "s",
            operationId: "$sourceDescriptions.partner.listCompanies",
            successCriteria: [{ context: "$statusCode", condition: "^200$", type: "regex" }],
          },
        ]),
      ]),
    },
    422,
    /a regex criterion \("\^200\$"\): the runner runs simple conditions only/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [
          {
            stepId: "s",
            operationId: "$sourceDescriptions.partner.listCompanies",
            onFailure: [{ name: "forever", type: "retry", retryAfter: 3600, retryLimit: 1000 }],
          },
        ]),
      ]),
    },
    422,
    /retryAfter 3600 is over 10 seconds, the longest wait a run takes; .*retryLimit 1000 is over 10, the most retries a run makes/,
  ],
  [
    {
      arazzo: {
        ...arazzoDocument([workflow("w", [{ stepId: "s", workflowId: "$sourceDescriptions.elsewhere.x" }])]),
        sourceDescriptions: [{ name: "elsewhere", url: "https://example.com/theirs.arazzo.yaml", type: "arazzo" }],
      },
    },
    422,
    /an arazzo source must be a shipped document \(partner-api\.arazzo\.yaml, sandbox\.arazzo\.yaml\); "https:\/\/example\.com\/theirs\.arazzo\.yaml" is none of them/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [
          {
            stepId: "s",
            operationId: "$sourceDescriptions.partner.listCompanies",
            successCriteria: [{ condition: "$statusCode == 404" }],
          },
        ]),
      ]),
    },
    422,
    /workflow w, step s failed: \$statusCode == 404 — it answered 200: \{"companies"/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [
          {
            stepId: "s",
            operationId: "$sourceDescriptions.partner.getCardHolder",
            parameters: [{ name: "cardHolderId", in: "path", value: "01JD8X4M6Q2V7R9T3W5Y0Z1A2B" }],
          },
        ]),
      ]),
    },
    422,
    /workflow w, step s failed: its answer is not a success \(2xx\) — it answered 422: .*X-Company-Id/,
  ],
  [
    {
      arazzo: arazzoDocument([
        workflow("w", [{ stepId: "s", operationId: "$sourceDescriptions.partner.listCompanies" }]),
      ]),
      workflowId: "other",
    },
    422,
    /the posted Arazzo document has no workflow "other" \(its workflows: w\)/,
  ],
];
