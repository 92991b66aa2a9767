/**
 * The registry's coverage: every registered check has a fixture pair that makes it fire and its compatible twin
 * (the nearest change of the other kind) that leaves it quiet; every check any fixture makes the gate report is
 * registered; a detector cannot report a check that is not its own. A check added without a fixture fails here.
 *
 * Fixtures are keyed by the check's kind (its id without the direction). A direction's `At` says where the kind
 * lives for `request-…` ids (the request of POST /things, the partner's answer to the webhook) and for
 * `response-…` ids (the response of POST /things, the webhook's delivery).
 */
import { describe, expect, it } from "vitest";
import { ChangeSink } from "../../scripts/lib/diff/changes.ts";
import { defineFamily, flow, type Out, rulesFor } from "../../scripts/lib/diff/checks/define.ts";
import { OASDIFF_RULES } from "../../scripts/lib/diff/oasdiff-rules.ts";
import { atLeast, type CheckId, findCheck, levelIn, ROWS } from "../../scripts/lib/diff/registry.ts";
import { diffContracts } from "../../scripts/lib/diff/report.ts";
import type { Document } from "../../scripts/lib/diff/resolve.ts";
import { compareDocuments } from "../../scripts/lib/diff/walk.ts";

type Any = any;

const object = () => ({
  type: "object",
  required: ["r"],
  properties: {
    p: { type: "string", maxLength: 10 },
    r: { type: "string" },
    o: { type: "string" },
    n: { type: "integer", minimum: 0 },
    ro: { type: "string", readOnly: true },
    wo: { type: "string", writeOnly: true },
    list: { type: "array", items: { type: "string" } },
  },
});
const json = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });

function baseDocument(): Any {
  return {
    openapi: "3.1.0",
    info: { title: "Registry", version: "1.0.0" },
    servers: [{ url: "https://a.example", variables: {} }],
    security: [{ Key: [] }],
    paths: {
      "/things": {
        post: {
          operationId: "createThing",
          tags: ["things"],
          parameters: [
            { name: "q", in: "query", schema: { type: "string" } },
            { name: "q2", in: "query", schema: { type: "string" } },
          ],
          requestBody: { content: json("In") },
          responses: {
            "201": {
              description: "Created",
              headers: { "X-H": { schema: { type: "string" } }, "X-H2": { schema: { type: "string" } } },
              content: json("Out"),
            },
            "404": { description: "Not found" },
          },
        },
        get: {
          operationId: "listThings",
          security: [{ Key: [] }, { Bearer: [] }],
          responses: { "200": { description: "ok" } },
        },
      },
      "/old": {
        get: { responses: { "200": { description: "ok" } } },
        delete: { operationId: "deleteOld", responses: { "204": { description: "gone" } } },
      },
    },
    webhooks: {
      "thing.created": {
        post: {
          requestBody: { content: json("Event") },
          responses: { "200": { description: "ok" }, "410": { description: "unsubscribe" } },
        },
      },
    },
    components: {
      schemas: { In: object(), Out: object(), Event: object() },
      securitySchemes: {
        Key: { type: "apiKey", in: "header", name: "X-Key" },
        Bearer: { type: "http", scheme: "bearer" },
      },
    },
  };
}

/** Where a kind lives for one direction's ids. */
interface At {
  obj(d: Any): Any;
  /** The property `name` of that object (`p` by default). */
  prop(d: Any, name?: string): Any;
  /** A property the reader ignores: read-only in a request, write-only in a response. */
  ignored: string;
  /** The first (`a`) or second (`b`) parameter (query in a request, header in a response). */
  param(d: Any, which?: "a" | "b"): Any;
  addParam(d: Any, name: string, param: Any): void;
  removeParam(d: Any, which?: "a" | "b"): void;
  /** The operation holding the body (its `requestBody`). */
  bodyOwner(d: Any): Any;
  /** A media type map. */
  content(d: Any): Any;
  responses(d: Any): Any;
  success: string;
  failure: string;
}

const things = (d: Any) => d.paths["/things"].post;
const webhook = (d: Any) => d.webhooks["thing.created"].post;
const request: At = {
  obj: (d) => d.components.schemas.In,
  prop: (d, name = "p") => d.components.schemas.In.properties[name],
  ignored: "ro",
  param: (d, which = "a") => things(d).parameters[which === "a" ? 0 : 1],
  addParam: (d, name, param) => things(d).parameters.push({ name, in: "query", ...param }),
  removeParam: (d, which = "a") => things(d).parameters.splice(which === "a" ? 0 : 1, 1),
  bodyOwner: things,
  content: (d) => things(d).requestBody.content,
  responses: (d) => webhook(d).responses,
  success: "200",
  failure: "410",
};
const response: At = {
  obj: (d) => d.components.schemas.Out,
  prop: (d, name = "p") => d.components.schemas.Out.properties[name],
  ignored: "wo",
  param: (d, which = "a") => things(d).responses["201"].headers[which === "a" ? "X-H" : "X-H2"],
  addParam: (d, name, param) => (things(d).responses["201"].headers[name] = param),
  removeParam: (d, which = "a") => delete things(d).responses["201"].headers[which === "a" ? "X-H" : "X-H2"],
  bodyOwner: webhook,
  content: (d) => things(d).responses["201"].content,
  responses: (d) => things(d).responses,
  success: "201",
  failure: "404",
};

interface Fixture {
  setup?: (d: Any, at: At) => void;
  fire: (d: Any, at: At) => void;
  /** The compatible twin: the nearest change that must not report this check. */
  quiet: (d: Any, at: At) => void;
}

