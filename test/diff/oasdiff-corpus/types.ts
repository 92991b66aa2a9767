/**
 * oasdiff's tests of types and formats: request and response bodies and properties, parameters (whose values are
 * text), response headers, object parameters' properties (text or JSON: a warning where the two readings differ),
 * a scalar query parameter becoming a form-exploded array, and media types that are not JSON.
 */
import {
  api,
  breaking,
  type Doc,
  edit,
  every,
  from,
  OK,
  object,
  one,
  requestBody,
  responseBody,
  responseHeaders,
} from "./build.ts";

const requestTypes = from("check_breaking_request_type_changed_test.go");
const responseTypes = from("check_breaking_response_type_changed_test.go");
const requestProperty = from("check_request_property_type_changed_test.go");
const responseProperty = from("check_response_property_type_changed_test.go");
const parameterTypes = from("check_request_parameters_type_changed_test.go");
const headerTypes = from("check_response_header_type_changed_test.go");

const body = (schema: Doc) => requestBody(schema);
const answer = (schema: Doc) => responseBody(schema);
const pet = (age: Doc) => requestBody(object({ name: { type: "string", format: "string" }, age }, ["name"]));
const groupName = (name: Doc) =>
  responseBody(
    object({
      data: object({ created: { type: "string", format: "date-time" }, name: { type: "string", ...name } }, ["name"]),
    }),
  );

/** The three parameters of POST /groups: a path `groupId`, a query `token`, a header `X-Request-ID`. */
const TOKEN = { type: "string", format: "uuid", pattern: "^[0-9a-f-]{36}$", maxLength: 36 };
function groups(path: Doc = {}, token: Doc = TOKEN, header: Doc = {}): Doc {
  return api({
    "/groups/{groupId}": {
      post: {
        operationId: "createOneGroup",
        parameters: [
          { in: "path", name: "groupId", required: true, schema: { type: "string", ...path } },
          { in: "query", name: "token", schema: token },
          { in: "header", name: "X-Request-ID", required: true, schema: { type: "string", format: "uuid", ...header } },
        ],
        responses: OK,
      },
    },
  });
}

/** `GET /groups?filters[groupId]=…`: an object query parameter (deepObject) whose property `groupId` changes. */
const filters = (groupId: Doc) =>
  api(
    {
      "/groups": {
        get: {
          operationId: "getGroups",
          parameters: [
            {
              name: "filters",
              in: "query",
              style: "deepObject",
              explode: true,
              schema: { $ref: "#/components/schemas/GroupFilters" },
            },
          ],
          responses: OK,
        },
      },
    },
    {
      components: {
        schemas: {
          GroupFilters: object({
            groupId: { ...groupId, nullable: true },
            name: { type: "array", items: { type: "string" } },
          }),
        },
      },
    },
    "3.0.3",
  );

const tokenOnly = (schema: Doc) =>
  api(
    {
      "/groups": {
        post: { operationId: "createOneGroup", parameters: [{ in: "query", name: "token", schema }], responses: OK },
      },
    },
    {},
  );

/**
 * `/pets` taking an array of pets (or, `wrapped`, an object whose `data` is that array) and `/dogs` taking a dog
 * whose `colors` are an array of integers (or, `wrapped`, an object of three).
 */
function petsAndDogs(wrapped: boolean): Doc {
  const pets = { type: "array", items: object({ name: { type: "string" }, age: { type: "integer" } }, ["name"]) };
  const colors = wrapped
    ? object({ red: { type: "integer" }, green: { type: "integer" }, blue: { type: "integer" } }, [
        "red",
        "blue",
        "green",
      ])
    : { type: "array", items: { type: "integer" } };
  const post = (schema: Doc) => ({
    post: { requestBody: { content: { "application/json": { schema } } }, responses: OK },
  });
  return api({
    "/pets": post(wrapped ? object({ data: pets }, ["data"]) : pets),
    "/dogs": post(object({ name: { type: "string" }, colors }, ["name"])),
  });
}

const rateLimit = (schema: Doc) => responseHeaders({ "X-RateLimit-Limit": { schema } });

