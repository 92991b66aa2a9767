/** oasdiff's tests of enums, `x-extensible-enum`, defaults and constants, in requests, parameters and responses. */
import {
  api,
  type Doc,
  from,
  OK,
  object,
  one,
  parameters,
  query,
  requestBody,
  requestMedia,
  responseBody,
  responseMedia,
} from "./build.ts";

const requestEnum = from("check_request_property_enum_value_updated_test.go");
const parameterEnum = from("check_request_parameter_enum_value_updated_test.go");
const responseEnumAdded = from("check_response_property_enum_value_added_test.go");
const responseEnumRemoved = from("check_response_property_enum_value_removed_test.go");
const requestExtensible = from("check_request_property_x_extensible_enum_value_removed_test.go");
const parameterExtensible = from("check_request_parameter_x_extensible_enum_value_removed_test.go");
const parameterBecameEnum = from("check_request_parameter_became_enum_test.go");
const requestDefault = from("check_request_property_default_value_changed_test.go");
const responseDefault = from("check_response_property_default_value_changed_test.go");
const parameterDefault = from("check_request_parameters_default_value_changed_test.go");
const requestConst = from("check_request_property_const_changed_test.go");
const responseConst = from("check_response_property_const_changed_test.go");

const category = (more: Doc) =>
  requestBody(object({ name: { type: "string" }, category: { type: "string", ...more } }));
const status = (values: string[]) => parameters([query("status", { type: "string", enum: values })]);
const filter = (values: string[]) =>
  parameters([
    query(
      "filter",
      { type: "object", properties: { origin: { type: "string", enum: values } } },
      { style: "deepObject", explode: true },
    ),
  ]);
const group = (typeEnum: string[], writeOnlyEnum: string[]) =>
  responseBody(
    object({
      data: object({
        typeEnum: { type: "string", enum: typeEnum },
        writeOnlyEnum: { type: "string", writeOnly: true, enum: writeOnlyEnum },
      }),
    }),
  );
const groupId = (schema: Doc) => parameters([{ name: "groupId", in: "query", required: true, schema }]);

const products = (plain: Doc, price: Doc) =>
  requestMedia({
    "text/plain": { type: "string", ...plain },
    "application/json": object({ name: { type: "string" }, price: { type: "number", ...price } }),
  });
const groupsDefault = (notFound: Doc, created: Doc, enabled: Doc = { default: false }) =>
  responseMedia({
    "200": {
      "application/json": object({
        data: object({
          created: { type: "string", format: "date-time", ...created },
          enabled: { type: "boolean", ...enabled },
        }),
      }),
    },
    "404": { "text/plain": { type: "string", ...notFound } },
  });
const groupsConst = (notFound: Doc, ok: Doc) =>
  responseMedia({
    "200": { "application/json": object({ status: { type: "string", ...ok } }) },
    "404": { "text/plain": { type: "string", ...notFound } },
  });
const statusConst = (plain: Doc, status: Doc) =>
  requestMedia({
    "text/plain": { type: "string", ...plain },
    "application/json": object({ name: { type: "string" }, status: { type: "string", ...status } }),
  });
const categoryDefault = (value?: string, required = false) =>
  parameters([query("category", { type: "string", ...(value === undefined ? {} : { default: value }) }, { required })]);