const rename = (map: Any, from: string, to: string) => {
  map[to] = map[from];
  delete map[from];
};
const describeIt = (target: Any) => (target.description = "Reworded.");
const old = (d: Any) => d.paths["/old"];
const JSON_TYPE = "application/json";
const UTF8 = "application/json; charset=utf-8";
/** The JSON media type renamed to `start` first, then to `fire` (or to `quiet`, the twin). */
const renamedMedia = (start: string, fire: string, quiet: string): Fixture => ({
  setup: start === JSON_TYPE ? undefined : (d, at) => rename(at.content(d), JSON_TYPE, start),
  fire: (d, at) => rename(at.content(d), start, fire),
  quiet: (d, at) => rename(at.content(d), start, quiet),
});
/** The property's `key` set to `start` first (unless undefined), then to `fire` (or `quiet`); undefined deletes. */
function keywordOf(key: string, start: unknown, fire: unknown, quiet: unknown): Fixture {
  const set = (value: unknown) => (d: Any, at: At) => {
    if (value === undefined) delete at.prop(d)[key];
    else at.prop(d)[key] = structuredClone(value);
  };
  return { setup: start === undefined ? undefined : set(start), fire: set(fire), quiet: set(quiet) };
}
const withLink = (d: Any) =>
  (things(d).responses["201"].links = {
    next: { operationId: "listThings", parameters: { cursor: "$response.body#/r" } },
  });
const setMaxLength = (value: number) => (d: Any, at: At) => (at.prop(d).maxLength = value);

