/**
 * oasdiff's end-to-end tests (check_breaking_test.go): every check run, the breaking changes (warning and error)
 * asserted, on a document with an install-command operation (path, header and query parameters, a response
 * header) and a security-score operation (several statuses, tags) of our own writing.
 */
import { api, breaking, type Doc, edit, every, from, OK, object, one } from "./build.ts";

const install = "/api/{domain}/{project}/install-command";
const score = "/api/{domain}/{project}/badges/security-score";

function tufin(): Doc {
  return api(
    {
      [install]: {
        get: {
          operationId: "GetInstallCommand",
          parameters: [
            { in: "path", name: "domain", required: true, schema: { type: "string" } },
            { in: "path", name: "project", required: true, schema: { type: "string" } },
            { in: "header", name: "network-policies", schema: { type: "string" } },
            { in: "query", name: "type", schema: { type: "string", enum: ["standard", "enterprise"] } },
          ],
          responses: {
            default: {
              description: "Install command",
              headers: { "X-RateLimit-Limit": { schema: { type: "integer" } } },
              content: { "text/plain": { schema: { type: "string" } } },
            },
          },
        },
      },
      [score]: {
        get: {
          operationId: "GetSecurityScores",
          tags: ["security"],
          parameters: [
            { in: "path", name: "domain", required: true, schema: { type: "string" } },
            { in: "path", name: "project", required: true, schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "The score",
              content: { "application/json": { schema: object({ score: { type: "integer" } }) } },
            },
            "400": { description: "Bad request" },
          },
        },
      },
    },
    {},
    "3.0.3",
  );
}

const installGet = (d: Doc) => d.paths[install].get;
const header = (d: Doc) => installGet(d).parameters[2];
const rateLimit = (d: Doc) => installGet(d).responses.default.headers["X-RateLimit-Limit"];
const changed = (base: (d: Doc) => void, revision: (d: Doc) => void) =>
  [edit(tufin(), base), edit(tufin(), revision)] as const;

/** A body in a request and a response: GroupView with a read-only `created` whose pattern the tests change. */
const groups = (created: Doc) => {
  const view = { $ref: "#/components/schemas/GroupView" };
  return api(
    {
      "/api/v1.0/groups": {
        post: {
          operationId: "createOneGroup",
          requestBody: { required: true, content: { "application/json": { schema: view } } },
          responses: { "200": { description: "OK", content: { "application/json": { schema: view } } } },
        },
      },
    },
    {
      components: {
        schemas: {
          GroupView: object(
            {
              created: { type: "string", format: "date-time", readOnly: true, ...created },
              id: { type: "string", readOnly: true },
              name: { type: "string" },
            },
            ["name"],
          ),
        },
      },
    },
    "3.0.3",
  );
};
const groupParameter = (pattern: string) =>
  api({
    "/api/v1.0/groups/{groupId}": {
      get: {
        operationId: "returnOneGroup",
        parameters: [{ in: "path", name: "groupId", required: true, schema: { type: "string", pattern } }],
        responses: OK,
      },
    },
  });

const test = from("check_breaking_test.go");
const notBreaking = from("check_not_breaking_test.go");

/** `/subscribe` whose callback answers with a link to an operation. */
const subscribe = (operationId: string) =>
  api({
    "/subscribe": {
      post: {
        callbacks: {
          myEvent: {
            "{$request.body#/callbackUrl}": {
              post: {
                responses: { "200": { description: "OK", links: { test: { operationId } } } },
              },
            },
          },
        },
        responses: OK,
      },
    },
  });

