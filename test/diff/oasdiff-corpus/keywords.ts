/**
 * oasdiff's tests of JSON Schema's applicators and annotations, each at a body's own schema and at a property:
 * if/then/else, contains (and min/maxContains), dependentRequired, dependentSchemas, patternProperties,
 * propertyNames, unevaluatedItems/Properties, prefixItems, contentMediaType/Encoding/Schema, discriminator.
 */
import { api, type Doc, from, OK, object, one } from "./build.ts";

type Direction = "request" | "response";

/** `POST /products` whose request body (or 200 response) has this schema. */
function products(direction: Direction, schema: Doc, openapi = "3.1.0"): Doc {
  const content = { "application/json": { schema } };
  const operation =
    direction === "request"
      ? { operationId: "createProduct", requestBody: { content }, responses: OK }
      : { operationId: "createProduct", responses: { "200": { description: "OK", content } } };
  return api({ "/products": { post: operation } }, {}, openapi);
}

/** The body's own schema, `base` with `more` added to it (`more` undefined: the base). */
const atBody = (direction: Direction, base: Doc, more?: Doc) => products(direction, { ...base, ...(more ?? {}) });
/** A property `details` of the body, `base` with `more` added to it. */
const atProperty = (direction: Direction, base: Doc, more?: Doc) =>
  products(direction, object({ details: { ...base, ...(more ?? {}) } }));

const strings = { type: "array", items: { type: "string" } };
const named = object({ name: { type: "string" }, email: { type: "string" } });
const address = object({ street: { type: "string" }, city: { type: "string" }, zip: { type: "string" } });
const conditional = {
  if: { properties: { name: { const: "special" } } },
  then: { required: ["name"] },
  else: { properties: { name: { type: "string" } } },
};
const content = (mediaType: string, encoding: string, schema?: Doc) => ({
  type: "string",
  contentMediaType: mediaType,
  contentEncoding: encoding,
  ...(schema ? { contentSchema: schema } : {}),
});

/** The pair of a test that adds `more` (removes it with `removed`) at the body or a property. */
function addition(where: "body" | "property", direction: Direction, base: Doc, more: Doc, removed = false) {
  const build = where === "body" ? atBody : atProperty;
  const [x, y] = [build(direction, base), build(direction, base, more)];
  return removed ? ([y, x] as const) : ([x, y] as const);
}

const requestIf = from("check_request_property_if_updated_test.go");
const responseIf = from("check_response_property_if_updated_test.go");
const requestContains = from("check_request_property_contains_updated_test.go");
const responseContains = from("check_response_property_contains_updated_test.go");
const requestDependentRequired = from("check_request_property_dependent_required_changed_test.go");
const responseDependentRequired = from("check_response_property_dependent_required_changed_test.go");
const requestDependentSchemas = from("check_request_property_dependent_schemas_updated_test.go");
const responseDependentSchemas = from("check_response_property_dependent_schemas_updated_test.go");
const requestPatternProperties = from("check_request_property_pattern_properties_updated_test.go");
const responsePatternProperties = from("check_response_property_pattern_properties_updated_test.go");
const requestPropertyNames = from("check_request_property_property_names_updated_test.go");
const responsePropertyNames = from("check_response_property_property_names_updated_test.go");
const requestUnevaluated = from("check_request_property_unevaluated_updated_test.go");
const responseUnevaluated = from("check_response_property_unevaluated_updated_test.go");
const requestPrefixItems = from("check_request_property_prefix_items_updated_test.go");
const responsePrefixItems = from("check_response_property_prefix_items_updated_test.go");
const requestContent = from("check_request_property_content_updated_test.go");
const responseContent = from("check_response_property_content_updated_test.go");
const requestDiscriminator = from("check_request_discriminator_updated_test.go");
const responseDiscriminator = from("check_response_discriminator_updated_test.go");