const FIXTURES: Record<string, Fixture> = {
  // Paths and operations.
  "path-removed": { fire: (d) => delete d.paths["/old"], quiet: (d) => delete old(d).delete },
  "path-added": {
    fire: (d) => (d.paths["/new"] = { get: { responses: {} } }),
    quiet: (d) => (old(d).post = { responses: {} }),
  },
  "operation-removed": { fire: (d) => delete old(d).delete, quiet: (d) => delete d.paths["/old"] },
  "operation-added": {
    fire: (d) => (old(d).post = { responses: {} }),
    quiet: (d) => (d.paths["/new"] = { get: { responses: {} } }),
  },
  "operation-id-changed": {
    fire: (d) => (old(d).delete.operationId = "removeOld"),
    quiet: (d) => (old(d).get.operationId = "getOld"),
  },
  "tags-changed": { fire: (d) => (things(d).tags = ["other"]), quiet: (d) => describeIt(things(d)) },
  // Deprecation, sunset, stability.
  "operation-removed-after-deprecation": {
    setup: (d) => (old(d).delete.deprecated = true),
    fire: (d) => delete old(d).delete,
    quiet: (d) => delete old(d).get,
  },
  "operation-removed-before-sunset": {
    setup: (d) => Object.assign(old(d).delete, { deprecated: true, "x-sunset": "2099-01-01" }),
    fire: (d) => delete old(d).delete,
    quiet: (d) => delete old(d).get,
  },
  "operation-deprecated": { fire: (d) => (old(d).delete.deprecated = true), quiet: (d) => describeIt(old(d).delete) },
  "operation-reactivated": {
    setup: (d) => (old(d).delete.deprecated = true),
    fire: (d) => delete old(d).delete.deprecated,
    quiet: (d) => describeIt(old(d).delete),
  },
  "sunset-removed": {
    setup: (d) => Object.assign(old(d).delete, { deprecated: true, "x-sunset": "2099-01-01" }),
    fire: (d) => delete old(d).delete["x-sunset"],
    quiet: (d) => (old(d).delete["x-sunset"] = "2099-06-01"),
  },
  "sunset-earlier": {
    setup: (d) => Object.assign(old(d).delete, { deprecated: true, "x-sunset": "2099-01-01" }),
    fire: (d) => (old(d).delete["x-sunset"] = "2098-01-01"),
    quiet: (d) => (old(d).delete["x-sunset"] = "2099-06-01"),
  },
  "sunset-later": {
    setup: (d) => Object.assign(old(d).delete, { deprecated: true, "x-sunset": "2099-01-01" }),
    fire: (d) => (old(d).delete["x-sunset"] = "2099-06-01"),
    quiet: (d) => (old(d).delete["x-sunset"] = "2098-01-01"),
  },
  "sunset-invalid": {
    setup: (d) => (old(d).delete.deprecated = true),
    fire: (d) => (old(d).delete["x-sunset"] = "soon"),
    quiet: (d) => (old(d).delete["x-sunset"] = "2099-01-01"),
  },
  "operation-removed-unstable": {
    setup: (d) => (old(d).delete["x-stability-level"] = "alpha"),
    fire: (d) => delete old(d).delete,
    quiet: (d) => delete old(d).get,
  },
  "stability-decreased": {
    setup: (d) => (old(d).delete["x-stability-level"] = "beta"),
    fire: (d) => (old(d).delete["x-stability-level"] = "alpha"),
    quiet: (d) => (old(d).delete["x-stability-level"] = "stable"),
  },
  "stability-increased": {
    setup: (d) => (old(d).delete["x-stability-level"] = "beta"),
    fire: (d) => (old(d).delete["x-stability-level"] = "stable"),
    quiet: (d) => (old(d).delete["x-stability-level"] = "alpha"),
  },
  "stability-invalid": {
    fire: (d) => (old(d).delete["x-stability-level"] = "gamma"),
    quiet: (d) => (old(d).delete["x-stability-level"] = "stable"),
  },
  "parameter-removed-after-deprecation": {
    setup: (d, at) => (at.param(d).deprecated = true),
    fire: (d, at) => at.removeParam(d),
    quiet: (d, at) => at.removeParam(d, "b"),
  },
  "parameter-removed-before-sunset": {
    setup: (d, at) => Object.assign(at.param(d), { deprecated: true, "x-sunset": "2099-01-01" }),
    fire: (d, at) => at.removeParam(d),
    quiet: (d, at) => at.removeParam(d, "b"),
  },
  "parameter-reactivated": {
    setup: (d, at) => (at.param(d).deprecated = true),
    fire: (d, at) => delete at.param(d).deprecated,
    quiet: (d, at) => describeIt(at.param(d)),
  },
  "parameter-deprecated": {
    fire: (d, at) => (at.param(d).deprecated = true),
    quiet: (d, at) => describeIt(at.param(d)),
  },
  // Webhooks.
  "webhook-removed": {
    fire: (d) => delete d.webhooks["thing.created"],
    quiet: (d) => (d.webhooks["thing.deleted"] = { post: { responses: {} } }),
  },
  "webhook-removed-after-deprecation": {
    setup: (d) => (webhook(d).deprecated = true),
    fire: (d) => delete d.webhooks["thing.created"],
    quiet: (d) => (d.webhooks["thing.deleted"] = { post: { responses: {} } }),
  },
  "webhook-added": {
    fire: (d) => (d.webhooks["thing.deleted"] = { post: { responses: {} } }),
    quiet: (d) => delete d.webhooks["thing.created"],
  },
  // Security.
  "security-requirement-removed": {
    fire: (d) => d.paths["/things"].get.security.pop(),
    quiet: (d) => d.paths["/things"].get.security.push({ Other: [] }),
  },
  "security-requirement-added": {
    fire: (d) => d.paths["/things"].get.security.push({ Other: [] }),
    quiet: (d) => d.paths["/things"].get.security.pop(),
  },
  "security-made-optional": {
    fire: (d) => (d.paths["/things"].get.security = []),
    quiet: (d) => d.paths["/things"].get.security.pop(),
  },
  "security-anonymous-access-removed": {
    setup: (d) => (old(d).get.security = []),
    fire: (d) => delete old(d).get.security,
    quiet: (d) => (old(d).get.security = [{}]),
  },
  "security-scope-added": {
    setup: (d) => (old(d).get.security = [{ Key: ["read"] }]),
    fire: (d) => old(d).get.security[0].Key.push("write"),
    quiet: (d) => (old(d).get.security[0].Key = []),
  },
  "security-scope-removed": {
    setup: (d) => (old(d).get.security = [{ Key: ["read"] }]),
    fire: (d) => (old(d).get.security[0].Key = []),
    quiet: (d) => old(d).get.security[0].Key.push("write"),
  },
  "security-scheme-removed": {
    fire: (d) => delete d.components.securitySchemes.Bearer,
    quiet: (d) => (d.components.securitySchemes.Basic = { type: "http", scheme: "basic" }),
  },
  "security-scheme-added": {
    fire: (d) => (d.components.securitySchemes.Basic = { type: "http", scheme: "basic" }),
    quiet: (d) => delete d.components.securitySchemes.Bearer,
  },
  "security-scheme-changed": {
    fire: (d) => (d.components.securitySchemes.Bearer.bearerFormat = "JWT"),
    quiet: (d) => describeIt(d.components.securitySchemes.Bearer),
  },
  "security-scheme-wire-changed": {
    fire: (d) => (d.components.securitySchemes.Key.name = "X-Other"),
    quiet: (d) => describeIt(d.components.securitySchemes.Key),
  },
  // Parameters and headers.
  "parameter-removed": {
    fire: (d, at) => at.removeParam(d),
    quiet: (d, at) => at.addParam(d, "extra", { schema: {} }),
  },
  "parameter-added-required": {
    fire: (d, at) => at.addParam(d, "extra", { required: true, schema: {} }),
    quiet: (d, at) => at.addParam(d, "extra", { schema: {} }),
  },
  "parameter-added-optional": {
    fire: (d, at) => at.addParam(d, "extra", { schema: {} }),
    quiet: (d, at) => at.addParam(d, "extra", { required: true, schema: {} }),
  },
  "parameter-became-required": {
    fire: (d, at) => (at.param(d).required = true),
    quiet: (d, at) => describeIt(at.param(d)),
  },
  "parameter-became-optional": {
    setup: (d, at) => (at.param(d).required = true),
    fire: (d, at) => delete at.param(d).required,
    quiet: (d, at) => describeIt(at.param(d)),
  },
  "parameter-serialization-changed": {
    setup: (d, at) => (at.param(d).schema = { type: "array", items: { type: "string" } }),
    fire: (d, at) => (at.param(d).style = "pipeDelimited"),
    quiet: (d, at) => (at.param(d).schema.items.maxLength = 5),
  },
  "parameter-reserved-disallowed": {
    setup: (d, at) => (at.param(d).allowReserved = true),
    fire: (d, at) => delete at.param(d).allowReserved,
    quiet: (d, at) => describeIt(at.param(d)),
  },
  "parameter-reserved-allowed": {
    fire: (d, at) => (at.param(d).allowReserved = true),
    quiet: (d, at) => describeIt(at.param(d)),
  },
  "header-values-changed": {
    setup: (d, at) => (at.param(d).schema.maxLength = 5),
    fire: (d, at) => (at.param(d).schema.maxLength = 10),
    quiet: (d, at) => (at.param(d).schema.type = "integer"),
  },
  // Bodies and media types.
  "body-removed": {
    fire: (d, at) => delete at.bodyOwner(d).requestBody,
    quiet: (d, at) => (at.bodyOwner(d).requestBody.required = true),
  },
  "body-added-required": {
    setup: (d, at) => delete at.bodyOwner(d).requestBody,
    fire: (d, at) => (at.bodyOwner(d).requestBody = { required: true, content: json("In") }),
    quiet: (d, at) => (at.bodyOwner(d).requestBody = { content: json("In") }),
  },
  "body-added-optional": {
    setup: (d, at) => delete at.bodyOwner(d).requestBody,
    fire: (d, at) => (at.bodyOwner(d).requestBody = { content: json("In") }),
    quiet: (d, at) => (at.bodyOwner(d).requestBody = { required: true, content: json("In") }),
  },
  "body-became-required": {
    fire: (d, at) => (at.bodyOwner(d).requestBody.required = true),
    quiet: (d, at) => describeIt(at.bodyOwner(d).requestBody),
  },
  "body-became-optional": {
    setup: (d, at) => (at.bodyOwner(d).requestBody.required = true),
    fire: (d, at) => (at.bodyOwner(d).requestBody.required = false),
    quiet: (d, at) => describeIt(at.bodyOwner(d).requestBody),
  },
  "media-type-removed": {
    setup: (d, at) => (at.content(d)["application/xml"] = {}),
    fire: (d, at) => delete at.content(d)["application/xml"],
    quiet: (d, at) => (at.content(d)["text/plain"] = {}),
  },
  "media-type-added": {
    fire: (d, at) => (at.content(d)["text/plain"] = {}),
    quiet: (d, at) => describeIt(at.content(d)["application/json"]),
  },
  "media-type-widened": renamedMedia(JSON_TYPE, "application/*", "application/json; charset=utf-8"),
  "media-type-narrowed": renamedMedia("application/*", JSON_TYPE, "*/*"),
  "media-type-parameters-added": renamedMedia(JSON_TYPE, UTF8, "application/*"),
  "media-type-parameters-removed": renamedMedia(UTF8, JSON_TYPE, "application/json;Charset=UTF-8"),
  "media-type-parameters-changed": renamedMedia(
    UTF8,
    "application/json; charset=utf-16",
    "application/json;Charset=UTF-8",
  ),
  "media-schema-added": {
    setup: (d, at) => delete at.content(d)["application/json"].schema,
    fire: (d, at) => (at.content(d)["application/json"].schema = { type: "object" }),
    quiet: (d, at) => describeIt(at.content(d)["application/json"]),
  },
  "media-schema-removed": {
    fire: (d, at) => delete at.content(d)["application/json"].schema,
    quiet: (d, at) => (at.content(d)["application/json"].schema = { type: "object" }),
  },
  "success-status-removed": {
    fire: (d, at) => rename(at.responses(d), at.success, "202"),
    quiet: (d, at) => delete at.responses(d)[at.failure],
  },
  "status-removed": {
    fire: (d, at) => delete at.responses(d)[at.failure],
    quiet: (d, at) => (at.responses(d)["409"] = { description: "x" }),
  },
  "status-added": {
    fire: (d, at) => (at.responses(d)["409"] = { description: "x" }),
    quiet: (d, at) => delete at.responses(d)[at.failure],
  },
  // Properties.
  "required-field-removed": {
    fire: (d, at) => {
      delete at.obj(d).properties.r;
      at.obj(d).required = [];
    },
    quiet: (d, at) => delete at.obj(d).properties.o,
  },
  "optional-field-removed": {
    fire: (d, at) => delete at.obj(d).properties.o,
    quiet: (d, at) => {
      delete at.obj(d).properties.r;
      at.obj(d).required = [];
    },
  },
  "field-removed-after-deprecation": {
    setup: (d, at) => (at.prop(d, "o").deprecated = true),
    fire: (d, at) => delete at.obj(d).properties.o,
    quiet: (d, at) => delete at.obj(d).properties.p,
  },
  "field-added-required": {
    fire: (d, at) => {
      at.obj(d).properties.x = { type: "string" };
      at.obj(d).required.push("x");
    },
    quiet: (d, at) => (at.obj(d).properties.x = { type: "string" }),
  },
  "field-added-optional": {
    fire: (d, at) => (at.obj(d).properties.x = { type: "string" }),
    quiet: (d, at) => {
      at.obj(d).properties.x = { type: "string" };
      at.obj(d).required.push("x");
    },
  },
  "field-became-required": {
    fire: (d, at) => at.obj(d).required.push("o"),
    quiet: (d, at) => (at.obj(d).required = []),
  },
  "field-became-optional": {
    fire: (d, at) => (at.obj(d).required = []),
    quiet: (d, at) => at.obj(d).required.push("o"),
  },
  "ignored-field-changed": {
    fire: (d, at) => delete at.obj(d).properties[at.ignored],
    quiet: (d, at) => delete at.obj(d).properties.o,
  },
  "required-field-no-longer-write-only": {
    setup: (d, at) => at.obj(d).required.push("wo"),
    fire: (d, at) => delete at.prop(d, "wo").writeOnly,
    quiet: (d, at) => describeIt(at.prop(d, "wo")),
  },
  "mutability-changed": {
    fire: (d, at) => (at.prop(d, "o").readOnly = true),
    quiet: (d, at) => describeIt(at.prop(d, "o")),
  },
  // Schema keywords.
  "type-changed": {
    fire: (d, at) => (at.prop(d).type = "integer"),
    quiet: (d, at) => (at.prop(d).type = ["string", "integer"]),
  },
  "type-narrowed": keywordOf("type", ["string", "integer"], "string", ["string", "integer", "boolean"]),
  "type-widened": {
    fire: (d, at) => (at.prop(d).type = ["string", "integer"]),
    quiet: (d, at) => (at.prop(d).type = "integer"),
  },
  "nullable-added": { fire: (d, at) => (at.prop(d).type = ["string", "null"]), quiet: setMaxLength(20) },
  "nullable-removed": keywordOf("type", ["string", "null"], "string", ["string", "null", "integer"]),
  "format-changed": keywordOf("format", "email", "uri", undefined),
  "format-added": { fire: (d, at) => (at.prop(d).format = "email"), quiet: setMaxLength(20) },
  "format-removed": keywordOf("format", "email", undefined, "uri"),
  "const-changed": keywordOf("const", "a", "b", undefined),
  "const-added": { fire: (d, at) => (at.prop(d).const = "a"), quiet: setMaxLength(20) },
  "const-removed": keywordOf("const", "a", undefined, "b"),
  "default-changed": {
    fire: (d, at) => (at.prop(d).default = "x"),
    quiet: (d, at) => (at.param(d).schema.default = "x"),
  },
  "parameter-default-changed": {
    fire: (d, at) => (at.param(d).schema.default = "x"),
    quiet: (d, at) => (at.prop(d).default = "x"),
  },
  "constraint-narrowed": { fire: setMaxLength(5), quiet: setMaxLength(20) },
  "constraint-widened": { fire: setMaxLength(20), quiet: setMaxLength(5) },
  "constraint-changed": {
    setup: (d, at) => (at.prop(d, "n").multipleOf = 4),
    fire: (d, at) => (at.prop(d, "n").multipleOf = 6),
    quiet: (d, at) => (at.prop(d, "n").multipleOf = 2),
  },
  "pattern-added": { fire: (d, at) => (at.prop(d).pattern = "^a+$"), quiet: (d, at) => (at.prop(d).pattern = ".*") },
  "pattern-removed": keywordOf("pattern", "^a+$", undefined, "^b+$"),
  "pattern-changed": keywordOf("pattern", "^a+$", "^b+$", ".*"),
  "items-narrowed": {
    setup: (d, at) => delete at.prop(d, "list").items,
    fire: (d, at) => (at.prop(d, "list").items = { type: "string" }),
    quiet: (d, at) => (at.prop(d, "list").maxItems = 5),
  },
  "items-widened": {
    fire: (d, at) => delete at.prop(d, "list").items,
    quiet: (d, at) => (at.prop(d, "list").maxItems = 5),
  },
  "prefix-items-changed": {
    fire: (d, at) => (at.prop(d, "list").prefixItems = [{ type: "integer" }]),
    quiet: (d, at) => (at.prop(d, "list").prefixItems = [{ type: "string" }]),
  },
  "properties-narrowed": {
    fire: (d, at) => (at.obj(d).propertyNames = { pattern: "^[a-z]+$" }),
    quiet: (d, at) => (at.obj(d).additionalProperties = true),
  },
  "properties-widened": {
    setup: (d, at) => (at.obj(d).propertyNames = { pattern: "^[a-z]+$" }),
    fire: (d, at) => delete at.obj(d).propertyNames,
    quiet: (d, at) => (at.obj(d).propertyNames = { pattern: "^[a-y]+$" }),
  },
  "closed-object-opened": {
    setup: (d, at) => (at.obj(d).additionalProperties = false),
    fire: (d, at) => delete at.obj(d).additionalProperties,
    quiet: (d, at) => (at.obj(d).properties.x = { type: "string" }),
  },
  "content-encoding-changed": { fire: (d, at) => (at.prop(d).contentEncoding = "base64"), quiet: setMaxLength(20) },
  "discriminator-changed": {
    fire: (d, at) => (at.obj(d).discriminator = { propertyName: "r" }),
    quiet: (d, at) => describeIt(at.obj(d)),
  },
  "variant-removed": {
    setup: (d, at) =>
      (at.obj(d).properties.p = {
        oneOf: [
          { type: "string", minLength: 1 },
          { type: "integer", minimum: 0 },
        ],
      }),
    fire: (d, at) => at.prop(d).oneOf.pop(),
    quiet: (d, at) => at.prop(d).oneOf.push({ type: "boolean", const: true }),
  },
  "variant-added": {
    setup: (d, at) =>
      (at.obj(d).properties.p = {
        oneOf: [
          { type: "string", minLength: 1 },
          { type: "integer", minimum: 0 },
        ],
      }),
    fire: (d, at) => at.prop(d).oneOf.push({ type: "boolean", const: true }),
    quiet: (d, at) => at.prop(d).oneOf.pop(),
  },
  "allof-member-added": {
    setup: (d, at) => (at.obj(d).properties.p = { allOf: [{ type: "string" }] }),
    fire: (d, at) => at.prop(d).allOf.push({ maxLength: 3 }),
    quiet: (d, at) => at.prop(d).allOf.push({ description: "Annotation only." }),
  },
  "allof-member-removed": {
    setup: (d, at) => {
      Object.assign(d.components.schemas, { Short: { maxLength: 3 }, Note: { description: "Annotation only." } });
      at.obj(d).properties.p = { allOf: [{ type: "string" }, { $ref: "#/components/schemas/Short" }] };
    },
    fire: (d, at) => at.prop(d).allOf.splice(1, 1),
    quiet: (d, at) => at.prop(d).allOf.push({ $ref: "#/components/schemas/Note" }),
  },
  "conditional-changed": {
    setup: (d, at) =>
      Object.assign(at.obj(d), { if: { properties: { r: { const: "a" } } }, then: { required: ["o"] } }),
    fire: (d, at) => (at.obj(d).if.properties.r.const = "b"),
    quiet: (d, at) => delete at.obj(d).then,
  },
  "conditional-added": {
    fire: (d, at) => Object.assign(at.obj(d), { if: { properties: { r: { const: "a" } } }, then: { required: ["o"] } }),
    quiet: (d, at) => describeIt(at.obj(d)),
  },
  "conditional-removed": {
    setup: (d, at) =>
      Object.assign(at.obj(d), { if: { properties: { r: { const: "a" } } }, then: { required: ["o"] } }),
    fire: (d, at) => {
      delete at.obj(d).if;
      delete at.obj(d).then;
    },
    quiet: (d, at) => (at.obj(d).if.properties.r.const = "b"),
  },
  // Enums.
  "enum-value-removed": {
    setup: (d, at) => (at.prop(d).enum = ["a", "b"]),
    fire: (d, at) => (at.prop(d).enum = ["a"]),
    quiet: (d, at) => at.prop(d).enum.push("c"),
  },
  "enum-value-added": {
    setup: (d, at) => (at.prop(d).enum = ["a", "b"]),
    fire: (d, at) => at.prop(d).enum.push("c"),
    quiet: (d, at) => (at.prop(d).enum = ["a"]),
  },
  "enum-added": { fire: (d, at) => (at.prop(d).enum = ["a"]), quiet: setMaxLength(20) },
  "enum-removed": {
    setup: (d, at) => (at.prop(d).enum = ["a", "b"]),
    fire: (d, at) => delete at.prop(d).enum,
    quiet: (d, at) => at.prop(d).enum.push("c"),
  },
  "extensible-enum-value-removed": {
    setup: (d, at) => (at.prop(d)["x-extensible-enum"] = ["a", "b"]),
    fire: (d, at) => (at.prop(d)["x-extensible-enum"] = ["a"]),
    quiet: (d, at) => at.prop(d)["x-extensible-enum"].push("c"),
  },
  "extensible-enum-value-added": {
    setup: (d, at) => (at.prop(d)["x-extensible-enum"] = ["a", "b"]),
    fire: (d, at) => at.prop(d)["x-extensible-enum"].push("c"),
    quiet: (d, at) => (at.prop(d)["x-extensible-enum"] = ["a"]),
  },
  // Links (response links only: an operation's answer leads to the next call).
  "link-removed": {
    setup: withLink,
    fire: (d) => delete things(d).responses["201"].links.next,
    quiet: (d) => describeIt(things(d).responses["201"].links.next),
  },
  "link-retargeted": {
    setup: withLink,
    fire: (d) => (things(d).responses["201"].links.next.operationId = "createThing"),
    quiet: (d) => describeIt(things(d).responses["201"].links.next),
  },
  "link-added": {
    setup: withLink,
    fire: (d) => (things(d).responses["201"].links.again = { operationId: "createThing" }),
    quiet: (d) => delete things(d).responses["201"].links.next,
  },
  // The document.
  "version-changed": { fire: (d) => (d.info.version = "2.0.0"), quiet: (d) => (d.info.title = "Renamed") },
  "openapi-version-changed": { fire: (d) => (d.openapi = "3.1.1"), quiet: (d) => (d.info.title = "Renamed") },
  "schema-component-removed": {
    setup: (d) => (d.components.schemas.Spare = { type: "string" }),
    fire: (d) => delete d.components.schemas.Spare,
    quiet: (d) => (d.components.schemas.Spare.description = "Reworded."),
  },
  "server-removed": { fire: (d) => d.servers.pop(), quiet: (d) => d.servers.push({ url: "https://b.example" }) },
  "server-added": { fire: (d) => d.servers.push({ url: "https://b.example" }), quiet: (d) => d.servers.pop() },
  "server-changed": {
    fire: (d) => (d.servers[0].variables.region = { default: "eu" }),
    quiet: (d) => describeIt(d.servers[0]),
  },
  "extension-changed": { fire: (d, at) => (at.prop(d)["x-note"] = "a"), quiet: (d, at) => describeIt(at.prop(d)) },
  "documentation-changed": { fire: (d, at) => describeIt(at.prop(d)), quiet: (d, at) => (at.prop(d)["x-note"] = "a") },
  "keyword-changed": { fire: (d, at) => (at.prop(d).contentHint = "text"), quiet: (d, at) => describeIt(at.prop(d)) },
};

