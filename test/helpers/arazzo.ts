/**
 * Small Arazzo documents for tests: `arazzoDocument(workflows)` wraps workflows in a 1.0.1 document with the
 * partner API and the sandbox's control API as sources (`partner`, `sandbox`), and `workflow(id, steps)` gives a
 * workflow that runs with the `apiKey` input as X-API-Key.
 */

export type Json = Record<string, unknown>;

export function arazzoDocument(workflows: Json[], extra: Json = {}): Json {
  return {
    arazzo: "1.0.1",
    info: { title: "A test document", version: "1.0.0" },
    sourceDescriptions: [
      { name: "partner", url: "../openapi.yaml", type: "openapi" },
      { name: "sandbox", url: "../sandbox/openapi.yaml", type: "openapi" },
    ],
    workflows,
    ...extra,
  };
}

export function workflow(workflowId: string, steps: Json[], extra: Json = {}): Json {
  return {
    workflowId,
    inputs: { type: "object", required: ["apiKey"], properties: { apiKey: { type: "string" } } },
    parameters: [{ name: "X-API-Key", in: "header", value: "$inputs.apiKey" }],
    steps,
    ...extra,
  };
}