const objectOf = { type: "object" };
const unevaluated = { unevaluatedItems: { type: "string" }, unevaluatedProperties: { type: "string" } };
const patternProperty = { patternProperties: { "^x-": { type: "string" } } };
const propertyNames = { propertyNames: { pattern: "^[a-z]" } };
const dependentSchema = { dependentSchemas: { name: { properties: { email: { type: "string" } } } } };
const minMax = (min: number, max: number) => ({
  ...strings,
  contains: { type: "string" },
  minContains: min,
  maxContains: max,
});

/** Pets under a discriminated oneOf (the body's and Dog's `breed`), with `mapping` as the tests change it. */
function discriminated(direction: Direction, discriminator: "none" | "added" | "renamed" | "remapped"): Doc {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const body: Doc = { oneOf: [ref("Dog"), ref("Cat")] };
  const breed: Doc = { type: "object", oneOf: [ref("Breed1"), ref("Breed2")] };
  if (discriminator !== "none") {
    body.discriminator = {
      propertyName: discriminator === "renamed" ? "kind" : "petType",
      mapping: {
        [discriminator === "remapped" ? "cats" : "cat"]: "#/components/schemas/Cat",
        dog: "#/components/schemas/Dog",
      },
    };
    breed.discriminator = {
      propertyName: discriminator === "renamed" ? "title" : "name",
      mapping:
        discriminator === "remapped"
          ? { breed1Code: "#/components/schemas/Breed1", breed2: "#/components/schemas/Breed3" }
          : { breed1: "#/components/schemas/Breed1", breed2: "#/components/schemas/Breed2" },
    };
  }
  const content = { "application/json": { schema: body } };
  const breedSchema = object({ name: { type: "string" } });
  return api(
    {
      "/pets": {
        post:
          direction === "request"
            ? { operationId: "updatePets", requestBody: { content }, responses: OK }
            : { operationId: "updatePets", responses: { "200": { description: "Pets", content } } },
      },
    },
    {
      components: {
        schemas: {
          Dog: object({ petType: { type: "string" }, name: { type: "string" }, breed }),
          Cat: object({ petType: { type: "string" }, name: { type: "string" } }),
          Breed1: breedSchema,
          Breed2: breedSchema,
          Breed3: breedSchema,
        },
      },
    },
    "3.0.3",
  );
}

