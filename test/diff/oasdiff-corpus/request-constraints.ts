/** oasdiff's tests of request bounds: lengths, ranges, item counts, set for the first time or moved. */
import { type Doc, from, object, one, parameters, query, requestBody } from "./build.ts";

const nameWith = (name: Doc) => requestBody(object({ name }, ["name"]));
const body = (schema: Doc, media = "application/json") => requestBody(schema, { media });

const maxLengthSet = from("check_request_property_max_length_set_test.go");
const maxLengthUpdated = from("check_request_property_max_length_updated_test.go");
const maxSet = from("check_request_property_max_set_test.go");
const maxUpdated = from("check_request_property_max_updated_test.go");
const minUpdated = from("check_request_property_min_updated_test.go");
const minLength = from("check_request_property_min_length_updated_test.go");
const minItems = from("check_request_property_min_items_increased_test.go");
const exclusive = from("check_request_property_exclusive_min_max_test.go");
const parameterMaxLength = from("check_request_parameters_max_length_updated_test.go");
const parameterMaxLengthSet = from("check_request_parameters_max_length_set_test.go");
const parameterMax = from("check_request_parameters_max_updated_test.go");
const parameterMin = from("check_request_parameters_min_updated_test.go");
const parameterMinLength = from("check_request_parameters_min_length_updated_test.go");
const parameterMinItems = from("check_request_parameters_min_items_updated_test.go");
const parameterMaxItems = from("check_request_parameters_max_items_updated_test.go");
const parameterExclusive = from("check_request_parameters_exclusive_min_max_test.go");

const exclusiveBody = (min: number, max: number, priceMin: number, priceMax: number) =>
  requestBody(
    object({ price: { type: "number", exclusiveMinimum: priceMin, exclusiveMaximum: priceMax } }, undefined, {
      exclusiveMinimum: min,
      exclusiveMaximum: max,
    }),
  );
const limit = (schema: Doc) => parameters([query("limit", schema)]);