export default [
  requestEnum(
    "TestRequestPropertyEnumValueRemovedCheck",
    one(["request-property-enum-value-removed"], "error"),
    category({ enum: ["dog", "cat", "bird"] }),
    category({ enum: ["dog", "cat"] }),
  ),
  requestEnum(
    "TestRequestReadOnlyPropertyEnumValueRemovedCheck",
    one(["request-read-only-property-enum-value-removed"]),
    category({ enum: ["dog", "cat", "bird"] }),
    category({ enum: ["dog", "cat"], readOnly: true }),
  ),
  requestEnum(
    "TestRequestPropertyEnumValueAddedCheck",
    one(["request-property-enum-value-added"]),
    category({ enum: ["dog", "cat"] }),
    category({ enum: ["dog", "cat", "bird"] }),
  ),
  parameterEnum(
    "TestRequestParameterEnumValueRemovedCheck",
    one(["request-parameter-enum-value-removed"], "error"),
    status(["available", "busy", "offline"]),
    status(["busy", "offline"]),
  ),
  parameterEnum(
    "TestRequestParameterEnumValueAddedCheck",
    one(["request-parameter-enum-value-added"]),
    status(["busy", "offline"]),
    status(["available", "busy", "offline"]),
  ),
  parameterEnum(
    "TestRequestParameterPropertyEnumValueRemovedCheck",
    one(["request-parameter-property-enum-value-removed"], "error"),
    filter(["value-a", "value-b", "value-c"]),
    filter(["value-a", "value-c"]),
  ),
  parameterEnum(
    "TestRequestParameterPropertyEnumValueAddedCheck",
    one(["request-parameter-property-enum-value-added"]),
    filter(["value-a", "value-c"]),
    filter(["value-a", "value-b", "value-c"]),
  ),
  responseEnumAdded(
    "TestResponsePropertyEnumValueAdded",
    one(["response-property-enum-value-added"]),
    group(["TYPE1", "TYPE2"], ["TYPE1", "TYPE2"]),
    group(["Test"], ["TYPE1", "TYPE2"]),
  ),
  responseEnumAdded(
    "TestResponseWriteOnlyPropertyEnumValueAdded",
    one(["response-write-only-property-enum-value-added"]),
    group(["TYPE1", "TYPE2"], ["TYPE1", "TYPE2"]),
    group(["TYPE1", "TYPE2"], ["Test"]),
  ),
  responseEnumRemoved(
    "TestResponsePropertyEnumValueRemoved",
    one(["response-property-enum-value-removed"]),
    group(["TYPE1", "TYPE2"], ["TYPE1", "TYPE2"]),
    group(["TYPE1"], ["TYPE1", "TYPE2"]),
  ),
  responseEnumRemoved(
    "TestResponseWriteOnlyPropertyEnumValueRemoved",
    one(["response-property-enum-value-removed"]),
    group(["TYPE1", "TYPE2"], ["TYPE1", "TYPE2"]),
    group(["TYPE1", "TYPE2"], ["TYPE1"]),
  ),
  requestExtensible(
    "TestRequestPropertyXExtensibleEnumValueRemovedCheck",
    one(["request-property-x-extensible-enum-value-removed"], "warning"),
    requestBody(object({ status: { type: "string", "x-extensible-enum": ["available", "pending", "sold"] } })),
    requestBody(object({ status: { type: "string", "x-extensible-enum": ["available", "pending"] } })),
  ),
  parameterExtensible(
    "TestRequestParameterXExtensibleEnumValueRemoved",
    one(["request-parameter-x-extensible-enum-value-removed"], "warning"),
    groupId({ type: "string", "x-extensible-enum": ["1", "2"] }),
    groupId({ type: "string", "x-extensible-enum": ["1"] }),
  ),
  parameterBecameEnum(
    "TestRequestParameterBecameEnum",
    one(["request-parameter-became-enum"], "error"),
    groupId({ type: "string" }),
    groupId({ type: "integer", enum: [1, 2] }),
  ),
  requestDefault(
    "TestRequestBodyDefaultValueChanged",
    one(["request-body-default-value-changed"]),
    requestMedia({ "text/plain": { type: "string", default: "Default" } }),
    requestMedia({ "text/plain": { type: "string", default: "NewDefault" } }),
  ),
  requestDefault(
    "TestRequestPropertyDefaultValueChanged",
    one(["request-property-default-value-changed"]),
    products({ default: "Default" }, { default: 10 }),
    products({ default: "Default" }, { default: 20 }),
  ),
  requestDefault(
    "TestRequestBodyDefaultValueAdded",
    one(["request-body-default-value-added", "request-property-default-value-added"]),
    products({}, {}),
    products({ default: "Default" }, { default: 10 }),
  ),
  requestDefault(
    "TestRequestBodyDefaultValueRemoving",
    one(["request-body-default-value-removed", "request-property-default-value-removed"]),
    products({ default: "Default" }, { default: 10 }),
    products({}, {}),
  ),
  responseDefault(
    "TestResponsePropertyDefaultValueUpdatedCheck",
    one(["response-property-default-value-changed"]),
    groupsDefault({ default: "Error" }, { default: "2020-01-01T00:00:00Z" }),
    groupsDefault({ default: "Error" }, { default: "2020-02-01T00:00:00Z" }, { default: true }),
  ),
  responseDefault(
    "TestResponseSchemaDefaultValueUpdatedCheck",
    one(["response-body-default-value-changed"]),
    groupsDefault({ default: "Error" }, { default: "2020-01-01T00:00:00Z" }),
    groupsDefault({ default: "new default value" }, { default: "2020-01-01T00:00:00Z" }),
  ),
  responseDefault(
    "TestResponsePropertyDefaultValueAddedCheck",
    one(["response-body-default-value-added", "response-property-default-value-added"]),
    groupsDefault({}, {}),
    groupsDefault({ default: "Error" }, { default: "2020-01-01T00:00:00Z" }),
  ),
  responseDefault(
    "TestResponsePropertyDefaultValueRemovedCheck",
    one(["response-body-default-value-removed", "response-property-default-value-removed"]),
    groupsDefault({ default: "Error" }, { default: "2020-01-01T00:00:00Z" }),
    groupsDefault({}, {}),
  ),
  parameterDefault(
    "TestRequestParameterDefaultValueChanged",
    one(["request-parameter-default-value-changed"], "error"),
    categoryDefault("default_category"),
    categoryDefault("updated_category"),
  ),
  parameterDefault(
    "TestRequestParameterDefaultValueChangedAndRenamedParameter",
    one(["request-parameter-default-value-changed"], "error"),
    api({
      "/groups/{group_id}": {
        post: {
          operationId: "createOneGroup",
          parameters: [{ in: "path", name: "group_id", schema: { type: "string", default: "2" } }],
          responses: OK,
        },
      },
    }),
    api({
      "/groups/{groupId}": {
        post: {
          operationId: "createOneGroup",
          parameters: [{ in: "path", name: "groupId", schema: { type: "string", default: "1" } }],
          responses: OK,
        },
      },
    }),
    { judgment: "path-parameter-default" },
  ),
  parameterDefault(
    "TestRequestParameterDefaultValueAdded",
    one(["request-parameter-default-value-added"], "error"),
    categoryDefault(),
    categoryDefault("default_category"),
  ),
  parameterDefault(
    "TestRequestParameterDefaultValueRemoved",
    one(["request-parameter-default-value-removed"], "error"),
    categoryDefault("default_category"),
    categoryDefault(),
  ),
  requestConst(
    "TestRequestBodyConstChanged",
    one(["request-body-const-changed"]),
    requestMedia({ "text/plain": { type: "string", const: "FixedValue" } }),
    requestMedia({ "text/plain": { type: "string", const: "NewFixedValue" } }),
  ),
  requestConst(
    "TestRequestPropertyConstChanged",
    one(["request-property-const-changed"]),
    statusConst({ const: "FixedValue" }, { const: "active" }),
    statusConst({ const: "FixedValue" }, { const: "inactive" }),
  ),
  requestConst(
    "TestRequestBodyConstAdded",
    one(["request-body-const-added", "request-property-const-added"]),
    statusConst({}, {}),
    statusConst({ const: "FixedValue" }, { const: "active" }),
  ),
  requestConst(
    "TestRequestBodyConstRemoved",
    one(["request-body-const-removed", "request-property-const-removed"]),
    statusConst({ const: "FixedValue" }, { const: "active" }),
    statusConst({}, {}),
  ),
  responseConst(
    "TestResponsePropertyConstChanged",
    one(["response-property-const-changed", "response-body-const-changed"]),
    groupsConst({ const: "NotFound" }, { const: "ok" }),
    groupsConst({ const: "Error" }, { const: "success" }),
  ),
  responseConst(
    "TestResponsePropertyConstAdded",
    one(["response-body-const-added", "response-property-const-added"]),
    groupsConst({}, {}),
    groupsConst({ const: "NotFound" }, { const: "ok" }),
  ),
  responseConst(
    "TestResponsePropertyConstRemoved",
    one(["response-body-const-removed", "response-property-const-removed"]),
    groupsConst({ const: "NotFound" }, { const: "ok" }),
    groupsConst({}, {}),
  ),
];
