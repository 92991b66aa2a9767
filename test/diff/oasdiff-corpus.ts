/**
 * Cases on which the gate is measured against oasdiff, by area of issue 19 item 2, each in both directions where
 * the area has two. Written from oasdiff's checker sources (checker/rules.go levels; check_request_body_required_
 * value_updated.go, check_request_property_type_changed.go and type_change_helpers.go, check_request_parameters_
 * default_value_changed.go, check_request_parameter_pattern_added_or_changed.go, check_response_optional_
 * property_updated.go) and the cases of their tests; the documents are ours. `oasdiff` is the most severe level
 * oasdiff reports for the change (`none`: it reports nothing); `deliberate` says why this gate keeps another
 * verdict even under `--profile oasdiff`.
 */

import type { Change } from "../../scripts/lib/diff/changes.ts";
import type { Level } from "../../scripts/lib/diff/checks/define.ts";
import type { Profile } from "../../scripts/lib/diff/registry.ts";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import type { Document } from "../../scripts/lib/diff/resolve.ts";

type Any = any;
export type Verdict = Level | "none";

export const AREAS = [
  "request body becomes required",
  "type widening",
  "request parameter defaults",
  "patterns",
  "shared schemas",
  "optional response property removed",
  "other levels",
] as const;

export interface ParityCase {
  area: (typeof AREAS)[number];
  direction: "request" | "response";
  name: string;
  base?: (d: Any) => void;
  mutate: (d: Any) => void;
  oasdiff: Verdict;
  /** This gate's default verdict. */
  ours: Verdict;
  /** Why the verdict stays this gate's under `--profile oasdiff`. */
  deliberate?: string;
}

function baseDocument(): Any {
  return {
    openapi: "3.1.0",
    info: { title: "Parity", version: "1.0.0" },
    security: [{ Key: [] }],
    paths: {
      "/items": {
        post: {
          operationId: "createItem",
          requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/ItemInput" } } } },
          responses: {
            "201": {
              description: "Created",
              headers: {
                "X-Request-Id": { required: true, schema: { type: "string" } },
                "X-Hint": { schema: { type: "string", default: "none" } },
              },
              content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
            },
          },
        },
        get: {
          operationId: "listItems",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", format: "int32", default: 20 } },
            { name: "cursor", in: "query", schema: { type: "string", pattern: "^[a-z0-9]+$" } },
            { name: "region", in: "query", required: true, schema: { type: "string", default: "eu" } },
          ],
          responses: { "200": { description: "Items" } },
        },
        put: {
          operationId: "replaceItem",
          requestBody: { $ref: "#/components/requestBodies/Replacement" },
          responses: { "200": { description: "Replaced" } },
        },
      },
      "/shared": {
        post: {
          operationId: "echo",
          requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Shared" } } } },
          responses: {
            "200": {
              description: "Echo",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Shared" } } },
            },
          },
        },
      },
    },
    webhooks: {
      "item.created": {
        post: {
          requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } },
          responses: { "200": { description: "Received" } },
        },
      },
    },
    components: {
      securitySchemes: { Key: { type: "apiKey", in: "header", name: "X-Key" } },
      requestBodies: {
        Replacement: { content: { "application/json": { schema: { $ref: "#/components/schemas/ItemInput" } } } },
      },
      schemas: {
        ItemInput: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string", pattern: "^[a-z]+$" },
            count: { type: "integer", format: "int64" },
            colour: { type: "string", default: "red" },
            note: { type: "string" },
            pair: { type: "array", items: { type: "string" } },
          },
        },
        Item: {
          type: "object",
          required: ["id", "name"],
          properties: {
            id: { type: "string" },
            name: { type: "string", pattern: "^[a-z]+$" },
            count: { type: "integer", format: "int64" },
            note: { type: "string" },
            secret: { type: "string", writeOnly: true },
          },
        },
        Shared: {
          type: "object",
          required: ["id"],
          properties: {
            id: { type: "string" },
            kind: { type: "string", enum: ["a", "b"] },
            note: { type: "string" },
            stamp: { type: "string", readOnly: true },
            label: { type: "string", maxLength: 5 },
          },
        },
      },
    },
  };
}

const input = (d: Any) => d.components.schemas.ItemInput.properties;
const item = (d: Any) => d.components.schemas.Item.properties;
const shared = (d: Any) => d.components.schemas.Shared;
const post = (d: Any) => d.paths["/items"].post;
const list = (d: Any) => d.paths["/items"].get.parameters;
const delivery = (d: Any) => d.webhooks["item.created"].post;

