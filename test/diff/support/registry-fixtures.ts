/**
 * The registry test's fixtures, keyed by the check's kind (its id without the direction): a change that makes it
 * fire and its compatible twin (the nearest change of the other kind) that leaves it quiet.
 */
import { type Any, type At, type Fixture, json, rename, things, webhook } from "./registry-base.ts";

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

export const FIXTURES: Record<string, Fixture> = {
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
