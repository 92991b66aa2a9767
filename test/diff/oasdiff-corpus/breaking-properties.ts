/**
 * oasdiff's end-to-end tests of properties (check_breaking_property_test.go): every check run, warnings and errors
 * asserted; properties of bodies, of an object header parameter, of array items; enums, null, requiredness,
 * read-only and write-only.
 */
import { api, breaking, type Doc, from, OK, object, parameters, requestBody, responseBody } from "./build.ts";

const test = from("check_breaking_property_test.go");

/** An object header parameter `network-policies` with these properties and required list. */
const policies = (properties: Doc, required?: string[]) =>
  parameters([
    {
      in: "header",
      name: "network-policies",
      content: { "application/json": { schema: object(properties, required) } },
    },
  ]);
const course = { courseId: { type: "string", description: "Unique ID of the course" } };
const pet = (properties: Doc, required: string[], openapi = "3.0.3") =>
  requestBody(object({ name: { type: "string" }, ...properties }, required), { openapi });
const answer = (properties: Doc, required: string[], openapi = "3.0.3") =>
  responseBody(object({ name: { type: "string" }, ...properties }, required), { openapi });
/** A schema used by both a request and a response, as oasdiff's read-only and write-only tests do. */
const shared = (properties: Doc, required: string[]) => {
  const ref = { $ref: "#/components/schemas/Pet" };
  return api(
    {
      "/pets": {
        post: {
          requestBody: { content: { "application/json": { schema: ref } } },
          responses: { "200": { description: "OK", content: { "application/json": { schema: ref } } } },
        },
      },
    },
    { components: { schemas: { Pet: object({ name: { type: "string" }, ...properties }, required) } } },
    "3.0.3",
  );
};
const items = (required: string[], id: Doc = { type: "string" }) =>
  requestBody({ type: "array", items: object({ id, name: { type: "string" } }, required) });
const category = (schema: Doc) =>
  api({ "/pets": { get: { parameters: [{ in: "query", name: "category", schema }], responses: OK } } });

