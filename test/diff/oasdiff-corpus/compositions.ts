/** oasdiff's tests of allOf, anyOf and oneOf: a member or variant added or removed, in a body and in a property. */
import { api, type Doc, from, OK, object, one } from "./build.ts";

type Keyword = "allOf" | "anyOf" | "oneOf";

/**
 * A body listing `Dog` and `Cat` (and `Rabbit` with `more`) under `keyword`, where Dog's `breed` lists `Breed1`
 * and `Breed2` (and `Breed3`): the shape every composition test of oasdiff uses, in a request or a response.
 */
function pets(keyword: Keyword, direction: "request" | "response", more: boolean): Doc {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const named = object({ name: { type: "string" } });
  const body = { [keyword]: [ref("Dog"), ref("Cat"), ...(more ? [ref("Rabbit")] : [])] };
  const content = { "application/json": { schema: body } };
  const operation =
    direction === "request"
      ? { post: { operationId: "updatePets", requestBody: { content }, responses: OK } }
      : { get: { operationId: "listPets", responses: { "200": { description: "Pets", content } } } };
  return api(
    { "/pets": operation },
    {
      components: {
        schemas: {
          Dog: object({
            name: { type: "string" },
            breed: { type: "object", [keyword]: [ref("Breed1"), ref("Breed2"), ...(more ? [ref("Breed3")] : [])] },
          }),
          Cat: named,
          Breed1: object({ name: { type: "string" } }),
          Breed2: object({ size: { type: "string" } }),
          ...(more
            ? { Rabbit: object({ name: { type: "string" } }), Breed3: object({ colour: { type: "string" } }) }
            : {}),
        },
      },
    },
    "3.0.3",
  );
}

/** A body `allOf` two inline members, and a third (a property `prop3`) with `more`. */
function inline(direction: "request" | "response", more: boolean): Doc {
  const members = [object({ prop1: { type: "string" } }), object({ prop2: { type: "boolean" } })];
  if (more) members.push(object({ prop3: { type: "integer" } }));
  const content = { "application/json": { schema: { allOf: members } } };
  return api({
    "/pets":
      direction === "request"
        ? { post: { requestBody: { content }, responses: OK } }
        : { get: { responses: { "200": { description: "Pets", content } } } },
  });
}

/** A body with a property `name`, and an annotation-only allOf member on the body (or on `pet`) with `more`. */
function annotation(direction: "request" | "response", where: "body" | "property", more: boolean): Doc {
  const member = { allOf: [{ title: "annotation-only subschema", description: "no validation effect" }] };
  const pet = object({ name: { type: "string" } }, undefined, more && where === "property" ? member : {});
  const schema = object({ pet }, undefined, more && where === "body" ? member : {});
  const content = { "application/json": { schema } };
  return api({
    "/pets":
      direction === "request"
        ? { post: { requestBody: { content }, responses: OK } }
        : { get: { responses: { "200": { description: "Pets", content } } } },
  });
}

const requestAllOf = from("check_request_property_all_of_updated_test.go");
const responseAllOf = from("check_response_property_all_of_updated_test.go");
const requestAnyOf = from("check_request_property_any_of_updated_test.go");
const responseAnyOf = from("check_response_property_any_of_updated_test.go");
const requestOneOf = from("check_request_property_one_of_updated_test.go");
const responseOneOf = from("check_response_property_one_of_updated_test.go");

export default [
  requestAllOf(
    "TestRequestPropertyAllOfAdded",
    one(["request-body-all-of-added", "request-property-all-of-added"]),
    pets("allOf", "request", false),
    pets("allOf", "request", true),
  ),
  requestAllOf(
    "TestRequestPropertyAllOfAdded_WithSources_Inline",
    one(["request-body-all-of-added"]),
    inline("request", false),
    inline("request", true),
  ),
  requestAllOf(
    "TestRequestPropertyAllOfRemoved",
    one(["request-body-all-of-removed", "request-property-all-of-removed"]),
    pets("allOf", "request", true),
    pets("allOf", "request", false),
  ),
  requestAllOf(
    "TestRequestPropertyAllOfAdded_AnnotationOnly_EmitsInfo",
    one(["request-body-all-of-added-annotation-only"]),
    annotation("request", "body", false),
    annotation("request", "body", true),
  ),
  requestAllOf(
    "TestRequestPropertyAllOfAdded_AnnotationOnly_AtProperty_EmitsInfo",
    one(["request-property-all-of-added-annotation-only"]),
    annotation("request", "property", false),
    annotation("request", "property", true),
  ),
  responseAllOf(
    "TestResponsePropertyAllOfAdded",
    one(["response-body-all-of-added", "response-property-all-of-added"]),
    pets("allOf", "response", false),
    pets("allOf", "response", true),
  ),
  responseAllOf(
    "TestResponsePropertyAllOfAdded_WithSources_Inline",
    one(["response-body-all-of-added"]),
    inline("response", false),
    inline("response", true),
  ),
  responseAllOf(
    "TestResponsePropertyAllOfRemoved",
    one(["response-body-all-of-removed", "response-property-all-of-removed"]),
    pets("allOf", "response", true),
    pets("allOf", "response", false),
  ),
  responseAllOf(
    "TestResponsePropertyAllOfAdded_AnnotationOnly_EmitsInfoWithDistinctId",
    one(["response-body-all-of-added-annotation-only"]),
    annotation("response", "body", false),
    annotation("response", "body", true),
  ),
  requestAnyOf(
    "TestRequestPropertyAnyOfAdded",
    one(["request-body-any-of-added", "request-property-any-of-added"]),
    pets("anyOf", "request", false),
    pets("anyOf", "request", true),
  ),
  requestAnyOf(
    "TestRequestPropertyAnyOfRemoved",
    one(["request-body-any-of-removed", "request-property-any-of-removed"]),
    pets("anyOf", "request", true),
    pets("anyOf", "request", false),
  ),
  responseAnyOf(
    "TestResponsePropertyAnyOfAdded",
    one(["response-body-any-of-added", "response-property-any-of-added"]),
    pets("anyOf", "response", false),
    pets("anyOf", "response", true),
  ),
  responseAnyOf(
    "TestResponsePropertyAnyOfRemoved",
    one(["response-body-any-of-removed", "response-property-any-of-removed"]),
    pets("anyOf", "response", true),
    pets("anyOf", "response", false),
  ),
  requestOneOf(
    "TestRequestPropertyOneOfAdded",
    one(["request-body-one-of-added", "request-property-one-of-added"]),
    pets("oneOf", "request", false),
    pets("oneOf", "request", true),
  ),
  requestOneOf(
    "TestRequestPropertyOneOfRemoved",
    one(["request-body-one-of-removed", "request-property-one-of-removed"]),
    pets("oneOf", "request", true),
    pets("oneOf", "request", false),
  ),
  responseOneOf(
    "TestResponsePropertyOneOfAdded",
    one(["response-body-one-of-added", "response-property-one-of-added"]),
    pets("oneOf", "response", false),
    pets("oneOf", "response", true),
  ),
  responseOneOf(
    "TestResponsePropertyOneOfRemoved",
    one(["response-body-one-of-removed", "response-property-one-of-removed"]),
    pets("oneOf", "response", true),
    pets("oneOf", "response", false),
  ),
];