function reported(fixture: Fixture, at: At, mutate: (d: Any, at: At) => void): string[] {
  const base = baseDocument();
  fixture.setup?.(base, at);
  const head = structuredClone(base);
  mutate(head, at);
  return compareDocuments(base as Document, head as Document, { today: "2026-06-01" }).map((change) => change.check);
}

describe("every registered check has a fixture pair that fires it and a compatible twin that does not", () => {
  it.each(ROWS.map((row) => [row.id, row] as const))("%s", (_id, row) => {
    const fixture = FIXTURES[row.kind];
    expect(fixture, `no fixture for ${row.id}: add one to FIXTURES in this file`).toBeDefined();
    const at = row.direction === "response" ? response : request;
    const fired = reported(fixture!, at, fixture!.fire);
    expect(fired, `${row.id} must fire`).toContain(row.id);
    const quiet = reported(fixture!, at, fixture!.quiet);
    expect(quiet, `${row.id} must stay quiet on its compatible twin`).not.toContain(row.id);
    for (const id of [...fired, ...quiet]) expect(findCheck(id), `${id} is registered`).toBeDefined();
  });

  it("has no fixture for a check that is not registered", () => {
    const kinds = new Set(ROWS.map((row) => row.kind));
    expect(Object.keys(FIXTURES).filter((kind) => !kinds.has(kind))).toEqual([]);
  });

  it("the base document compares equal to itself", () => {
    const base = baseDocument();
    expect(compareDocuments(base, structuredClone(base))).toEqual([]);
  });
});