/** `[direction, "<oasdiff's verdict> <ours>", name, mutate, base?]` per area; `deliberate` cases are listed apart. */
type Row = [ParityCase["direction"], `${Verdict} ${Verdict}`, string, (d: Any) => void, ((d: Any) => void)?];
const area = (name: ParityCase["area"], rows: Row[]): ParityCase[] =>
  rows.map(([direction, verdicts, caseName, mutate, base]) => {
    const [oasdiff, ours] = verdicts.split(" ") as [Verdict, Verdict];
    return { area: name, direction, name: caseName, oasdiff, ours, mutate, base };
  });

export const CASES: ParityCase[] = [
  ...area("request body becomes required", [
    [
      "request",
      "error error",
      "an optional request body became required",
      (d) => (post(d).requestBody.required = true),
    ],
    [
      "request",
      "error error",
      "a request body shared through components/requestBodies became required",
      (d) => (d.components.requestBodies.Replacement.required = true),
    ],
    [
      "request",
      "info info",
      "a required request body became optional",
      (d) => (post(d).requestBody.required = false),
      (d) => (post(d).requestBody.required = true),
    ],
    [
      "request",
      "error error",
      "a required request body added",
      (d) =>
        (d.paths["/items"].get.requestBody = {
          required: true,
          content: { "text/plain": { schema: { type: "string" } } },
        }),
    ],
    [
      "response",
      "none info",
      "a webhook delivery's body became required (the partner reads it)",
      (d) => (delivery(d).requestBody.required = true),
    ],
    [
      "response",
      "info info",
      "a response property became required (always sent now)",
      (d) => d.components.schemas.Item.required.push("note"),
    ],
  ]),
  ...area("type widening", [
    [
      "request",
      "info info",
      "a request property integer → number",
      (d) => (input(d).count.type = "number"),
      (d) => delete input(d).count.format,
    ],
    [
      "request",
      "info info",
      "a request property integer/int64 → number/double",
      (d) => Object.assign(input(d).count, { type: "number", format: "double" }),
    ],
    [
      "request",
      "info info",
      "a request property int32 → int64",
      (d) => (input(d).count.format = "int64"),
      (d) => (input(d).count.format = "int32"),
    ],
    [
      "request",
      "error error",
      "a request property number → integer",
      (d) => Object.assign(input(d).count, { type: "integer", format: "int64" }),
      (d) => Object.assign(input(d).count, { type: "number", format: "double" }),
    ],
    [
      "request",
      "info info",
      "a query parameter integer/int32 → number/float",
      (d) => Object.assign(list(d)[0].schema, { type: "number", format: "float", default: 20.0 }),
    ],
    [
      "request",
      "info info",
      "a request body schema integer → number",
      (d) => (d.paths["/items"].get.requestBody.content["application/json"].schema.type = "number"),
      (d) => (d.paths["/items"].get.requestBody = { content: { "application/json": { schema: { type: "integer" } } } }),
    ],
    [
      "response",
      "error error",
      "a response property integer/int64 → number/double",
      (d) => Object.assign(item(d).count, { type: "number", format: "double" }),
    ],
    [
      "response",
      "info info",
      "a response property number → integer",
      (d) => Object.assign(item(d).count, { type: "integer", format: "int64" }),
      (d) => Object.assign(item(d).count, { type: "number", format: "double" }),
    ],
  ]),
  ...area("request parameter defaults", [
    ["request", "info info", "an optional query parameter's default changed", (d) => (list(d)[0].schema.default = 50)],
    ["request", "info info", "an optional query parameter's default removed", (d) => delete list(d)[0].schema.default],
    [
      "request",
      "none info",
      "a required query parameter's default changed (never applied: documentation)",
      (d) => (list(d)[2].schema.default = "us"),
    ],
    ["request", "info info", "a request property's default changed", (d) => (input(d).colour.default = "blue")],
    [
      "response",
      "none info",
      "a response header's default changed",
      (d) => (post(d).responses["201"].headers["X-Hint"].schema.default = "some"),
    ],
  ]),
  ...area("patterns", [
    ["request", "info info", "a request property's pattern removed", (d) => delete input(d).name.pattern],
    ["request", "info info", "a request property's pattern generalised to .*", (d) => (input(d).name.pattern = ".*")],
    ["request", "info info", "a query parameter's pattern removed", (d) => delete list(d)[1].schema.pattern],
    [
      "request",
      "info info",
      "a query parameter's pattern generalised to .*",
      (d) => (list(d)[1].schema.pattern = ".*"),
    ],
    [
      "request",
      "warning error",
      "a request property's pattern changed",
      (d) => (input(d).name.pattern = "^[a-z0-9]+$"),
    ],
    ["request", "error error", "a request property's pattern added", (d) => (input(d).note.pattern = "^[a-z]+$")],
    ["response", "error error", "a response property's pattern removed", (d) => delete item(d).name.pattern],
    [
      "response",
      "warning error",
      "a response property's pattern generalised to .*",
      (d) => (item(d).name.pattern = ".*"),
    ],
    ["response", "info info", "a response property's pattern added", (d) => (item(d).note.pattern = "^[a-z]+$")],
  ]),
  ...area("shared schemas", [
    [
      "request",
      "error error",
      "a shared property became required (breaks writers, not readers)",
      (d) => shared(d).required.push("note"),
    ],
    [
      "response",
      "error error",
      "a shared property became optional (breaks readers, not writers)",
      (d) => (shared(d).required = []),
    ],
    [
      "response",
      "error error",
      "a shared enum value added (readers may not handle it)",
      (d) => shared(d).properties.kind.enum.push("c"),
    ],
    [
      "response",
      "error error",
      "a shared read-only property's type changed (requests ignore it)",
      (d) => (shared(d).properties.stamp.type = "integer"),
    ],
    ["request", "warning error", "a shared optional property removed", (d) => delete shared(d).properties.note],
    [
      "request",
      "error error",
      "a shared property's maxLength raised",
      (d) => (shared(d).properties.label.maxLength = 10),
    ],
  ]),
  ...area("optional response property removed", [
    ["response", "info info", "an optional response property removed", (d) => delete item(d).note],
    ["response", "info info", "a write-only optional response property removed", (d) => delete item(d).secret],
    [
      "response",
      "error error",
      "a required response property removed",
      (d) => {
        delete item(d).name;
        d.components.schemas.Item.required = ["id"];
      },
    ],
    ["request", "warning error", "an optional request property removed", (d) => delete input(d).note],
  ]),
  ...area("other levels", [
    ["request", "info warning", "an operationId changed", (d) => (post(d).operationId = "addItem")],
    ["request", "warning error", "a query parameter removed", (d) => list(d).splice(1, 1)],
    [
      "response",
      "info error",
      "an optional response header removed",
      (d) => delete post(d).responses["201"].headers["X-Hint"],
    ],
    [
      "response",
      "error error",
      "a required response header removed",
      (d) => delete post(d).responses["201"].headers["X-Request-Id"],
    ],
    [
      "request",
      "info error",
      "the API key moved to another header",
      (d) => (d.components.securitySchemes.Key.name = "Authorization"),
    ],
    [
      "request",
      "info error",
      "a request prefixItems entry added",
      (d) => (input(d).pair.prefixItems = [{ type: "integer" }]),
    ],
  ]),
  {
    area: "shared schemas",
    direction: "request",
    name: "a request schema's `not` widened (a request change, never a response check)",
    base: (d) => (d.components.schemas.ItemInput.not = { properties: { note: { type: "string", maxLength: 5 } } }),
    mutate: (d) => (d.components.schemas.ItemInput.not.properties.note.maxLength = 10),
    oasdiff: "info",
    ours: "error",
    deliberate:
      "what `not` excludes grows when its schema widens: the request accepts less (oasdiff reads it as any subschema)",
  },
];

/** The most severe level reported, or `none`. */
export function verdict(changes: readonly Change[]): Verdict {
  for (const level of ["error", "warning", "info"] as const)
    if (changes.some((change) => change.level === level)) return level;
  return "none";
}

/** A case's two documents. */
export function documents(testCase: ParityCase): { base: Document; head: Document } {
  const base = baseDocument();
  testCase.base?.(base);
  const head = structuredClone(base);
  testCase.mutate(head);
  return { base, head };
}

/** What the gate reports for a case. */
export function run(testCase: ParityCase, profile: Profile = "default"): Change[] {
  const { base, head } = documents(testCase);
  return diffContracts(
    { document: base, label: "base" },
    { document: head, label: "head" },
    { today: "2026-06-01", profile },
  ).changes;
}

/** A verdict class for agreement: failing (error), warning, or passing (info or nothing). */
export const verdictClass = (level: Verdict) => (level === "none" || level === "info" ? "pass" : level);