export default [
  test(
    "TestBreaking_NewRequiredProperty",
    breaking(["new-required-request-header-property"]),
    policies({}),
    policies(course, ["courseId"]),
  ),
  test("TestBreaking_NewNonRequiredProperty", breaking([]), policies({}), policies(course)),
  test(
    "TestBreaking_PropertyRequiredEnabled",
    breaking(["request-header-property-became-required"]),
    policies(course, []),
    policies(course, ["courseId"]),
  ),
  test("TestBreaking_PropertyRequiredDisabled", breaking([]), policies(course, ["courseId"]), policies(course, [])),
  test(
    "TestBreaking_RespBodyRequiredPropertyDisabled",
    breaking(["response-property-became-optional"]),
    answer({ id: { type: "string" } }, ["name", "id"]),
    answer({ id: { type: "string" } }, ["name"]),
  ),
  test(
    "TestBreaking_ReqBodyBecameEnum",
    breaking(["request-body-became-enum"]),
    requestBody({ type: "string", description: "any text" }),
    requestBody({ type: "string", description: "Enum values", enum: ["VALUE_1", "VALUE_2", "VALUE_3"] }),
  ),
  test(
    "TestBreaking_ReqBodyEnumValueAdded",
    breaking([]),
    requestBody({ type: "string", enum: ["VALUE_1", "VALUE_2"] }),
    requestBody({ type: "string", enum: ["VALUE_1", "VALUE_2", "VALUE_3"] }),
  ),
  test(
    "TestBreaking_ReqBodyBecameEnumAndTypeChanged",
    breaking(["request-body-became-enum", "request-body-type-changed"]),
    requestBody({ type: "string", description: "any text" }),
    requestBody({ type: "integer", description: "Enum values", enum: [1, 2] }),
  ),
  test(
    "TestBreaking_ReqPropertyBecameEnum",
    breaking(["request-property-became-enum"]),
    pet({ category: { type: "string" } }, ["name"]),
    pet({ category: { type: "string", enum: ["VALUE_1", "VALUE_2", "VALUE_3"] } }, ["name"]),
  ),
  test(
    "TestBreaking_ReqParameterBecameEnum",
    breaking(["request-parameter-became-enum"]),
    category({ type: "string" }),
    category({ type: "string", enum: ["VALUE_1", "VALUE_2", "VALUE_3"] }),
  ),
  test(
    "TestBreaking_ReqParameterHeaderPropertyBecameEnum",
    breaking(["request-header-property-became-enum"]),
    policies({ kind: { type: "string" } }),
    policies({ kind: { type: "string", enum: ["VALUE_1", "VALUE_2", "VALUE_3"] } }),
  ),
  test(
    "TestBreaking_RespBodyNullable",
    breaking(["response-body-became-nullable"]),
    responseBody(object({ name: { type: "string" } }), { openapi: "3.0.3" }),
    responseBody(object({ name: { type: "string" } }, undefined, { nullable: true }), { openapi: "3.0.3" }),
  ),
  test(
    "TestBreaking_ReqBodyPropertyNotNullable",
    breaking(["request-property-became-not-nullable"]),
    pet({ age: { type: "integer", nullable: true } }, ["name"]),
    pet({ age: { type: "integer" } }, ["name"]),
  ),
  test(
    "TestBreaking_RespBodyPropertyNullable",
    breaking(["response-property-became-nullable"]),
    answer({ age: { type: "integer" } }, ["name"]),
    answer({ age: { type: "integer", nullable: true } }, ["name"]),
  ),
  test(
    "TestBreaking_RespBodyEmbeddedPropertyNullable",
    breaking(["response-property-became-nullable"]),
    answer({ owner: object({ age: { type: "integer" } }) }, ["name"]),
    answer({ owner: object({ age: { type: "integer", nullable: true } }) }, ["name"]),
  ),
  test(
    "TestBreaking_ReqBodyRequiredPropertyEnabled",
    breaking(["request-property-became-required"]),
    pet({ age: { type: "integer" } }, ["name"]),
    pet({ age: { type: "integer" } }, ["name", "age"]),
  ),
  test(
    "TestBreaking_ReqBodyRequiredPropertyDisabled",
    breaking([]),
    pet({ age: { type: "integer" } }, ["name", "age"]),
    pet({ age: { type: "integer" } }, ["name"]),
  ),
  test(
    "TestBreaking_ReqBodyNewRequiredProperty",
    breaking(["new-required-request-property"]),
    pet({}, ["name"]),
    pet({ age: { type: "integer" } }, ["name", "age"]),
  ),
  test(
    "TestBreaking_ReqBodyDeleteRequiredProperty",
    breaking(["request-property-removed"]),
    pet({ age: { type: "integer" } }, ["name", "age"]),
    pet({}, ["name"]),
  ),
  test(
    "TestBreaking_RespBodyNewRequiredProperty",
    breaking([]),
    answer({}, ["name"]),
    answer({ age: { type: "integer" } }, ["name", "age"]),
  ),
  test(
    "TestBreaking_RespBodyRequiredPropertyEnabled",
    breaking([]),
    answer({ age: { type: "integer" } }, ["name"]),
    answer({ age: { type: "integer" } }, ["name", "age"]),
  ),
  test(
    "TestBreaking_RespBodyDeleteRequiredProperty",
    breaking(["response-required-property-removed"]),
    answer({ age: { type: "integer" } }, ["name", "age"]),
    answer({}, ["name"]),
  ),
  test(
    "TestBreaking_ReadOnlyNewRequiredProperty",
    breaking([]),
    shared({}, ["name"]),
    shared({ id: { type: "string", readOnly: true } }, ["name", "id"]),
  ),
  test(
    "TestBreaking_ReadOnlyPropertyRequiredEnabled",
    breaking([]),
    shared({ id: { type: "string", readOnly: true } }, ["name"]),
    shared({ id: { type: "string", readOnly: true } }, ["name", "id"]),
  ),
  test(
    "TestBreaking_RequiredPropertyWriteOnlyEnabled",
    breaking([]),
    shared({ secret: { type: "string" } }, ["name", "secret"]),
    shared({ secret: { type: "string", writeOnly: true } }, ["name", "secret"]),
  ),
  test(
    "TestBreaking_WriteOnlyPropertyRequiredDisabled",
    breaking([]),
    shared({ secret: { type: "string", writeOnly: true } }, ["name", "secret"]),
    shared({ secret: { type: "string", writeOnly: true } }, ["name"]),
  ),
  test("TestBreaking_Items", breaking(["request-property-became-required"]), items([]), items(["id"])),
  test(
    "TestBreaking_ItemsWithDefault",
    breaking(["request-property-became-required-with-default"]),
    items([], { type: "string", default: "none" }),
    items(["id"], { type: "string", default: "none" }),
  ),
];
