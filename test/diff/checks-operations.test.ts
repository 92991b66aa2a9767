/** The fixture corpus (support/corpus.ts) for paths and operations, deprecation and sunset, stability levels and parameters. */
import { type Case, corpusSuite, item, listParams, schemas } from "./support/corpus.ts";

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
};

corpusSuite(families);
