/**
 * oasdiff's tests of bounds in both directions run with every check (check_breaking_min_max_test.go: a path
 * parameter and an XML response body), of response bounds, and of patterns (an empty pattern is no pattern).
 */
import { api, breaking, type Doc, from, object, one, parameters, query, requestBody, responseBody } from "./build.ts";

/** A path parameter `domain` and an XML response body: the two places check_breaking_min_max_test.go edits. */
function installCommand(domain: Doc = {}, body: Doc = {}, header: Doc = {}): Doc {
  return api({
    "/api/{domain}/install-command": {
      get: {
        operationId: "GetInstallCommand",
        parameters: [{ name: "domain", in: "path", required: true, schema: { type: "string", ...domain } }],
        responses: {
          "201": {
            description: "OK",
            headers: { "X-RateLimit-Limit": { schema: { type: "integer", ...header } } },
            content: { "application/xml": { schema: { type: "string", ...body } } },
          },
        },
      },
    },
  });
}

const minMax = from("check_breaking_min_max_test.go");
const responseMin = from("check_response_property_min_decreased_test.go");
const responseExclusive = from("check_response_property_exclusive_min_max_test.go");
const requestPattern = from("check_request_property_pattern_added_or_changed_test.go");
const responsePattern = from("check_response_pattern_added_or_changed_test.go");
const parameterPattern = from("check_request_parameter_pattern_added_or_changed_test.go");

const minBody = (min: number, exclusiveMin: number, price: number, exclusivePrice: number) =>
  responseBody(
    object({ price: { type: "number", minimum: price, exclusiveMinimum: exclusivePrice } }, undefined, {
      minimum: min,
      exclusiveMinimum: exclusiveMin,
    }),
  );

const named = (pattern?: string) =>
  requestBody(
    object({ name: { type: "string", ...(pattern === undefined ? {} : { pattern }) }, age: { type: "integer" } }),
  );
const created = (pattern: string, writeOnlyName = false) =>
  responseBody(
    object({
      data: object({
        created: { type: "string", format: "date-time", readOnly: true, pattern },
        name: { type: "string", ...(writeOnlyName ? { writeOnly: true } : {}) },
      }),
    }),
  );
const category = (pattern?: string) =>
  parameters([
    query("category", { type: "string", ...(pattern === undefined ? {} : { pattern }) }, { required: true }),
  ]);

