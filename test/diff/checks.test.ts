/**
 * The fixture corpus: for every check family of oasdiff's list (docs/BREAKING-CHANGES-EXAMPLES.md and
 * checker/rules.go), a change that breaks and the nearest change that does not, each as a base/head pair
 * built from one small document. Each case names the check it must report and whether that fails the gate
 * (level error). Where this project reads a change differently from oasdiff on purpose, the case says so.
 */
import { describe, expect, it } from "vitest";
import type { Change } from "../../scripts/lib/diff/changes.ts";
import { findCheck } from "../../scripts/lib/diff/registry.ts";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import type { Document } from "../../scripts/lib/diff/resolve.ts";

type Any = any;

/** A small API with one of each thing the checks look at. */
function baseDocument(): Any {
  return {
    openapi: "3.1.0",
    info: { title: "Corpus", version: "1.0.0" },
    security: [{ ApiKey: [] }],
    paths: {
      "/items": {
        post: {
          operationId: "createItem",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/ItemInput" } } },
          },
          responses: {
            "201": {
              description: "Created",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
            },
            "422": { description: "Invalid" },
          },
        },
        get: {
          operationId: "listItems",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } },
            { name: "status", in: "query", schema: { type: "string", enum: ["open", "closed"] } },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "Items",
              headers: {
                "X-Total": { required: true, schema: { type: "integer" } },
                "X-Hint": { schema: { type: "string" } },
              },
              content: {
                "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Item" } } },
              },
            },
          },
        },
      },
      "/items/{itemId}": {
        get: {
          operationId: "getItem",
          parameters: [{ name: "itemId", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": {
              description: "Item",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
            },
          },
        },
        delete: {
          operationId: "deleteItem",
          parameters: [{ name: "itemId", in: "path", required: true, schema: { type: "string" } }],
          responses: { "204": { description: "Deleted" } },
        },
      },
    },
    components: {
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-Api-Key" } },
      schemas: {
        ItemInput: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string", minLength: 1, maxLength: 64, pattern: "^[a-z]+$" },
            kind: { type: "string", enum: ["a", "b"] },
            size: { type: "integer", format: "int32", minimum: 0 },
            note: { type: "string" },
            id: { type: "string", readOnly: true },
            tags: { type: "array", items: { type: "string" }, maxItems: 10 },
          },
        },
        Item: {
          type: "object",
          required: ["id", "name"],
          properties: {
            id: { type: "string" },
            name: { type: "string", maxLength: 64 },
            kind: { type: "string", enum: ["a", "b"] },
            size: { type: "number" },
            note: { type: "string" },
            secret: { type: "string", writeOnly: true },
            owner: { $ref: "#/components/schemas/Owner" },
          },
        },
        Owner: {
          type: "object",
          required: ["login"],
          properties: { login: { type: "string" }, role: { type: "string", enum: ["admin", "user"] } },
        },
      },
    },
  };
}

const schemas = (d: Any) => d.components.schemas;
const input = (d: Any) => schemas(d).ItemInput.properties;
const item = (d: Any) => schemas(d).Item.properties;
const listParams = (d: Any) => d.paths["/items"].get.parameters;
/** Moves the `from` entry of `content` (application/json unless given) to another media type key. */
function renameMedia(content: Any, type: string, from = "application/json"): void {
  content[type] = content[from];
  delete content[from];
}

interface Case {
  name: string;
  mutate: (d: Any) => void;
  /** The check the change must be reported under. */
  check: string;
  /** Whether it fails the gate (level error). */
  breaking: boolean;
  /** Mutates the base instead, for cases about what the base said (deprecation, stability). */
  base?: (d: Any) => void;
}

const TODAY = "2026-06-01";

function run(testCase: Case): Change[] {
  const base = baseDocument();
  testCase.base?.(base);
  const head = structuredClone(base);
  testCase.mutate(head);
  return diffContracts(
    { document: base as Document, label: "base" },
    { document: head as Document, label: "head" },
    { today: TODAY },
  ).changes;
}