export default [
  test(
    "TestBreaking_AddingRequiredRequestBody",
    breaking(["request-body-added-required"]),
    ...changed(
      () => {},
      (d) =>
        (installGet(d).requestBody = {
          required: true,
          content: { "application/json": { schema: { type: "object" } } },
        }),
    ),
  ),
  test(
    "TestBreaking_RequestBodyRequiredEnabled",
    breaking(["request-body-became-required"]),
    ...changed(
      (d) =>
        (installGet(d).requestBody = {
          required: false,
          content: { "application/json": { schema: { type: "object" } } },
        }),
      (d) =>
        (installGet(d).requestBody = {
          required: true,
          content: { "application/json": { schema: { type: "object" } } },
        }),
    ),
  ),
  test(
    "TestBreaking_DeletedEnum",
    breaking(["request-parameter-enum-value-removed"]),
    ...changed(
      () => {},
      (d) => (installGet(d).parameters[3].schema.enum = ["standard"]),
    ),
  ),
  test(
    "TestBreaking_PathParamRename",
    breaking([]),
    api({
      "/books/{bookId}": {
        parameters: [{ in: "path", name: "bookId", required: true, schema: { type: "string" } }],
        get: { responses: OK },
      },
    }),
    api({
      "/books/{id}": {
        parameters: [{ in: "path", name: "id", required: true, schema: { type: "string" } }],
        get: { responses: OK },
      },
    }),
  ),
  test(
    "TestBreaking_NewRequiredHeaderParam",
    breaking(["new-required-request-parameter"]),
    ...changed(
      (d) => installGet(d).parameters.splice(2, 1),
      (d) => (header(d).required = true),
    ),
  ),
  test(
    "TestBreaking_HeaderParamRequiredEnabled",
    breaking(["request-parameter-became-required"]),
    ...changed(
      (d) => (header(d).required = false),
      (d) => (header(d).required = true),
    ),
  ),
  test(
    "TestBreaking_ResponseHeaderParamRequiredDisabled",
    breaking(["response-header-became-optional"]),
    ...changed(
      (d) => (rateLimit(d).required = true),
      (d) => (rateLimit(d).required = false),
    ),
  ),
  test(
    "TestBreaking_ResponseHeaderRemoved",
    breaking(["required-response-header-removed"]),
    ...changed(
      (d) => (rateLimit(d).required = true),
      (d) => delete installGet(d).responses.default.headers["X-RateLimit-Limit"],
    ),
  ),
  test(
    "TestBreaking_OptionalResponseHeaderRemoved",
    breaking(["optional-response-header-removed"]),
    ...changed(
      () => {},
      (d) => delete installGet(d).responses.default.headers["X-RateLimit-Limit"],
    ),
  ),
  test(
    "TestBreaking_ResponseSuccessStatusUpdated",
    breaking(["response-success-status-removed"]),
    ...changed(
      () => {},
      (d) => delete d.paths[score].get.responses["200"],
    ),
  ),
  test(
    "TestBreaking_ResponseNonSuccessStatusUpdated",
    every(["response-non-success-status-removed"]),
    ...changed(
      () => {},
      (d) => delete d.paths[score].get.responses["400"],
    ),
  ),
  test(
    "TestBreaking_ResponseErrorStatusRemoved",
    breaking([]),
    ...changed(
      () => {},
      (d) => delete d.paths[score].get.responses["400"],
    ),
  ),
  test(
    "TestBreaking_OperationIdRemoved",
    every(["api-operation-id-removed"]),
    ...changed(
      () => {},
      (d) => (d.paths[score].get.operationId = "newOperationId"),
    ),
  ),
  test(
    "TestBreaking_TagRemoved",
    one(["api-tag-removed"]),
    ...changed(
      () => {},
      (d) => (d.paths[score].get.tags = ["newTag"]),
    ),
  ),
  // The pattern of a read-only property of a schema used in a request and a response.
  test("TestBreaking_DeletePatten", breaking([]), groups({ pattern: "^[a-z]+$" }), groups({})),
  test(
    "TestBreaking_AddPattern",
    breaking(["request-property-pattern-added"]),
    groups({}),
    groups({ pattern: "^[a-z]+$" }),
    { judgment: "read-only-in-request" },
  ),
  test(
    "TestBreaking_ModifyPattern",
    breaking(["request-property-pattern-changed"]),
    groups({ pattern: "^[a-z]+$" }),
    groups({ pattern: ".+" }),
    { judgment: "read-only-in-request" },
  ),
  test("TestBreaking_GeneralizedPattern", breaking([]), groups({ pattern: "^[a-z]+$" }), groups({ pattern: ".*" })),
  test(
    "TestBreaking_ModifyParameterPattern",
    breaking(["request-parameter-pattern-changed"]),
    groupParameter("[0-9a-f]+"),
    groupParameter("[0-9]+"),
  ),
  test(
    "TestBreaking_ModifyRequiredOptionalParamDefaultValue",
    breaking(["request-parameter-default-value-changed"]),
    ...changed(
      (d) => (header(d).schema.default = "X"),
      (d) => (header(d).schema.default = "Y"),
    ),
  ),
  test(
    "TestBreaking_SettingOptionalParamDefaultValue",
    breaking(["request-parameter-default-value-added"]),
    ...changed(
      () => {},
      (d) => (header(d).schema.default = "Y"),
    ),
  ),
  test(
    "TestBreaking_RemovingOptionalParamDefaultValue",
    breaking(["request-parameter-default-value-removed"]),
    ...changed(
      (d) => (header(d).schema.default = "Y"),
      () => {},
    ),
  ),
  test(
    "TestBreaking_ModifyRequiredRequiredParamDefaultValue",
    breaking([]),
    ...changed(
      (d) => Object.assign(header(d), { required: true, schema: { type: "string", default: "X" } }),
      (d) => Object.assign(header(d), { required: true, schema: { type: "string", default: "Y" } }),
    ),
  ),
  test(
    "TestBreaking_SchemaRemoved",
    every(["api-schema-removed"]),
    api({}, { components: { schemas: { Network: { type: "string" }, Project: { type: "object" } } } }),
    api({}, { components: { schemas: {} } }),
  ),
  notBreaking(
    "TestBreaking_AddingOptionalRequestBody",
    breaking([]),
    ...changed(
      () => {},
      (d) =>
        (installGet(d).requestBody = {
          required: false,
          content: { "application/json": { schema: { type: "object" } } },
        }),
    ),
  ),
  notBreaking(
    "TestBreaking_RequestBodyRequiredDisabled",
    every(["request-body-became-optional"]),
    ...changed(
      (d) =>
        (installGet(d).requestBody = {
          required: true,
          content: { "application/json": { schema: { type: "object" } } },
        }),
      (d) =>
        (installGet(d).requestBody = {
          required: false,
          content: { "application/json": { schema: { type: "object" } } },
        }),
    ),
  ),
  notBreaking(
    "TestBreaking_NewOptionalHeaderParam",
    breaking([]),
    ...changed(
      (d) => installGet(d).parameters.splice(2, 1),
      () => {},
    ),
  ),
  notBreaking(
    "TestBreaking_HeaderParamRequiredDisabled",
    every(["request-parameter-became-optional"]),
    ...changed(
      (d) => (header(d).required = true),
      (d) => (header(d).required = false),
    ),
  ),
  notBreaking(
    "TestBreaking_NewRequiredResponseHeader",
    breaking([]),
    ...changed(
      (d) => delete installGet(d).responses.default.headers["X-RateLimit-Limit"],
      (d) => (rateLimit(d).required = true),
    ),
  ),
  notBreaking(
    "TestBreaking_OperationID",
    breaking([]),
    ...changed(
      () => {},
      (d) => (d.paths[score].get.operationId = "GetSecurityScoresRenamed"),
    ),
  ),
  // A link in a callback's answer: oasdiff has no rule for links; this gate does not walk callbacks.
  notBreaking(
    "TestBreaking_LinkOperationID",
    breaking([]),
    subscribe("GetSecurityScores"),
    subscribe("GetSecurityScoresRenamed"),
  ),
  notBreaking(
    "TestBreaking_DeprecatedOperation",
    every(["endpoint-deprecated-with-sunset"]),
    ...changed(
      () => {},
      (d) => Object.assign(installGet(d), { deprecated: true, "x-sunset": "2099-01-01" }),
    ),
  ),
  notBreaking(
    "TestBreaking_DeprecatedParameter",
    breaking([]),
    ...changed(
      () => {},
      (d) => (header(d).deprecated = true),
    ),
  ),
  notBreaking(
    "TestBreaking_DeprecatedHeader",
    breaking([]),
    ...changed(
      () => {},
      (d) => (rateLimit(d).deprecated = true),
    ),
  ),
  notBreaking(
    "TestBreaking_DeprecatedSchema",
    breaking([]),
    ...changed(
      () => {},
      (d) => (header(d).schema.deprecated = true),
    ),
  ),
];