export default [
  minMax(
    "TestBreaking_RequestMaxLengthSmaller",
    breaking(["request-parameter-max-length-decreased"]),
    installCommand({ maxLength: 13 }),
    installCommand({ maxLength: 11 }),
  ),
  minMax(
    "TestBreaking_ResponseMaxLengthSmaller",
    breaking([]),
    installCommand({}, { maxLength: 13 }),
    installCommand({}, { maxLength: 11 }),
  ),
  minMax(
    "TestBreaking_RequestMinLengthSmaller",
    breaking([]),
    installCommand({ minLength: 13 }),
    installCommand({ minLength: 11 }),
  ),
  minMax(
    "TestBreaking_MinLengthSmaller",
    breaking(["response-body-min-length-decreased"]),
    installCommand({}, { minLength: 13 }),
    installCommand({}, { minLength: 11 }),
  ),
  minMax(
    "TestBreaking_RequestMaxLengthGreater",
    breaking([]),
    installCommand({ maxLength: 13 }),
    installCommand({ maxLength: 14 }),
  ),
  // The test asserts a change at warning or above (NotEmpty); the rule that makes it is this one.
  minMax(
    "TestBreaking_ResponseMaxLengthGreater",
    breaking(["response-body-max-length-increased"]),
    installCommand({}, { maxLength: 13 }),
    installCommand({}, { maxLength: 14 }),
  ),
  minMax(
    "TestBreaking_MaxLengthFromNil",
    breaking(["request-parameter-max-length-set"]),
    installCommand(),
    installCommand({ maxLength: 14 }),
  ),
  minMax(
    "TestBreaking_ResponseMaxLengthFromNil",
    breaking([]),
    installCommand(),
    installCommand({}, { maxLength: 14 }),
  ),
  minMax("TestBreaking_RequestMaxLengthToNil", breaking([]), installCommand({ maxLength: 13 }), installCommand()),
  minMax(
    "TestBreaking_ResponseMaxLengthToNil",
    breaking(["response-body-max-length-unset"]),
    installCommand({}, { maxLength: 13 }),
    installCommand(),
  ),
  minMax(
    "TestBreaking_RequestMinItemsSmaller",
    breaking([]),
    installCommand({ type: "array", items: { type: "string" }, minItems: 13 }),
    installCommand({ type: "array", items: { type: "string" }, minItems: 11 }),
  ),
  minMax(
    "TestBreaking_ResponseMinItemsSmaller",
    breaking(["response-body-min-items-decreased"]),
    installCommand({}, { type: "array", items: { type: "string" }, minItems: 13 }),
    installCommand({}, { type: "array", items: { type: "string" }, minItems: 11 }),
  ),
  minMax(
    "TestBreaking_RequeatMinItemsGreater",
    breaking(["request-parameter-min-items-increased"]),
    installCommand({ type: "array", items: { type: "string" }, minItems: 13 }),
    installCommand({ type: "array", items: { type: "string" }, minItems: 14 }),
  ),
  minMax(
    "TestBreaking_ResponseMinItemsGreater",
    breaking([]),
    installCommand({}, { type: "array", items: { type: "string" }, minItems: 13 }),
    installCommand({}, { type: "array", items: { type: "string" }, minItems: 14 }),
  ),
  minMax(
    "TestBreaking_MaxSmaller",
    breaking(["request-parameter-max-decreased"]),
    installCommand({ maximum: 13 }),
    installCommand({ maximum: 11 }),
  ),
  minMax(
    "TestBreaking_MaxSmallerInResponse",
    breaking([]),
    installCommand({}, {}, { maximum: 13 }),
    installCommand({}, {}, { maximum: 11 }),
  ),
  // The four tests share one fixture: the body's and the property's minimum and exclusiveMinimum all lowered.
  responseMin(
    "TestResponseBodyMinDecreased",
    one(["response-body-min-decreased"]),
    minBody(10, 5, 100, 50),
    minBody(5, 2, 50, 25),
  ),
  responseMin(
    "TestResponsePropertyMinDecreased",
    one(["response-property-min-decreased"]),
    minBody(10, 5, 100, 50),
    minBody(5, 2, 50, 25),
  ),
  responseMin(
    "TestResponseBodyExclusiveMinDecreased",
    one(["response-body-exclusive-min-decreased"]),
    minBody(10, 5, 100, 50),
    minBody(5, 2, 50, 25),
  ),
  responseMin(
    "TestResponsePropertyExclusiveMinDecreased",
    one(["response-property-exclusive-min-decreased"]),
    minBody(10, 5, 100, 50),
    minBody(5, 2, 50, 25),
  ),
  responseExclusive(
    "TestResponsePropertyExclusiveMaxIncreased",
    one(["response-body-exclusive-max-increased", "response-property-exclusive-max-increased"]),
    responseBody(object({ price: { type: "number", exclusiveMaximum: 1000 } }, undefined, { exclusiveMaximum: 100 })),
    responseBody(object({ price: { type: "number", exclusiveMaximum: 2000 } }, undefined, { exclusiveMaximum: 200 })),
  ),
  requestPattern(
    "TestRequestPropertyPatternChanged",
    one(["request-property-pattern-changed"]),
    named("^\\w+$"),
    named("^[\\w\\s]+$"),
  ),
  requestPattern(
    "TestRequestPropertyPatternGeneralized",
    one(["request-property-pattern-generalized"]),
    named("^\\w+$"),
    named(".*"),
  ),
  // An empty pattern is no pattern: '' → a pattern is a pattern added, a pattern → '' one removed.
  requestPattern(
    "TestRequestPropertyPatternAdded",
    one(["request-property-pattern-added"]),
    named(""),
    named("^\\w+$"),
  ),
  requestPattern(
    "TestRequestPropertyPatternRemoved",
    one(["request-property-pattern-removed"]),
    named("^\\w+$"),
    named(""),
  ),
  responsePattern(
    "TestResponsePropertyPatternChanged",
    one(["response-property-pattern-changed"]),
    created("^[a-z]+$"),
    created("^(?:([a-z]+-)*([a-z]+)?)$", true),
  ),
  responsePattern(
    "TestResponsePropertyPatternAdded",
    one(["response-property-pattern-added"]),
    created(""),
    created("^[a-z]+$"),
  ),
  responsePattern(
    "TestResponsePropertyPatternRemoved",
    one(["response-property-pattern-removed"]),
    created("^[a-z]+$"),
    created(""),
  ),
  parameterPattern(
    "TestRequestParameterPatternChanged",
    one(["request-parameter-pattern-changed"]),
    category("^\\w+$"),
    category("^[\\w\\s]+$"),
  ),
  parameterPattern(
    "TestRequestParameterPatternGeneralized",
    one(["request-parameter-pattern-generalized"]),
    category("^\\w+$"),
    category(".*"),
  ),
  parameterPattern(
    "TestRequestParameterPatternAdded",
    one(["request-parameter-pattern-added"]),
    category(),
    category("^\\w+$"),
  ),
  parameterPattern(
    "TestRequestParameterPatternRemoved",
    one(["request-parameter-pattern-removed"]),
    category("^\\w+$"),
    category(),
  ),
];