export default [
  requestIf(
    "TestRequestBodyIfAdded",
    one(["request-body-if-added", "request-body-then-added", "request-body-else-added"]),
    ...addition("body", "request", named, conditional),
  ),
  requestIf(
    "TestRequestBodyIfRemoved",
    one(["request-body-if-removed", "request-body-then-removed", "request-body-else-removed"]),
    ...addition("body", "request", named, conditional, true),
  ),
  requestIf(
    "TestRequestPropertyIfAdded",
    one(["request-property-if-added", "request-property-then-added", "request-property-else-added"]),
    ...addition("property", "request", objectOf, conditional),
  ),
  requestIf(
    "TestRequestPropertyIfRemoved",
    one(["request-property-if-removed", "request-property-then-removed", "request-property-else-removed"]),
    ...addition("property", "request", objectOf, conditional, true),
  ),
  responseIf(
    "TestResponseBodyIfAdded",
    one(["response-body-if-added", "response-body-then-added", "response-body-else-added"]),
    ...addition("body", "response", named, conditional),
  ),
  responseIf(
    "TestResponseBodyIfRemoved",
    one(["response-body-if-removed", "response-body-then-removed", "response-body-else-removed"]),
    ...addition("body", "response", named, conditional, true),
  ),
  responseIf(
    "TestResponsePropertyIfAdded",
    one(["response-property-if-added", "response-property-then-added", "response-property-else-added"]),
    ...addition("property", "response", objectOf, conditional),
  ),
  responseIf(
    "TestResponsePropertyIfRemoved",
    one(["response-property-if-removed", "response-property-then-removed", "response-property-else-removed"]),
    ...addition("property", "response", objectOf, conditional, true),
  ),
  requestContains(
    "TestRequestBodyContainsAdded",
    one(["request-body-contains-added"]),
    ...addition("body", "request", strings, { contains: { type: "integer" } }),
  ),
  requestContains(
    "TestRequestBodyContainsRemoved",
    one(["request-body-contains-removed"]),
    ...addition("body", "request", strings, { contains: { type: "integer" } }, true),
  ),
  requestContains(
    "TestRequestBodyMinContainsIncreased",
    one(["request-body-min-contains-increased"]),
    atBody("request", minMax(1, 5)),
    atBody("request", minMax(2, 5)),
  ),
  requestContains(
    "TestRequestBodyMinContainsDecreased",
    one(["request-body-min-contains-decreased"]),
    atBody("request", minMax(2, 5)),
    atBody("request", minMax(1, 5)),
  ),
  requestContains(
    "TestRequestBodyMaxContainsIncreased",
    one(["request-body-max-contains-increased"]),
    atBody("request", minMax(1, 5)),
    atBody("request", minMax(1, 6)),
  ),
  requestContains(
    "TestRequestBodyMaxContainsDecreased",
    one(["request-body-max-contains-decreased"]),
    atBody("request", minMax(1, 6)),
    atBody("request", minMax(1, 5)),
  ),
  requestContains(
    "TestRequestPropertyContainsAdded",
    one(["request-property-contains-added"]),
    ...addition("property", "request", strings, { contains: { type: "string" } }),
  ),
  requestContains(
    "TestRequestPropertyContainsRemoved",
    one(["request-property-contains-removed"]),
    ...addition("property", "request", strings, { contains: { type: "string" } }, true),
  ),
  requestContains(
    "TestRequestPropertyMinContainsIncreased",
    one(["request-property-min-contains-increased"]),
    atProperty("request", minMax(1, 3)),
    atProperty("request", minMax(2, 3)),
  ),
  requestContains(
    "TestRequestPropertyMaxContainsDecreased",
    one(["request-property-max-contains-decreased"]),
    atProperty("request", minMax(1, 5)),
    atProperty("request", minMax(1, 3)),
  ),
  responseContains(
    "TestResponseBodyContainsAdded",
    one(["response-body-contains-added"]),
    ...addition("body", "response", strings, { contains: { type: "integer" } }),
  ),
  responseContains(
    "TestResponseBodyContainsRemoved",
    one(["response-body-contains-removed"]),
    ...addition("body", "response", strings, { contains: { type: "integer" } }, true),
  ),
  responseContains(
    "TestResponseBodyMinContainsIncreased",
    one(["response-body-min-contains-increased"]),
    atBody("response", minMax(1, 5)),
    atBody("response", minMax(2, 5)),
  ),
  responseContains(
    "TestResponseBodyMinContainsDecreased",
    one(["response-body-min-contains-decreased"]),
    atBody("response", minMax(2, 5)),
    atBody("response", minMax(1, 5)),
  ),
  responseContains(
    "TestResponseBodyMaxContainsIncreased",
    one(["response-body-max-contains-increased"]),
    atBody("response", minMax(1, 5)),
    atBody("response", minMax(1, 6)),
  ),
  responseContains(
    "TestResponseBodyMaxContainsDecreased",
    one(["response-body-max-contains-decreased"]),
    atBody("response", minMax(1, 6)),
    atBody("response", minMax(1, 5)),
  ),
  responseContains(
    "TestResponsePropertyMinContainsDecreased",
    one(["response-property-min-contains-decreased"]),
    atProperty("response", minMax(2, 5)),
    atProperty("response", minMax(1, 5)),
  ),
  responseContains(
    "TestResponsePropertyMaxContainsIncreased",
    one(["response-property-max-contains-increased"]),
    atProperty("response", minMax(1, 3)),
    atProperty("response", minMax(1, 5)),
  ),
  requestDependentRequired(
    "TestRequestBodyDependentRequiredAdded",
    one(["request-body-dependent-required-added"]),
    ...addition("body", "request", named, { dependentRequired: { name: ["email"] } }),
  ),
  requestDependentRequired(
    "TestRequestBodyDependentRequiredRemoved",
    one(["request-body-dependent-required-removed"]),
    ...addition("body", "request", named, { dependentRequired: { name: ["email"] } }, true),
  ),
  requestDependentRequired(
    "TestRequestPropertyDependentRequiredChanged",
    one(["request-property-dependent-required-changed"]),
    atProperty("request", address, { dependentRequired: { street: ["city"] } }),
    atProperty("request", address, { dependentRequired: { street: ["city", "zip"] } }),
  ),
  responseDependentRequired(
    "TestResponseBodyDependentRequiredAdded",
    one(["response-body-dependent-required-added"]),
    ...addition("body", "response", named, { dependentRequired: { name: ["email"] } }),
  ),
  responseDependentRequired(
    "TestResponseBodyDependentRequiredRemoved",
    one(["response-body-dependent-required-removed"]),
    ...addition("body", "response", named, { dependentRequired: { name: ["email"] } }, true),
  ),
  responseDependentRequired(
    "TestResponsePropertyDependentRequiredChanged",
    one(["response-property-dependent-required-changed"]),
    atProperty("response", address, { dependentRequired: { street: ["city"] } }),
    atProperty("response", address, { dependentRequired: { street: ["city", "zip"] } }),
  ),
  requestDependentSchemas(
    "TestRequestBodyDependentSchemaAdded",
    one(["request-body-dependent-schema-added"]),
    ...addition("body", "request", named, dependentSchema),
  ),
  requestDependentSchemas(
    "TestRequestPropertyDependentSchemaRemoved",
    one(["request-property-dependent-schema-removed"]),
    ...addition("property", "request", objectOf, dependentSchema, true),
  ),
  responseDependentSchemas(
    "TestResponseBodyDependentSchemaRemoved",
    one(["response-body-dependent-schema-removed"]),
    ...addition("body", "response", named, dependentSchema, true),
  ),
  responseDependentSchemas(
    "TestResponsePropertyDependentSchemaAdded",
    one(["response-property-dependent-schema-added"]),
    ...addition("property", "response", objectOf, dependentSchema),
  ),
  requestPatternProperties(
    "TestRequestBodyPatternPropertyAdded",
    one(["request-body-pattern-property-added"]),
    ...addition("body", "request", named, patternProperty),
  ),
  requestPatternProperties(
    "TestRequestPropertyPatternPropertyRemoved",
    one(["request-property-pattern-property-removed"]),
    ...addition("property", "request", objectOf, patternProperty, true),
  ),
  responsePatternProperties(
    "TestResponseBodyPatternPropertyRemoved",
    one(["response-body-pattern-property-removed"]),
    ...addition("body", "response", named, patternProperty, true),
  ),
  responsePatternProperties(
    "TestResponsePropertyPatternPropertyAdded",
    one(["response-property-pattern-property-added"]),
    ...addition("property", "response", objectOf, patternProperty),
  ),
  requestPropertyNames(
    "TestRequestBodyPropertyNamesAdded",
    one(["request-body-property-names-added"]),
    ...addition("body", "request", named, propertyNames),
  ),
  requestPropertyNames(
    "TestRequestPropertyPropertyNamesRemoved",
    one(["request-property-property-names-removed"]),
    ...addition("property", "request", objectOf, propertyNames, true),
  ),
  responsePropertyNames(
    "TestResponseBodyPropertyNamesRemoved",
    one(["response-body-property-names-removed"]),
    ...addition("body", "response", named, propertyNames, true),
  ),
  responsePropertyNames(
    "TestResponsePropertyPropertyNamesAdded",
    one(["response-property-property-names-added"]),
    ...addition("property", "response", objectOf, propertyNames),
  ),
  requestUnevaluated(
    "TestRequestBodyUnevaluatedAdded",
    one(["request-body-unevaluated-items-added", "request-body-unevaluated-properties-added"]),
    ...addition("body", "request", named, unevaluated),
  ),
  requestUnevaluated(
    "TestRequestPropertyUnevaluatedRemoved",
    one(["request-property-unevaluated-items-removed", "request-property-unevaluated-properties-removed"]),
    ...addition("property", "request", objectOf, unevaluated, true),
  ),
  responseUnevaluated(
    "TestResponseBodyUnevaluatedRemoved",
    one(["response-body-unevaluated-items-removed", "response-body-unevaluated-properties-removed"]),
    ...addition("body", "response", named, unevaluated, true),
  ),
  responseUnevaluated(
    "TestResponsePropertyUnevaluatedAdded",
    one(["response-property-unevaluated-items-added", "response-property-unevaluated-properties-added"]),
    ...addition("property", "response", objectOf, unevaluated),
  ),
  requestPrefixItems(
    "TestRequestBodyPrefixItemsAdded",
    one(["request-body-prefix-items-added"]),
    ...addition("body", "request", strings, { prefixItems: [{ type: "integer" }] }),
  ),
  requestPrefixItems(
    "TestRequestPropertyPrefixItemsRemoved",
    one(["request-property-prefix-items-removed"]),
    ...addition("property", "request", strings, { prefixItems: [{ type: "integer" }] }, true),
  ),
  responsePrefixItems(
    "TestResponseBodyPrefixItemsAdded",
    one(["response-body-prefix-items-added"]),
    ...addition("body", "response", strings, { prefixItems: [{ type: "integer" }] }),
  ),
  responsePrefixItems(
    "TestResponsePropertyPrefixItemsRemoved",
    one(["response-property-prefix-items-removed"]),
    ...addition("property", "response", strings, { prefixItems: [{ type: "integer" }] }, true),
  ),
  requestContent(
    "TestRequestBodyContentSchemaAdded",
    one(["request-body-content-schema-added"]),
    atBody("request", content("application/json", "base64")),
    atBody("request", content("application/json", "base64", { type: "string" })),
  ),
  requestContent(
    "TestRequestPropertyContentUpdatedProp",
    one([
      "request-property-content-schema-added",
      "request-property-content-media-type-changed",
      "request-property-content-encoding-changed",
    ]),
    atProperty("request", content("application/json", "base64")),
    atProperty("request", content("text/plain", "quoted-printable", { type: "string" })),
  ),
  responseContent(
    "TestResponseBodyContentSchemaRemoved",
    one(["response-body-content-schema-removed"]),
    atBody("response", content("application/json", "base64", { type: "string" })),
    atBody("response", content("application/json", "base64")),
  ),
  responseContent(
    "TestResponsePropertyContentUpdatedProp",
    one([
      "response-property-content-schema-added",
      "response-property-content-media-type-changed",
      "response-property-content-encoding-changed",
    ]),
    atProperty("response", content("application/json", "base64")),
    atProperty("response", content("text/plain", "quoted-printable", { type: "string" })),
  ),
  requestDiscriminator(
    "TestRequestDiscriminatorUpdatedCheckAdded",
    one(["request-body-discriminator-added", "request-property-discriminator-added"]),
    discriminated("request", "none"),
    discriminated("request", "added"),
  ),
  requestDiscriminator(
    "TestRequestDiscriminatorUpdatedCheckPropertyNameChanging",
    one(["request-body-discriminator-property-name-changed", "request-property-discriminator-property-name-changed"]),
    discriminated("request", "added"),
    discriminated("request", "renamed"),
  ),
  responseDiscriminator(
    "TestResponseDiscriminatorUpdatedCheckRemoved",
    one(["response-body-discriminator-removed", "response-property-discriminator-removed"]),
    discriminated("response", "added"),
    discriminated("response", "none"),
  ),
  responseDiscriminator(
    "TestResponseDiscriminatorUpdatedCheckMappingChanging",
    one([
      "response-body-discriminator-mapping-added",
      "response-body-discriminator-mapping-deleted",
      "response-property-discriminator-mapping-added",
      "response-property-discriminator-mapping-changed",
      "response-property-discriminator-mapping-deleted",
    ]),
    discriminated("response", "added"),
    discriminated("response", "remapped"),
  ),
];