const families: Record<string, Case[]> = {
  "paths and operations": [
    { name: "a path removed", mutate: (d) => delete d.paths["/items/{itemId}"], check: "path-removed", breaking: true },
    {
      name: "a path added",
      mutate: (d) => (d.paths["/owners"] = { get: { responses: { "200": { description: "ok" } } } }),
      check: "path-added",
      breaking: false,
    },
    {
      name: "an operation removed",
      mutate: (d) => delete d.paths["/items/{itemId}"].delete,
      check: "operation-removed",
      breaking: true,
    },
    {
      name: "a path parameter renamed (/items/{itemId} → /items/{id})",
      mutate: (d) => {
        const pathItem = d.paths["/items/{itemId}"];
        for (const op of [pathItem.get, pathItem.delete]) op.parameters[0].name = "id";
        d.paths["/items/{id}"] = pathItem;
        delete d.paths["/items/{itemId}"];
      },
      check: "request-documentation-changed",
      breaking: false,
    },
  ],
  "deprecation and sunset": [
    {
      name: "a deprecated operation without sunset removed",
      base: (d) => (d.paths["/items/{itemId}"].delete.deprecated = true),
      mutate: (d) => delete d.paths["/items/{itemId}"].delete,
      check: "operation-removed-after-deprecation",
      breaking: false,
    },
    {
      name: "a deprecated operation removed after its sunset",
      base: (d) => Object.assign(d.paths["/items/{itemId}"].delete, { deprecated: true, "x-sunset": "2026-01-01" }),
      mutate: (d) => delete d.paths["/items/{itemId}"].delete,
      check: "operation-removed-after-deprecation",
      breaking: false,
    },
    {
      name: "a deprecated operation removed before its sunset",
      base: (d) => Object.assign(d.paths["/items/{itemId}"].delete, { deprecated: true, "x-sunset": "2027-01-01" }),
      mutate: (d) => delete d.paths["/items/{itemId}"].delete,
      check: "operation-removed-before-sunset",
      breaking: true,
    },
    {
      name: "a sunset moved earlier",
      base: (d) => Object.assign(d.paths["/items/{itemId}"].delete, { deprecated: true, "x-sunset": "2027-01-01" }),
      mutate: (d) => (d.paths["/items/{itemId}"].delete["x-sunset"] = "2026-09-01"),
      check: "sunset-earlier",
      breaking: true,
    },
    {
      name: "a sunset moved later",
      base: (d) => Object.assign(d.paths["/items/{itemId}"].delete, { deprecated: true, "x-sunset": "2027-01-01" }),
      mutate: (d) => (d.paths["/items/{itemId}"].delete["x-sunset"] = "2027-06-01"),
      check: "sunset-later",
      breaking: false,
    },
    {
      name: "an operation deprecated",
      mutate: (d) => (d.paths["/items/{itemId}"].delete.deprecated = true),
      check: "operation-deprecated",
      breaking: false,
    },
    {
      name: "a deprecated parameter's sunset deleted",
      base: (d) => Object.assign(listParams(d)[2], { deprecated: true, "x-sunset": "2027-01-01" }),
      mutate: (d) => delete listParams(d)[2]["x-sunset"],
      check: "sunset-removed",
      breaking: true,
    },
    {
      name: "a deprecated parameter removed",
      base: (d) => (listParams(d)[2].deprecated = true),
      mutate: (d) => listParams(d).splice(2, 1),
      check: "request-parameter-removed-after-deprecation",
      breaking: false,
    },
    {
      name: "a deprecated response field removed",
      base: (d) => (item(d).name.deprecated = true),
      mutate: (d) => {
        delete item(d).name;
        schemas(d).Item.required = ["id"];
      },
      check: "response-field-removed-after-deprecation",
      breaking: false,
    },
    {
      name: "a deprecated response field removed before its sunset",
      base: (d) => Object.assign(item(d).name, { deprecated: true, "x-sunset": "2027-01-01" }),
      mutate: (d) => {
        delete item(d).name;
        schemas(d).Item.required = ["id"];
      },
      check: "response-required-field-removed",
      breaking: true,
    },
  ],
  "stability levels": [
    {
      name: "stability decreased (stable → beta)",
      base: (d) => (d.paths["/items"].get["x-stability-level"] = "stable"),
      mutate: (d) => (d.paths["/items"].get["x-stability-level"] = "beta"),
      check: "stability-decreased",
      breaking: true,
    },
    {
      name: "an alpha operation removed",
      base: (d) => (d.paths["/items/{itemId}"].delete["x-stability-level"] = "alpha"),
      mutate: (d) => delete d.paths["/items/{itemId}"].delete,
      check: "operation-removed-unstable",
      breaking: false,
    },
    {
      name: "a draft operation gets a required parameter",
      base: (d) => (d.paths["/items"].get["x-stability-level"] = "draft"),
      mutate: (d) => listParams(d).push({ name: "q", in: "query", required: true, schema: { type: "string" } }),
      check: "request-parameter-added-required",
      breaking: false,
    },
  ],
  parameters: [
    {
      name: "a required query parameter added",
      mutate: (d) => listParams(d).push({ name: "q", in: "query", required: true, schema: { type: "string" } }),
      check: "request-parameter-added-required",
      breaking: true,
    },
    {
      name: "an optional query parameter added",
      mutate: (d) => listParams(d).push({ name: "q", in: "query", schema: { type: "string" } }),
      check: "request-parameter-added-optional",
      breaking: false,
    },
    {
      name: "an array query parameter's explode changed (another wire format)",
      base: (d) =>
        listParams(d).push({ name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } }),
      mutate: (d) => (listParams(d)[3].explode = false),
      check: "request-parameter-serialization-changed",
      breaking: true,
    },
    {
      name: "a string query parameter's explode changed (one value is written the same way)",
      mutate: (d) => (listParams(d)[1].explode = false),
      check: "none",
      breaking: false,
    },
    {
      name: "a query parameter no longer allows reserved characters unencoded",
      base: (d) => (listParams(d)[1].allowReserved = true),
      mutate: (d) => delete listParams(d)[1].allowReserved,
      check: "request-parameter-reserved-disallowed",
      breaking: true,
    },
    {
      name: "a query parameter now allows reserved characters unencoded",
      mutate: (d) => (listParams(d)[1].allowReserved = true),
      check: "request-parameter-reserved-allowed",
      breaking: false,
    },
    {
      name: "a query parameter's default style written out (form, explode: no change on the wire)",
      mutate: (d) => Object.assign(listParams(d)[1], { style: "form", explode: true }),
      check: "none",
      breaking: false,
    },
    {
      name: "a parameter removed",
      mutate: (d) => listParams(d).splice(2, 1),
      check: "request-parameter-removed",
      breaking: true,
    },
    {
      name: "a parameter became required",
      mutate: (d) => (listParams(d)[0].required = true),
      check: "request-parameter-became-required",
      breaking: true,
    },
    {
      name: "a parameter's maximum raised",
      mutate: (d) => (listParams(d)[0].schema.maximum = 500),
      check: "request-constraint-widened",
      breaking: false,
    },
    {
      name: "a parameter's maximum lowered",
      mutate: (d) => (listParams(d)[0].schema.maximum = 50),
      check: "request-constraint-narrowed",
      breaking: true,
    },
    {
      name: "a parameter enum value removed",
      mutate: (d) => (listParams(d)[1].schema.enum = ["open"]),
      check: "request-enum-value-removed",
      breaking: true,
    },
    {
      name: "a parameter enum value added",
      mutate: (d) => listParams(d)[1].schema.enum.push("archived"),
      check: "request-enum-value-added",
      breaking: false,
    },
  ],
  "request bodies": [
    {
      name: "a required request field added",
      mutate: (d) => {
        input(d).colour = { type: "string" };
        schemas(d).ItemInput.required.push("colour");
      },
      check: "request-field-added-required",
      breaking: true,
    },
    {
      name: "an optional request field added",
      mutate: (d) => (input(d).colour = { type: "string" }),
      check: "request-field-added-optional",
      breaking: false,
    },
    {
      name: "a request field became required",
      mutate: (d) => schemas(d).ItemInput.required.push("note"),
      check: "request-field-became-required",
      breaking: true,
    },
    {
      name: "a request field became optional",
      mutate: (d) => (schemas(d).ItemInput.required = []),
      check: "request-field-became-optional",
      breaking: false,
    },
    {
      name: "a request field removed (oasdiff: warning; here an error, see docs/design/oasdiff-parity.md)",
      mutate: (d) => delete input(d).note,
      check: "request-optional-field-removed",
      breaking: true,
    },
    {
      name: "a required read-only field added to a request",
      mutate: (d) => {
        input(d).createdAt = { type: "string", readOnly: true };
        schemas(d).ItemInput.required.push("createdAt");
      },
      check: "request-ignored-field-changed",
      breaking: false,
    },
    {
      name: "a read-only request field became required",
      mutate: (d) => schemas(d).ItemInput.required.push("id"),
      check: "request-ignored-field-changed",
      breaking: false,
    },
    {
      name: "a request body became required",
      base: (d) => (d.paths["/items"].post.requestBody.required = false),
      mutate: (d) => (d.paths["/items"].post.requestBody.required = true),
      check: "request-body-became-required",
      breaking: true,
    },
    {
      name: "a request body became optional",
      mutate: (d) => (d.paths["/items"].post.requestBody.required = false),
      check: "request-body-became-optional",
      breaking: false,
    },
    {
      name: "a request media type removed",
      mutate: (d) => {
        const content = d.paths["/items"].post.requestBody.content;
        content["application/merge-patch+json"] = content["application/json"];
        delete content["application/json"];
      },
      check: "request-media-type-removed",
      breaking: true,
    },
    {
      name: "a request media type added",
      mutate: (d) => {
        const content = d.paths["/items"].post.requestBody.content;
        content["application/xml"] = content["application/json"];
      },
      check: "request-media-type-added",
      breaking: false,
    },
  ],
  "response bodies": [
    {
      name: "a required response field removed",
      mutate: (d) => {
        delete item(d).name;
        schemas(d).Item.required = ["id"];
      },
      check: "response-required-field-removed",
      breaking: true,
    },
    {
      name: "an optional response field removed",
      mutate: (d) => delete item(d).note,
      check: "response-optional-field-removed",
      breaking: true, // this API marks no response field required: partners read every documented one
    },
    {
      name: "a write-only response field removed",
      mutate: (d) => delete item(d).secret,
      check: "response-ignored-field-changed",
      breaking: false,
    },
    {
      name: "a required write-only response field no longer write-only (oasdiff: warning)",
      base: (d) => schemas(d).Item.required.push("secret"),
      mutate: (d) => delete item(d).secret.writeOnly,
      check: "response-required-field-no-longer-write-only",
      breaking: true,
    },
    {
      name: "a response field became optional",
      mutate: (d) => (schemas(d).Item.required = ["id"]),
      check: "response-field-became-optional",
      breaking: true,
    },
    {
      name: "a response field became required",
      mutate: (d) => schemas(d).Item.required.push("note"),
      check: "response-field-became-required",
      breaking: false,
    },
    {
      name: "a required response field added",
      mutate: (d) => {
        item(d).createdAt = { type: "string" };
        schemas(d).Item.required.push("createdAt");
      },
      check: "response-field-added-required",
      breaking: false,
    },
    {
      name: "a success status removed",
      mutate: (d) => {
        const responses = d.paths["/items"].post.responses;
        responses["200"] = responses["201"];
        delete responses["201"];
      },
      check: "response-success-status-removed",
      breaking: true,
    },
    {
      name: "an error status removed",
      mutate: (d) => delete d.paths["/items"].post.responses["422"],
      check: "response-status-removed",
      breaking: false,
    },
    {
      name: "a response media type removed",
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/xml"] = content["application/json"];
        delete content["application/json"];
      },
      check: "response-media-type-removed",
      breaking: true,
    },
    {
      name: "a response media type made more general (application/json → application/*)",
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/*"] = content["application/json"];
        delete content["application/json"];
      },
      check: "response-media-type-widened",
      breaking: true,
    },
    {
      name: "a response media type made more specific (application/* → application/json)",
      base: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/*"] = content["application/json"];
        delete content["application/json"];
      },
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/json"] = content["application/*"];
        delete content["application/*"];
      },
      check: "response-media-type-narrowed",
      breaking: false,
    },
    {
      name: "a field's type changed in the itemSchema of a streamed response (OpenAPI 3.2)",
      base: (d) => {
        d.openapi = "3.2.0";
        d.paths["/items"].get.responses["200"].content["application/jsonl"] = {
          itemSchema: { type: "object", properties: { id: { type: "string" } } },
        };
      },
      mutate: (d) =>
        (d.paths["/items"].get.responses["200"].content["application/jsonl"].itemSchema.properties.id.type = "integer"),
      check: "response-type-changed",
      breaking: true,
    },
    {
      name: "an optional field added to the itemSchema of a streamed response (OpenAPI 3.2)",
      base: (d) => {
        d.openapi = "3.2.0";
        d.paths["/items"].get.responses["200"].content["application/jsonl"] = {
          itemSchema: { type: "object", properties: { id: { type: "string" } } },
        };
      },
      mutate: (d) =>
        (d.paths["/items"].get.responses["200"].content["application/jsonl"].itemSchema.properties.note = {
          type: "string",
        }),
      check: "response-field-added-optional",
      breaking: false,
    },
    {
      name: "a parameter added to a response media type (application/json → application/json; charset=utf-8)",
      mutate: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      check: "response-media-type-parameters-added",
      breaking: false,
    },
    {
      name: "a parameter removed from a response media type (the server may now send any charset)",
      base: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      mutate: (d) =>
        renameMedia(
          d.paths["/items/{itemId}"].get.responses["200"].content,
          "application/json",
          "application/json; charset=utf-8",
        ),
      check: "response-media-type-parameters-removed",
      breaking: true,
    },
    {
      name: "a response media type parameter's value changed (charset=utf-8 → charset=utf-16)",
      base: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/json; charset=utf-16"] = content["application/json; charset=utf-8"];
        delete content["application/json; charset=utf-8"];
      },
      check: "response-media-type-parameters-changed",
      breaking: true,
    },
    {
      name: "a response media type parameter respelled (charset=utf-8 → Charset=UTF-8: the same)",
      base: (d) =>
        renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/json; charset=utf-8"),
      mutate: (d) => {
        const content = d.paths["/items/{itemId}"].get.responses["200"].content;
        content["application/json;Charset=UTF-8"] = content["application/json; charset=utf-8"];
        delete content["application/json; charset=utf-8"];
      },
      check: "none",
      breaking: false,
    },
    {
      name: "a parameter added to a request media type (only UTF-8 accepted now)",
      mutate: (d) => renameMedia(d.paths["/items"].post.requestBody.content, "application/json; charset=utf-8"),
      check: "request-media-type-parameters-added",
      breaking: true,
    },
    {
      name: "a response media type made more specific by a suffix (application/json → application/problem+json)",
      mutate: (d) => renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/problem+json"),
      check: "response-media-type-narrowed",
      breaking: false,
    },
    {
      name: "a response media type made more general (application/problem+json → application/json)",
      base: (d) => renameMedia(d.paths["/items/{itemId}"].get.responses["200"].content, "application/problem+json"),
      mutate: (d) =>
        renameMedia(
          d.paths["/items/{itemId}"].get.responses["200"].content,
          "application/json",
          "application/problem+json",
        ),
      check: "response-media-type-widened",
      breaking: true,
    },
  ],
  "types and formats": [
    {
      name: "a response type changed (number → string)",
      mutate: (d) => (item(d).size = { type: "string" }),
      check: "response-type-changed",
      breaking: true,
    },
    {
      name: "a response type narrowed (number → integer)",
      mutate: (d) => (item(d).size = { type: "integer" }),
      check: "response-type-narrowed",
      breaking: false,
    },
    {
      name: "a request type narrowed (integer → string)",
      mutate: (d) => (input(d).size = { type: "string" }),
      check: "request-type-changed",
      breaking: true,
    },
    {
      name: "a request type widened (integer → number)",
      mutate: (d) => (input(d).size = { type: "number", minimum: 0 }),
      check: "request-type-widened",
      breaking: false,
    },
    {
      name: "a request format changed (int32 → uuid)",
      mutate: (d) => (input(d).size.format = "uuid"),
      check: "request-format-changed",
      breaking: true,
    },
    {
      name: "a request format widened (int32 → int64)",
      mutate: (d) => (input(d).size.format = "int64"),
      check: "request-format-removed",
      breaking: false,
    },
  ],
  nullability: [
    {
      name: "a response field became nullable (type array)",
      mutate: (d) => (item(d).name.type = ["string", "null"]),
      check: "response-nullable-added",
      breaking: true,
    },
    {
      name: "a request field became nullable (oneOf null wrap around a $ref: nothing inside the component changed)",
      mutate: (d) => {
        schemas(d).ItemInput.properties.owner = { oneOf: [{ type: "null" }, { $ref: "#/components/schemas/Owner" }] };
        schemas(d).ItemInput.properties.owner2 = { $ref: "#/components/schemas/Owner" };
      },
      base: (d) => {
        schemas(d).ItemInput.properties.owner = { $ref: "#/components/schemas/Owner" };
        schemas(d).ItemInput.properties.owner2 = { $ref: "#/components/schemas/Owner" };
      },
      check: "request-nullable-added",
      breaking: false,
    },
    {
      name: "a request field no longer nullable (3.0 nullable: true removed)",
      base: (d) => {
        d.openapi = "3.0.3";
        input(d).note.nullable = true;
      },
      mutate: (d) => delete input(d).note.nullable,
      check: "request-nullable-removed",
      breaking: true,
    },
    {
      name: "a request field became nullable (3.0 nullable: true)",
      base: (d) => (d.openapi = "3.0.3"),
      mutate: (d) => (input(d).note.nullable = true),
      check: "request-nullable-added",
      breaking: false,
    },
  ],
  enums: [
    {
      name: "a request enum value removed",
      mutate: (d) => (input(d).kind.enum = ["a"]),
      check: "request-enum-value-removed",
      breaking: true,
    },
    {
      name: "a response enum value added (oasdiff 1.32+: error)",
      mutate: (d) => item(d).kind.enum.push("c"),
      check: "response-enum-value-added",
      breaking: true,
    },
    {
      name: "a request field became an enum",
      mutate: (d) => (input(d).note.enum = ["x"]),
      check: "request-enum-added",
      breaking: true,
    },
    {
      name: "an x-extensible-enum value removed from a request",
      base: (d) => (input(d).note["x-extensible-enum"] = ["x", "y"]),
      mutate: (d) => (input(d).note["x-extensible-enum"] = ["x"]),
      check: "request-extensible-enum-value-removed",
      breaking: true,
    },
    {
      name: "an x-extensible-enum value added to a response",
      base: (d) => (item(d).note["x-extensible-enum"] = ["x"]),
      mutate: (d) => (item(d).note["x-extensible-enum"] = ["x", "y"]),
      check: "response-extensible-enum-value-added",
      breaking: false,
    },
  ],
  "length, range and pattern": [
    {
      name: "a request maxLength lowered",
      mutate: (d) => (input(d).name.maxLength = 32),
      check: "request-constraint-narrowed",
      breaking: true,
    },
    {
      name: "a request maxLength raised",
      mutate: (d) => (input(d).name.maxLength = 128),
      check: "request-constraint-widened",
      breaking: false,
    },
    {
      name: "a response maxLength raised",
      mutate: (d) => (item(d).name.maxLength = 128),
      check: "response-constraint-widened",
      breaking: true,
    },
    {
      name: "a response maxLength lowered",
      mutate: (d) => (item(d).name.maxLength = 32),
      check: "response-constraint-narrowed",
      breaking: false,
    },
    {
      name: "a request minimum made exclusive (3.0 boolean exclusiveMinimum)",
      base: (d) => (d.openapi = "3.0.3"),
      mutate: (d) => (input(d).size.exclusiveMinimum = true),
      check: "request-constraint-narrowed",
      breaking: true,
    },
    {
      name: "3.0 exclusiveMinimum rewritten as 3.1's numeric form (same bound)",
      base: (d) => Object.assign(input(d).size, { minimum: 0, exclusiveMinimum: true }),
      mutate: (d) => {
        delete input(d).size.minimum;
        input(d).size.exclusiveMinimum = 0;
      },
      check: "none",
      breaking: false,
    },
    {
      name: "a request pattern changed",
      mutate: (d) => (input(d).name.pattern = "^[a-z0-9]+$"),
      check: "request-pattern-changed",
      breaking: true,
    },
    {
      name: "a request pattern widened to any string",
      mutate: (d) => (input(d).name.pattern = ".*"),
      check: "request-pattern-removed",
      breaking: false,
    },
    {
      name: "a request maxItems lowered",
      mutate: (d) => (input(d).tags.maxItems = 5),
      check: "request-constraint-narrowed",
      breaking: true,
    },
  ],
  composition: [
    {
      name: "a response oneOf variant added",
      base: (d) => (item(d).owner = { oneOf: [{ $ref: "#/components/schemas/Owner" }, { type: "string" }] }),
      mutate: (d) => item(d).owner.oneOf.push({ type: "integer" }),
      check: "response-variant-added",
      breaking: true,
    },
    {
      name: "a request oneOf variant added",
      base: (d) => (input(d).owner = { oneOf: [{ $ref: "#/components/schemas/Owner" }, { type: "string" }] }),
      mutate: (d) => input(d).owner.oneOf.push({ type: "integer" }),
      check: "request-variant-added",
      breaking: false,
    },
    {
      name: "a request allOf member added",
      base: (d) => (schemas(d).ItemInput = { allOf: [schemas(d).ItemInput] }),
      mutate: (d) => schemas(d).ItemInput.allOf.push({ $ref: "#/components/schemas/Owner" }),
      check: "request-allof-member-added",
      breaking: true,
    },
    {
      name: "a response allOf member added",
      base: (d) => (schemas(d).Item = { allOf: [schemas(d).Item] }),
      mutate: (d) => schemas(d).Item.allOf.push({ $ref: "#/components/schemas/Owner" }),
      check: "response-allof-member-added",
      breaking: false,
    },
    {
      name: "a discriminator added",
      base: (d) => (item(d).owner = { oneOf: [{ $ref: "#/components/schemas/Owner" }, { type: "string" }] }),
      mutate: (d) => (item(d).owner.discriminator = { propertyName: "role" }),
      check: "response-discriminator-changed",
      breaking: false,
    },
  ],
  "keywords beyond the basics": [
    {
      name: "request propertyNames added",
      mutate: (d) => (schemas(d).ItemInput.propertyNames = { pattern: "^[a-z]+$" }),
      check: "request-properties-narrowed",
      breaking: true,
    },
    {
      name: "request propertyNames removed",
      base: (d) => (schemas(d).ItemInput.propertyNames = { pattern: "^[a-z]+$" }),
      mutate: (d) => delete schemas(d).ItemInput.propertyNames,
      check: "request-properties-widened",
      breaking: false,
    },
    {
      name: "request dependentRequired added",
      mutate: (d) => (schemas(d).ItemInput.dependentRequired = { size: ["kind"] }),
      check: "request-constraint-narrowed",
      breaking: true,
    },
    {
      name: "response dependentRequired added",
      mutate: (d) => (schemas(d).Item.dependentRequired = { size: ["kind"] }),
      check: "response-constraint-narrowed",
      breaking: false,
    },
    {
      name: "a response prefixItems entry added (the position was any value; oasdiff warns both ways)",
      base: (d) => (item(d).pair = { type: "array", prefixItems: [{ type: "string" }] }),
      mutate: (d) => item(d).pair.prefixItems.push({ type: "integer" }),
      check: "response-prefix-items-changed",
      breaking: true,
    },
    {
      name: "a request prefixItems entry removed (the position falls back to items: string)",
      base: (d) => (input(d).pair = { type: "array", items: { type: "string" }, prefixItems: [{ type: "integer" }] }),
      mutate: (d) => input(d).pair.prefixItems.pop(),
      check: "request-prefix-items-changed",
      breaking: true,
    },
    {
      name: "a prefixItems entry repeating items added (every array valid before is valid now)",
      base: (d) => (input(d).pair = { type: "array", items: { type: "string" } }),
      mutate: (d) => (input(d).pair.prefixItems = [{ type: "string" }]),
      check: "none",
      breaking: false,
    },
    {
      name: "a request contains added",
      mutate: (d) => (input(d).tags.contains = { const: "main" }),
      check: "request-items-narrowed",
      breaking: true,
    },
    {
      name: "a response object opened (additionalProperties: false removed: like optional fields added)",
      base: (d) => (schemas(d).Item.additionalProperties = false),
      mutate: (d) => delete schemas(d).Item.additionalProperties,
      check: "response-closed-object-opened",
      breaking: false,
    },
    {
      name: "a request object closed (additionalProperties: false added; oasdiff has no check for it)",
      mutate: (d) => (schemas(d).ItemInput.additionalProperties = false),
      check: "request-properties-narrowed",
      breaking: true,
    },
    {
      name: "request patternProperties removed",
      base: (d) => (schemas(d).ItemInput.patternProperties = { "^x-": { type: "string" } }),
      mutate: (d) => delete schemas(d).ItemInput.patternProperties,
      check: "request-properties-widened",
      breaking: false,
    },
    {
      name: "xml changed (documentation only)",
      mutate: (d) => (schemas(d).Item.xml = { name: "item" }),
      check: "response-documentation-changed",
      breaking: false,
    },
    {
      name: "a property inside `not` widened (what is excluded grows: narrows the request, reported as a request change)",
      base: (d) => (schemas(d).ItemInput.not = { properties: { note: { type: "string", maxLength: 5 } } }),
      mutate: (d) => (schemas(d).ItemInput.not = { properties: { note: { type: "string", maxLength: 10 } } }),
      check: "request-constraint-narrowed",
      breaking: true,
    },
  ],
  "security and headers": [
    {
      name: "an OAuth scope added to an operation's requirement",
      base: (d) => (d.paths["/items"].get.security = [{ ApiKey: ["items:read"] }]),
      mutate: (d) => d.paths["/items"].get.security[0].ApiKey.push("items:admin"),
      check: "security-scope-added",
      breaking: true,
    },
    {
      name: "security required on an operation that allowed anonymous calls",
      base: (d) => (d.paths["/items"].get.security = []),
      mutate: (d) => delete d.paths["/items"].get.security,
      check: "security-anonymous-access-removed",
      breaking: true,
    },
    {
      name: "an operation opened to anonymous calls",
      mutate: (d) => (d.paths["/items"].get.security = []),
      check: "security-made-optional",
      breaking: false,
    },
    {
      name: "the anonymous alternative removed ([{ApiKey}, {}] → [{ApiKey}])",
      base: (d) => (d.paths["/items"].get.security = [{ ApiKey: [] }, {}]),
      mutate: (d) => d.paths["/items"].get.security.pop(),
      check: "security-anonymous-access-removed",
      breaking: true,
    },
    {
      name: "a security alternative added",
      mutate: (d) => (d.paths["/items"].get.security = [{ ApiKey: [] }, { Bearer: [] }]),
      check: "security-requirement-added",
      breaking: false,
    },
    {
      name: "the API key moved to another header (security scheme wire change)",
      mutate: (d) => (d.components.securitySchemes.ApiKey.name = "Authorization"),
      check: "security-scheme-wire-changed",
      breaking: true,
    },
    {
      name: "the OpenID Connect URL of a scheme changed (where clients get their tokens)",
      base: (d) =>
        (d.components.securitySchemes.Oidc = {
          type: "openIdConnect",
          openIdConnectUrl: "https://a.example/.well-known/openid-configuration",
        }),
      mutate: (d) =>
        (d.components.securitySchemes.Oidc.openIdConnectUrl = "https://b.example/.well-known/openid-configuration"),
      check: "security-scheme-wire-changed",
      breaking: true,
    },
    {
      name: "an HTTP scheme name's case changed (bearer → Bearer: the same scheme)",
      base: (d) => (d.components.securitySchemes.Bearer = { type: "http", scheme: "bearer" }),
      mutate: (d) => (d.components.securitySchemes.Bearer.scheme = "Bearer"),
      check: "security-scheme-changed",
      breaking: false,
    },
    {
      name: "a security scheme's description changed",
      mutate: (d) => (d.components.securitySchemes.ApiKey.description = "Your key."),
      check: "request-documentation-changed",
      breaking: false,
    },
    {
      name: "a required response header removed",
      mutate: (d) => delete d.paths["/items"].get.responses["200"].headers["X-Total"],
      check: "response-parameter-removed",
      breaking: true,
    },
    {
      name: "a response header's maximum raised (its values, which oasdiff does not check: information)",
      base: (d) => (d.paths["/items"].get.responses["200"].headers["X-Total"].schema.maximum = 1000),
      mutate: (d) => (d.paths["/items"].get.responses["200"].headers["X-Total"].schema.maximum = 5000),
      check: "response-header-values-changed",
      breaking: false,
    },
    {
      name: "a response header's type changed (integer → string: text that was a number may be any text now)",
      mutate: (d) => (d.paths["/items"].get.responses["200"].headers["X-Total"].schema.type = "string"),
      check: "response-type-widened",
      breaking: true,
    },
    {
      name: "a response header added",
      mutate: (d) => (d.paths["/items"].get.responses["200"].headers["X-Page"] = { schema: { type: "string" } }),
      check: "response-parameter-added-optional",
      breaking: false,
    },
  ],
  // Never breaking: no breaking counterpart to pair with.
  "documentation and metadata": [
    {
      name: "an operationId changed (warning: it renames the generated client method)",
      mutate: (d) => (d.paths["/items"].get.operationId = "listAllItems"),
      check: "operation-id-changed",
      breaking: false,
    },
    {
      name: "a server removed",
      base: (d) => (d.servers = [{ url: "https://a.example" }, { url: "https://b.example" }]),
      mutate: (d) => d.servers.pop(),
      check: "server-removed",
      breaking: false,
    },
    {
      name: "a default changed",
      mutate: (d) => (input(d).note.default = "x"),
      check: "request-default-changed",
      breaking: false,
    },
  ],
};

describe("the fixture corpus: a breaking change and its nearest non-breaking one, per check family", () => {
  for (const [family, cases] of Object.entries(families)) {
    describe(family, () => {
      it.each(cases.map((testCase) => [testCase.name, testCase] as const))("%s", (_name, testCase) => {
        const changes = run(testCase);
        const errors = changes.filter((change) => change.level === "error");
        if (testCase.check === "none") expect(changes.filter((c) => c.check !== "version-changed")).toEqual([]);
        else {
          expect(findCheck(testCase.check), `${testCase.check} is a listed check`).toBeDefined();
          expect(changes.map((change) => change.check)).toContain(testCase.check);
        }
        expect(errors.length > 0, JSON.stringify(changes, null, 1)).toBe(testCase.breaking);
      });
    });
  }

  it("covers both directions of every family", () => {
    for (const [family, cases] of Object.entries(families)) {
      if (family === "documentation and metadata") continue;
      expect(
        cases.some((c) => c.breaking),
        `${family} has a breaking case`,
      ).toBe(true);
      expect(
        cases.some((c) => !c.breaking),
        `${family} has a non-breaking case`,
      ).toBe(true);
    }
  });
});