export default [
  maxLengthSet(
    "TestRequestBodyMaxLengthSetCheck",
    one(["request-body-max-length-set"]),
    body({ type: "string" }, "text/plain"),
    body({ type: "string", maxLength: 15 }, "text/plain"),
  ),
  maxLengthSet(
    "TestRequestPropertyMaxLengthSetCheck",
    one(["request-property-max-length-set"]),
    requestBody(object({ age: { type: "string" } }, ["age"])),
    requestBody(object({ age: { type: "string", maxLength: 15 } }, ["age"])),
  ),
  maxLengthUpdated(
    "TestRequestBodyMaxLengthDecreasedCheck",
    one(["request-body-max-length-increased"]),
    body({ type: "string", maxLength: 50 }),
    body({ type: "string", maxLength: 100 }),
  ),
  maxLengthUpdated(
    "TestRequestBodyMaxLengthIncreasedCheck",
    one(["request-body-max-length-decreased"], "error"),
    body({ type: "string", maxLength: 100 }),
    body({ type: "string", maxLength: 50 }),
  ),
  maxLengthUpdated(
    "TestRequestPropertyMaxLengthDecreasedCheck",
    one(["request-property-max-length-decreased"]),
    requestBody(object({ description: { type: "string", maxLength: 100 } })),
    requestBody(object({ description: { type: "string", maxLength: 50 } })),
  ),
  maxLengthUpdated(
    "TestRequestReadOnlyPropertyMaxLengthDecreasedCheck",
    one(["request-read-only-property-max-length-decreased"]),
    requestBody(object({ description: { type: "string", maxLength: 100 } })),
    requestBody(object({ description: { type: "string", maxLength: 50, readOnly: true } })),
  ),
  maxLengthUpdated(
    "TestRequestPropertyMaxLengthIncreasedCheck",
    one(["request-property-max-length-increased"]),
    requestBody(object({ description: { type: "string", maxLength: 50 } })),
    requestBody(object({ description: { type: "string", maxLength: 100 } })),
  ),
  maxSet(
    "TestRequestBodyMaxSetCheck",
    one(["request-body-max-set"]),
    body({ type: "number" }, "text/plain"),
    body({ type: "number", maximum: 15 }, "text/plain"),
  ),
  maxSet(
    "TestRequestPropertyMaxSetCheck",
    one(["request-property-max-set"]),
    requestBody(object({ age: { type: "integer" } }, ["age"])),
    requestBody(object({ age: { type: "integer", maximum: 15 } }, ["age"])),
  ),
  maxUpdated(
    "TestRequestPropertyMaxDecreasedCheck",
    one(["request-property-max-decreased"]),
    nameWith({ type: "integer", maximum: 15 }),
    nameWith({ type: "integer", maximum: 10 }),
  ),
  maxUpdated(
    "TestRequestReadOnlyPropertyMaxDecreasedCheck",
    one(["request-read-only-property-max-decreased"]),
    nameWith({ type: "integer", maximum: 15 }),
    nameWith({ type: "integer", maximum: 10, readOnly: true }),
  ),
  maxUpdated(
    "TestRequestPropertyMaxIncreasingCheck",
    one(["request-property-max-increased"]),
    nameWith({ type: "integer", maximum: 15 }),
    nameWith({ type: "integer", maximum: 20 }),
  ),
  maxUpdated(
    "TestRequestBodyMaxIncreasingCheck",
    one(["request-body-max-increased"]),
    body({ type: "number", maximum: 20 }),
    body({ type: "number", maximum: 25 }),
  ),
  maxUpdated(
    "TestRequestBodyMaxDecreasedCheck",
    one(["request-body-max-decreased"]),
    body({ type: "number", maximum: 25 }),
    body({ type: "number", maximum: 20 }),
  ),
  minUpdated(
    "TestRequestPropertyMinIncreasedCheck",
    one(["request-property-min-increased"], "error"),
    requestBody(object({ age: { type: "integer", minimum: 10 } }, ["age"])),
    requestBody(object({ age: { type: "integer", minimum: 15 } }, ["age"])),
  ),
  minUpdated(
    "TestRequestReadOnlyPropertyMinIncreasedCheck",
    one(["request-read-only-property-min-increased"]),
    requestBody(object({ age: { type: "integer", minimum: 10 } }, ["age"])),
    requestBody(object({ age: { type: "integer", minimum: 15, readOnly: true } }, ["age"])),
  ),
  minUpdated(
    "TestRequestPropertyMinDecreasedCheck",
    one(["request-property-min-decreased"]),
    requestBody(object({ age: { type: "integer", minimum: 15 } }, ["age"])),
    requestBody(object({ age: { type: "integer", minimum: 10 } }, ["age"])),
  ),
  minLength(
    "TestRequestPropertyMinLengthDecreased",
    one(["request-property-min-length-decreased"]),
    requestBody(object({ name: { type: "string", minLength: 3 } })),
    requestBody(object({ name: { type: "string", minLength: 2 } })),
  ),
  minLength(
    "TestRequestPropertyMinLengthIncreased",
    one(["request-property-min-length-increased"]),
    requestBody(object({ name: { type: "string", minLength: 3 } })),
    requestBody(object({ name: { type: "string", minLength: 5 } })),
  ),
  minLength(
    "TestRequestBodyMinLengthIncreased",
    one(["request-body-min-length-increased"]),
    body({ type: "string", minLength: 10 }),
    body({ type: "string", minLength: 100 }),
  ),
  minLength(
    "TestRequestBodyMinLengthDecreased",
    one(["request-body-min-length-decreased"]),
    body({ type: "string", minLength: 10 }),
    body({ type: "string", minLength: 1 }),
  ),
  minItems(
    "TestRequestBodyMinItemsIncreased",
    one(["request-body-min-items-increased"]),
    body({ type: "array", items: { type: "string" }, minItems: 10 }),
    body({ type: "array", items: { type: "string" }, minItems: 20 }),
  ),
  exclusive(
    "TestRequestPropertyExclusiveMinIncreased",
    one(["request-body-exclusive-min-increased", "request-property-exclusive-min-increased"]),
    exclusiveBody(0, 100, 0, 1000),
    exclusiveBody(5, 100, 10, 1000),
  ),
  exclusive(
    "TestRequestPropertyExclusiveMaxDecreased",
    one(["request-body-exclusive-max-decreased", "request-property-exclusive-max-decreased"]),
    exclusiveBody(0, 100, 0, 1000),
    exclusiveBody(0, 50, 0, 500),
  ),
  exclusive(
    "TestRequestPropertyExclusiveMinDecreased",
    one(["request-body-exclusive-min-decreased", "request-property-exclusive-min-decreased"]),
    exclusiveBody(5, 100, 10, 1000),
    exclusiveBody(0, 100, 0, 1000),
  ),
  exclusive(
    "TestRequestPropertyExclusiveMaxIncreased",
    one(["request-body-exclusive-max-increased", "request-property-exclusive-max-increased"]),
    exclusiveBody(0, 50, 0, 500),
    exclusiveBody(0, 100, 0, 1000),
  ),
  exclusive(
    "TestRequestPropertyExclusiveMinSet",
    one(["request-body-exclusive-min-set", "request-property-exclusive-min-set"]),
    requestBody(object({ price: { type: "number" } })),
    requestBody(object({ price: { type: "number", exclusiveMinimum: 0 } }, undefined, { exclusiveMinimum: 0 })),
  ),
  exclusive(
    "TestRequestPropertyExclusiveMaxSet",
    one(["request-body-exclusive-max-set", "request-property-exclusive-max-set"]),
    requestBody(object({ price: { type: "number" } })),
    requestBody(object({ price: { type: "number", exclusiveMaximum: 1000 } }, undefined, { exclusiveMaximum: 100 })),
  ),
  parameterExclusive(
    "TestRequestParameterExclusiveMinSet",
    one(["request-parameter-exclusive-min-set"]),
    limit({ type: "integer" }),
    limit({ type: "integer", exclusiveMinimum: 0 }),
  ),
  parameterExclusive(
    "TestRequestParameterExclusiveMaxSet",
    one(["request-parameter-exclusive-max-set"]),
    limit({ type: "integer" }),
    limit({ type: "integer", exclusiveMaximum: 100 }),
  ),
  parameterMaxLength(
    "TestRequestParameterMaxLengthIncreasedCheck",
    one(["request-parameter-max-length-increased"]),
    limit({ type: "string", maxLength: 10 }),
    limit({ type: "string", maxLength: 15 }),
  ),
  parameterMaxLength(
    "TestRequestParameterMaxLengthDecreasedCheck",
    one(["request-parameter-max-length-decreased"]),
    limit({ type: "string", maxLength: 15 }),
    limit({ type: "string", maxLength: 10 }),
  ),
  parameterMaxLengthSet(
    "TestRequestParameterMaxLengthSetCheck",
    one(["request-parameter-max-length-set"]),
    limit({ type: "string" }),
    limit({ type: "string", maxLength: 15 }),
  ),
  // The fixture sets `maximum` on an array parameter; the check reads the parameter's own schema.
  parameterMax(
    "TestRequestParameterMaxIncreased",
    one(["request-parameter-max-increased"]),
    limit({ type: "array", items: { type: "string" }, maximum: 5 }),
    limit({ type: "array", items: { type: "string" }, maximum: 10 }),
  ),
  parameterMax(
    "TestRequestParameterMaxDecreased",
    one(["request-parameter-max-decreased"]),
    limit({ type: "array", items: { type: "string" }, maximum: 10 }),
    limit({ type: "array", items: { type: "string" }, maximum: 5 }),
  ),
  parameterMin(
    "TestRequestParameterMinIncreased",
    one(["request-parameter-min-increased"]),
    limit({ type: "integer", minimum: 1 }),
    limit({ type: "integer", minimum: 10 }),
  ),
  parameterMin(
    "TestRequestParameterMinDecreased",
    one(["request-parameter-min-decreased"]),
    limit({ type: "integer", minimum: 10 }),
    limit({ type: "integer", minimum: 1 }),
  ),
  parameterMinLength(
    "TestRequestParameterMinLengthIncreasedCheck",
    one(["request-parameter-min-length-increased"]),
    limit({ type: "string", minLength: 3 }),
    limit({ type: "string", minLength: 5 }),
  ),
  parameterMinLength(
    "TestRequestParameterMinLengthDecreasedCheck",
    one(["request-parameter-min-length-decreased"]),
    limit({ type: "string", minLength: 5 }),
    limit({ type: "string", minLength: 3 }),
  ),
  parameterMinItems(
    "TestRequestParameterMinItemsIncreased",
    one(["request-parameter-min-items-increased"]),
    limit({ type: "array", items: { type: "string" }, minItems: 2 }),
    limit({ type: "array", items: { type: "string" }, minItems: 3 }),
  ),
  parameterMinItems(
    "TestRequestParameterMinItemsDecreased",
    one(["request-parameter-min-items-decreased"]),
    limit({ type: "array", items: { type: "string" }, minItems: 3 }),
    limit({ type: "array", items: { type: "string" }, minItems: 2 }),
  ),
  parameterMaxItems(
    "TestRequestParameterArrayMaxItemsDecreased",
    one(["request-parameter-max-items-decreased"]),
    limit({ type: "array", items: { type: "string" }, maxItems: 50 }),
    limit({ type: "array", items: { type: "string" }, maxItems: 10 }),
  ),
  parameterExclusive(
    "TestRequestParameterExclusiveMinIncreased",
    one(["request-parameter-exclusive-min-increased"]),
    limit({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 100 }),
    limit({ type: "integer", exclusiveMinimum: 5, exclusiveMaximum: 100 }),
  ),
  parameterExclusive(
    "TestRequestParameterExclusiveMaxDecreased",
    one(["request-parameter-exclusive-max-decreased"]),
    limit({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 100 }),
    limit({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 50 }),
  ),
];