describe("a detector reports only its own checks", () => {
  const family = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
  const stray = family.detector("stray", ["schema"], ["enum-value-renamed"], () => {});
  const [row] = ROWS.filter((candidate) => candidate.id === "request-enum-value-removed");

  it("throws on a kind no row declares", () => {
    const out = new ChangeSink().out(stray, "toService");
    expect(() => out.emit("enum-value-renamed", "#/x", "renamed")).toThrow(/no registry row declares/);
  });

  it("throws on another detector's check", () => {
    const out: Out = new ChangeSink().out(stray, "toService");
    expect(() => out.emit("enum-value-removed", "#/x", "removed")).toThrow(
      new RegExp(`its row names ${row!.detector.name}`),
    );
  });

  it("throws on an oasdiff rule the check does not cover", () => {
    const out: Out = new ChangeSink().out(row!.detector, "toService");
    expect(() =>
      out.emit("enum-value-removed", "#/x", "removed", { oasdiff: "response-property-enum-value-removed" }),
    ).toThrow(/as oasdiff's response-property-enum-value-removed, which the row does not cover/);
  });

  it("rejects a family whose kind no detector reports, or two do", () => {
    const lonely = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
    expect(() => lonely.rows()).toThrow(/kind enum-value-renamed is reported by no detector/);
    const twice = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
    twice.detector("one", ["schema"], ["enum-value-renamed"], () => {});
    twice.detector("other", ["schema"], ["enum-value-renamed"], () => {});
    expect(() => twice.rows()).toThrow(/kind enum-value-renamed is reported by one and other/);
  });

  it("holds kinds, check ids and oasdiff ids as types: a typo is a tsc error", () => {
    const family = defineFamily("enums", import.meta.url, { "enum-value-renamed": flow("Renamed", ["error", "info"]) });
    // @ts-expect-error a kind the family does not declare
    family.detector("typo", ["schema"], ["enum-valu-renamed"], () => {});
    family.detector("emits", ["schema"], ["enum-value-renamed"], (_pair, out) => {
      // @ts-expect-error a kind the detector does not list
      out.emit("enum-value-renamd", "#/x", "renamed");
    });
    // @ts-expect-error an oasdiff id oasdiff's table does not have
    flow("Renamed", ["error", "info"], { request: ["request-property-enum-value-renamed"] });
    // @ts-expect-error a suffix no oasdiff rule has
    rulesFor("request", ["enum-value-renamed"]);
    const id: CheckId = "response-optional-field-removed";
    // @ts-expect-error a check id the registry does not have
    const typo: CheckId = "response-optional-feld-removed";
    expect([id, typo]).toHaveLength(2);
  });
});

describe("oasdiff's levels (scripts/lib/diff/oasdiff-rules.ts, read from its checker/rules.go)", () => {
  const mapped = ROWS.flatMap((row) => row.oasdiff.map((id) => [row.id, id] as const));

  it("gives each mapped rule oasdiff's level under --profile oasdiff, and a default never looser", () => {
    expect(mapped.length).toBeGreaterThan(300);
    const wrong = mapped.flatMap(([id, rule]) => {
      const row = findCheck(id)!;
      const level = OASDIFF_RULES[rule].level;
      const problems: string[] = [];
      if (levelIn(row, "oasdiff", rule) !== level)
        problems.push(`${id} under --profile oasdiff is not ${rule}'s ${level}`);
      if (!atLeast(row.level, level)) problems.push(`${id} is ${row.level} by default, looser than ${rule} (${level})`);
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  it("maps a request check only to oasdiff's request rules, a response check only to its response rules", () => {
    const crossed = ROWS.flatMap((row) =>
      row.direction === "request" || row.direction === "response"
        ? row.oasdiff.filter((rule) => !["none", row.direction].includes(OASDIFF_RULES[rule].direction))
        : [],
    );
    expect(crossed).toEqual([]);
  });

  it("a change of a check whose rules differ in level must name its rule", () => {
    const mixed = ROWS.find((row) => row.id === "request-constraint-narrowed")!;
    expect(() => levelIn(mixed, "oasdiff")).toThrow(/covers oasdiff rules of different levels/);
    expect(levelIn(mixed, "oasdiff", "request-property-max-length-set")).toBe("warning");
    expect(levelIn(mixed, "oasdiff", null)).toBe("error"); // oasdiff has no rule for the case: this gate's level
  });

  it("an optional response field removed is at least a warning in both profiles", () => {
    const row = findCheck("response-optional-field-removed")!;
    for (const profile of ["default", "oasdiff"] as const) expect(atLeast(levelIn(row, profile), "warning")).toBe(true);
  });
});

describe("the default profile's stricter picks", () => {
  it("each check stricter than oasdiff on a rule it covers says why (the docs' table shows it)", () => {
    const stricter = ROWS.filter((row) => row.oasdiff.some((rule) => OASDIFF_RULES[rule].level !== row.level));
    expect(stricter.length).toBeGreaterThan(0);
    expect(stricter.filter((row) => !row.why).map((row) => row.id)).toEqual([]);
  });

  it("no check says why it is stricter when it is not", () => {
    const idle = ROWS.filter((row) => row.why && row.oasdiff.every((rule) => OASDIFF_RULES[rule].level === row.level));
    expect(idle.map((row) => row.id)).toEqual([]);
  });
});

/**
 * What oasdiff's own tests found this gate doing differently (issue 28), each fix with its case and its nearest
 * twin: the change, the check it reports, the oasdiff rule that change is, and its level in both profiles.
 */
describe("the fixes oasdiff's tests called for", () => {
  const levelsOf = (setup: (d: Any) => void, mutate: (d: Any) => void) => {
    const base = baseDocument();
    setup(base);
    const head = structuredClone(base);
    mutate(head);
    const run = (profile: "default" | "oasdiff") =>
      diffContracts(
        { document: base, label: "base" },
        { document: head, label: "head" },
        { profile, today: "2026-06-01" },
      )
        .changes.filter((change) => change.check !== "request-documentation-changed")
        .map((change) => `${change.check} ${change.level}`);
    return { byDefault: run("default"), oasdiff: run("oasdiff") };
  };
  const none = () => {};
  const inBody = (d: Any) => d.components.schemas.In.properties.p;
  const outBody = (d: Any) => d.components.schemas.Out.properties.p;
  const query = (d: Any) => things(d).parameters[0];

  interface Fix {
    fix: string;
    setup: (d: Any) => void;
    fire: (d: Any) => void;
    twin: (d: Any) => void;
    reported: string[];
    oasdiff: string[];
  }
  const FIXES: Fix[] = [
    {
      fix: "an empty pattern is no pattern: '' → a pattern is a pattern added",
      setup: (d: Any) => (inBody(d).pattern = ""),
      fire: (d: Any) => (inBody(d).pattern = "^a+$"),
      twin: (d: Any) => (inBody(d).pattern = ".*"),
      reported: ["request-pattern-added error"],
      oasdiff: ["request-pattern-added error"],
    },
    {
      fix: "an optional request parameter's default changed is an error (oasdiff's), a required one's documentation",
      setup: (d: Any) => (query(d).schema.default = "a"),
      fire: (d: Any) => (query(d).schema.default = "b"),
      twin: (d: Any) => (inBody(d).default = "b"),
      reported: ["request-parameter-default-changed error"],
      oasdiff: ["request-parameter-default-changed error"],
    },
    {
      fix: "an enum value added to a response: an error here, oasdiff's warning under its profile",
      setup: (d: Any) => (outBody(d).enum = ["a", "b"]),
      fire: (d: Any) => outBody(d).enum.push("c"),
      twin: (d: Any) => (outBody(d)["x-extensible-enum"] = ["c"]),
      reported: ["response-enum-value-added error"],
      oasdiff: ["response-enum-value-added warning"],
    },
    {
      fix: "a maxLength set for the first time in a request is oasdiff's …-max-length-set (a warning), lowered its …-decreased",
      setup: none,
      fire: (d: Any) => {
        delete inBody(d).maxLength;
        d.components.schemas.In.properties.o.maxLength = 5;
      },
      twin: (d: Any) => (inBody(d).maxLength = 5),
      reported: ["request-constraint-narrowed error"],
      oasdiff: ["request-constraint-narrowed warning"],
    },
    {
      fix: "an exclusiveMinimum set for the first time is oasdiff's …-exclusive-min-set (a warning)",
      setup: none,
      fire: (d: Any) => (d.components.schemas.In.properties.n = { type: "integer", exclusiveMinimum: 0 }),
      twin: (d: Any) => (d.components.schemas.In.properties.n.minimum = 1),
      reported: ["request-constraint-narrowed error"],
      oasdiff: ["request-constraint-narrowed warning"],
    },
    {
      fix: "an object parameter's property changing to a type its text form reads is oasdiff's warning",
      setup: (d: Any) =>
        Object.assign(query(d), {
          style: "deepObject",
          schema: { type: "object", properties: { id: { type: "number" } } },
        }),
      fire: (d: Any) => (query(d).schema.properties.id.type = "string"),
      twin: (d: Any) => (query(d).schema.properties.id.type = "boolean"),
      reported: ["request-type-changed error"],
      oasdiff: ["request-type-changed warning"],
    },
    {
      fix: "a pattern removed from a response property: an error here, oasdiff's information",
      setup: (d: Any) => (outBody(d).pattern = "^a+$"),
      fire: (d: Any) => delete outBody(d).pattern,
      twin: (d: Any) => (outBody(d).pattern = "^[ab]+$"),
      reported: ["response-pattern-removed error"],
      oasdiff: ["response-pattern-removed info"],
    },
    {
      fix: "XML carries text: an object may become a string in a request (compatible), not so in JSON",
      setup: (d: Any) => rename(things(d).requestBody.content, "application/json", "application/xml"),
      fire: (d: Any) => (things(d).requestBody.content["application/xml"].schema = { type: "string" }),
      twin: (d: Any) => {
        rename(things(d).requestBody.content, "application/xml", "application/json");
        things(d).requestBody.content["application/json"].schema = { type: "string" };
      },
      reported: ["request-type-widened info"],
      oasdiff: ["request-type-widened info"],
    },
    {
      fix: "an optional response field removed is an error by default (partners read it), oasdiff's warning in its profile",
      setup: none,
      fire: (d: Any) => delete d.components.schemas.Out.properties.o,
      twin: (d: Any) => (d.components.schemas.Out.properties.o.deprecated = true),
      reported: ["response-optional-field-removed error"],
      oasdiff: ["response-optional-field-removed warning"],
    },
  ];
  it.each(FIXES)("$fix", ({ setup, fire, twin, reported, oasdiff }) => {
    const fired = levelsOf(setup, fire);
    expect(fired.byDefault).toEqual(expect.arrayContaining(reported));
    expect(fired.oasdiff).toEqual(expect.arrayContaining(oasdiff));
    // The twin is the nearest change judged otherwise (in this gate's profile or oasdiff's).
    const quiet = levelsOf(setup, twin);
    expect([quiet.byDefault, quiet.oasdiff]).not.toEqual([
      expect.arrayContaining(reported),
      expect.arrayContaining(oasdiff),
    ]);
  });
});