export default [
  requestTypes(
    "TestBreaking_ReqTypeStringToNumber",
    breaking(["request-body-type-changed"]),
    body({ type: "string" }),
    body({ type: "number" }),
  ),
  requestTypes(
    "TestBreaking_ReqTypeNumberToString",
    breaking(["request-body-type-changed"]),
    body({ type: "number" }),
    body({ type: "string" }),
  ),
  requestTypes(
    "TestBreaking_ReqTypeNumberToInteger",
    breaking(["request-body-type-changed"]),
    body({ type: "number" }),
    body({ type: "integer" }),
  ),
  requestTypes(
    "TestBreaking_ReqTypeIntegerToNumber",
    every(["request-body-type-generalized"]),
    body({ type: "integer" }),
    body({ type: "number" }),
  ),
  requestTypes(
    "TestBreaking_ReqTypeUnionNarrowed",
    breaking(["request-body-type-changed"]),
    body({ type: ["string", "integer"] }),
    body({ type: "string" }),
  ),
  requestTypes(
    "TestBreaking_ReqTypeStringDeleted",
    every(["request-body-type-generalized"]),
    body({ type: "string" }),
    body({}),
  ),
  requestTypes(
    "TestBreaking_ReqTypeNumberToInt32",
    breaking(["request-body-type-changed"]),
    body({ type: "number" }),
    body({ type: "integer", format: "int32" }),
  ),
  responseTypes(
    "TestBreaking_RespTypeStringToNumber",
    breaking(["response-body-type-changed"]),
    answer({ type: "string" }),
    answer({ type: "number" }),
  ),
  responseTypes(
    "TestBreaking_RespTypeNumberToString",
    breaking(["response-body-type-changed"]),
    answer({ type: "number" }),
    answer({ type: "string" }),
  ),
  responseTypes(
    "TestBreaking_RespTypeNumberToInteger",
    breaking([]),
    answer({ type: "number" }),
    answer({ type: "integer" }),
  ),
  responseTypes(
    "TestBreaking_RespTypeIntegerToNumber",
    breaking(["response-body-type-generalized"]),
    answer({ type: "integer" }),
    answer({ type: "number" }),
  ),
  responseTypes(
    "TestBreaking_RespTypeNumberToInt32",
    breaking([]),
    answer({ type: "number" }),
    answer({ type: "integer", format: "int32" }),
  ),
  responseTypes(
    "TestBreaking_RespTypeChanged",
    breaking(["response-property-type-changed"]),
    answer(object({ testField: { type: "string", description: "A nested view" } })),
    answer(object({ testField: { type: "integer", format: "int32", description: "A nested view" } })),
  ),
  requestProperty(
    "TestRequestBodyTypeChangedCheck",
    one(["request-body-type-changed"]),
    pet({ type: "integer", format: "int32" }),
    edit(pet({ type: "integer", format: "int32" }), (d) => {
      d.paths["/pets"].post.requestBody.content["application/json"].schema.type = "array";
    }),
  ),
  requestProperty(
    "TestRequestPropertyTypeChangedCheck",
    one(["request-property-type-changed"]),
    pet({ type: "integer", format: "int32" }),
    pet({ type: "string", format: "string" }),
  ),
  requestProperty(
    "TestRequestPropertyTypeUnionNarrowedCheck",
    one(["request-property-type-changed"]),
    pet({ type: ["string", "integer"] }),
    pet({ type: "string" }),
  ),
  requestProperty(
    "TestRequestPropertyTypeDeletedCheck",
    one(["request-property-type-generalized"]),
    pet({ type: "string" }),
    pet({}),
  ),
  requestProperty(
    "TestRequestPropertyFormatChangedCheck",
    one(["request-property-type-changed"]),
    pet({ type: "integer", format: "int32" }),
    pet({ type: "integer", format: "uuid" }),
  ),
  requestProperty(
    "TestRequestPropertyFormatChangedCheckNonBreaking",
    one(["request-property-type-generalized"]),
    pet({ type: "integer", format: "int32" }),
    pet({ type: "number", format: "int32" }),
  ),
  requestProperty(
    "TestRequestBodyAndPropertyTypesChangedCheckArrayToObject",
    one(["request-property-type-changed", "request-body-type-changed"]),
    petsAndDogs(false),
    petsAndDogs(true),
  ),
  // The tests that say a change must not be breaking assert only that: nothing at level error.
  requestProperty(
    "TestRequestBodyTypeWideningMultiTypeNotBreaking",
    one([], "error"),
    body({ type: "string" }),
    body({ type: ["string", "integer"] }),
  ),
  requestProperty("TestRequestBodyTypeRemovedNotBreaking", one([], "error"), body({ type: "string" }), body({})),
  requestProperty(
    "TestRequestBodyTypeNarrowingStillBreaking",
    one(["request-body-type-changed"]),
    body({ type: ["string", "integer"] }),
    body({ type: "string" }),
  ),
  requestProperty(
    "TestRequestBodyTypeAddedFromUntypedStillBreaking",
    one(["request-body-type-changed"]),
    body({}),
    body({ type: "string" }),
  ),
  requestProperty(
    "TestRequestBodyTypeWidenWithBreakingFormatStillBreaking",
    one(["request-body-type-changed"]),
    body({ type: "integer", format: "int64" }),
    body({ type: ["integer", "string"], format: "int32" }),
  ),
  // application/xml is text: an object may now be sent as a string.
  requestProperty(
    "TestRequestBodyTypeLooselyTypedCompatible",
    one(["request-body-type-compatible"]),
    requestBody({ type: "object" }, { media: "application/xml" }),
    requestBody({ type: "string" }, { media: "application/xml" }),
  ),
  responseProperty(
    "TestResponseSchemaTypeChangedCheck",
    one(["response-body-type-changed"]),
    answer({ type: "string" }),
    answer(object({ data: object({ name: { type: "string" } }, ["name"]) })),
  ),
  responseProperty(
    "TestResponsePropertyTypeChangedCheck",
    one(["response-property-type-changed"]),
    groupName({}),
    groupName({ type: "integer" }),
  ),
  responseProperty(
    "TestResponsePropertyFormatChangedCheck",
    one(["response-property-type-changed"]),
    groupName({ format: "hostname" }),
    groupName({ format: "uuid" }),
  ),
  responseProperty(
    "TestResponseSchemaTypeMultiCheck",
    one(["response-property-type-generalized"]),
    groupName({}),
    groupName({ type: ["integer", "string"] }),
  ),
  responseProperty(
    "TestResponseAdditionalPropertyTypeChangedCheck",
    one(["response-property-type-changed"]),
    answer({ type: "object", additionalProperties: object({ property1: { title: "Value", type: "integer" } }) }),
    answer({ type: "object", additionalProperties: object({ property1: { title: "Value", type: "string" } }) }),
  ),
  responseProperty(
    "TestResponseBodyTypeNarrowingMultiTypeNotBreaking",
    one(["response-body-type-specialized"]),
    answer({ type: ["string", "integer"] }),
    answer({ type: "string" }),
  ),
  responseProperty(
    "TestResponseBodyTypeSpecializedIsInfo",
    one(["response-body-type-specialized"]),
    answer({ type: "number" }),
    answer({ type: "integer" }),
  ),
  responseProperty(
    "TestResponseBodyTypeAddedFromUntypedNotBreaking",
    one([], "error"),
    answer({}),
    answer({ type: "string" }),
  ),
  responseProperty(
    "TestResponseBodyTypeWideningStillBreaking",
    one(["response-body-type-generalized"]),
    answer({ type: "string" }),
    answer({ type: ["string", "integer"] }),
  ),
  responseProperty(
    "TestResponseBodyTypeRemovedStillBreaking",
    one(["response-body-type-changed"]),
    answer({ type: "string" }),
    answer({}),
  ),
  responseProperty(
    "TestResponseBodyTypeNarrowWithBreakingFormatStillBreaking",
    one(["response-body-type-changed"]),
    answer({ type: ["integer", "string"], format: "int32" }),
    answer({ type: "integer", format: "int64" }),
  ),
  responseProperty(
    "TestResponseBodyTypeLooselyTypedCompatible",
    one(["response-body-type-compatible"]),
    responseBody({ type: "string" }, { media: "application/xml" }),
    responseBody({ type: "object" }, { media: "application/xml" }),
  ),
  parameterTypes(
    "TestRequestPathParamTypeChanged",
    one(["request-parameter-type-changed"]),
    groups(),
    groups({ type: "integer" }),
  ),
  parameterTypes(
    "TestRequestQueryParamTypeChanged",
    one(["request-parameter-type-changed"]),
    groups(),
    groups({}, { ...TOKEN, type: "integer" }),
  ),
  parameterTypes(
    "TestRequestQueryHeaderTypeChanged",
    one(["request-parameter-type-changed"]),
    groups(),
    groups({}, TOKEN, { type: "integer" }),
  ),
  parameterTypes(
    "TestRequestPathParamFormatChanged",
    one(["request-parameter-type-changed"]),
    groups(),
    groups({ format: "uuid" }),
  ),
  parameterTypes(
    "TestRequestQueryParamFormatChanged",
    one(["request-parameter-type-changed"]),
    groups(),
    groups({}, { ...TOKEN, format: "uri" }),
  ),
  parameterTypes(
    "TestRequestQueryHeaderFormatChanged",
    one(["request-parameter-type-changed"]),
    groups(),
    groups({}, TOKEN, { format: "uri" }),
  ),
  parameterTypes(
    "TestRequestPathParamTypeAddString",
    one(["request-parameter-type-generalized"]),
    groups({ type: "integer" }),
    groups({ type: ["integer", "string"] }),
  ),
  parameterTypes(
    "TestRequestPathParamTypeIntegerToNumber",
    one(["request-parameter-type-generalized"]),
    groups({ type: ["integer", "string"] }),
    groups({ type: ["number", "string"] }),
  ),
  parameterTypes(
    "TestRequestQueryParamSingleToListOfTypesNotDuplicated",
    one(["request-parameter-list-of-types-widened"]),
    groups(),
    groups({}, { oneOf: [{ type: "string" }, { type: "integer" }] }),
  ),
  parameterTypes(
    "TestBreaking_ReqQueryParamTypeNumberToString",
    one(["request-parameter-property-type-changed"]),
    filters({ type: "number" }),
    filters({ type: "string" }),
  ),
  parameterTypes(
    "TestBreaking_ReqQueryParamTypeStringToNumber",
    one(["request-parameter-property-type-specialized"]),
    filters({ type: "string" }),
    filters({ type: "number" }),
  ),
  parameterTypes(
    "TestBreaking_ReqQueryParamTypeIntegerToNumber",
    one(["request-parameter-property-type-generalized"]),
    filters({ type: "integer" }),
    filters({ type: "number" }),
  ),
  // A form-exploded query parameter (the default) may become an array whose items take what it took:
  // `?token=a` is a one-element array. A path parameter has no such reading.
  parameterTypes(
    "TestRequestQueryParamScalarToFormExplodeArray",
    one(["request-parameter-type-generalized"]),
    groups(),
    groups({}, { type: "array", items: TOKEN }),
  ),
  parameterTypes(
    "TestRequestPathParamScalarToArrayStillBreaking",
    one(["request-parameter-type-changed"]),
    groups(),
    groups({ type: "array", items: { type: "string" } }),
  ),
  parameterTypes(
    "TestRequestPathParamFormatRemoved",
    one(["request-parameter-type-generalized"]),
    groups({ format: "uuid" }),
    groups(),
  ),
  parameterTypes(
    "TestResponsePropertyFormatRemovedCheck",
    one(["response-property-type-changed"]),
    groupName({ format: "hostname" }),
    groupName({}),
  ),
  parameterTypes(
    "TestRequestQueryParamScalarToFormExplodeArray_31Nullable",
    one(["request-parameter-type-generalized"]),
    tokenOnly({ type: ["string", "null"] }),
    tokenOnly({ type: ["array", "null"], items: { type: ["string", "null"] } }),
  ),
  parameterTypes(
    "TestRequestQueryParamMultiTypeToFormExplodeArraySafe",
    one(["request-parameter-type-generalized"]),
    tokenOnly({ type: ["string", "integer"] }),
    tokenOnly({ type: "array", items: { type: "string" } }),
  ),
  parameterTypes(
    "TestRequestQueryParamWideningToNarrowerItemTypeStillBreaking",
    one(["request-parameter-type-changed"]),
    tokenOnly({ type: ["string", "integer"] }),
    tokenOnly({ type: "array", items: { type: "integer" } }),
  ),
  parameterTypes(
    "TestRequestQueryParamScalarToConstrainedArrayBreaking",
    one(["request-parameter-type-changed"]),
    tokenOnly({ type: "string" }),
    tokenOnly({ type: "array", items: { type: "string", pattern: "^[a-z]+$" } }),
  ),
  parameterTypes(
    "TestRequestQueryParamMultiTypeToConstrainedArrayBreaking",
    one(["request-parameter-type-changed"]),
    tokenOnly({ type: ["string", "integer"] }),
    tokenOnly({ type: "array", items: { type: "string", pattern: "^[a-z]+$" } }),
  ),
  headerTypes(
    "TestResponseHeaderTypeChanged_StringDateTimeToInteger",
    breaking(["response-header-type-changed"]),
    rateLimit({ type: "string", format: "date-time" }),
    rateLimit({ type: "integer" }),
  ),
  headerTypes(
    "TestResponseHeaderTypeChanged_IntegerToNumberIsGeneralized",
    breaking(["response-header-type-generalized"]),
    rateLimit({ type: "integer" }),
    rateLimit({ type: "number" }),
  ),
  headerTypes(
    "TestResponseHeaderTypeChanged_StringToIntegerIsCompatible",
    every(["response-header-type-compatible"]),
    rateLimit({ type: "string" }),
    rateLimit({ type: "integer" }),
  ),
];
