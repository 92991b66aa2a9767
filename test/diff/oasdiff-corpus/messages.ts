/**
 * oasdiff's tests of what surrounds the schemas: response statuses, media types, request bodies, response headers,
 * parameters (removed, required, deprecated, their sunsets), security requirements and schemes, and null.
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
  responseMedia,
} from "./build.ts";

const statuses = from("check_response_status_updated_test.go");
const requestMedia = from("check_request_body_mediatype_updated_test.go");
const responseMediaTypes = from("check_response_mediatype_updated_test.go");
const bodyRemoved = from("check_request_body_removed_test.go");
const bodyRequired = from("check_request_body_required_value_updated_test.go");
const schemaExistence = from("check_media_type_schema_existence_test.go");
const headerAdded = from("check_response_header_added_test.go");
const headerNullable = from("check_response_header_became_nullable_test.go");
const parameterRemoved = from("check_request_parameter_removed_test.go");
const parameterRequired = from("check_request_parameter_required_value_updated_test.go");
const parameterDeprecation = from("check_request_parameter_deprecation_test.go");
const parameterSunset = from("check_request_parameter_sunset_changed_test.go");
const apiSunset = from("check_api_sunset_changed_test.go");
const security = from("check_api_security_updated_test.go");
const components = from("check_components_security_updated_test.go");
const nullable = from("check_request_property_became_not_nuallable_test.go");

const group = object({ name: { type: "string" } });
const groupResponses = (codes: string[]) =>
  responseMedia(Object.fromEntries(codes.map((code) => [code, { "application/json": group }])));

/** `GET /api/test` with the parameter `id` (a component), whatever it carries. */
const withId = (id: Doc | null, operation: Doc = {}) =>
  api(
    {
      "/api/test": {
        get: { ...operation, ...(id ? { parameters: [{ $ref: "#/components/parameters/id" }] } : {}), responses: OK },
      },
    },
    id
      ? {
          components: {
            parameters: {
              id: { name: "id", in: "query", required: true, schema: { type: "string" }, description: "The ID", ...id },
            },
          },
        }
      : {},
    "3.0.3",
  );

const networkPolicies = (required: boolean) =>
  api({
    "/api/install": {
      get: {
        parameters: [{ in: "header", name: "network-policies", required, schema: { type: "string" } }],
        responses: OK,
      },
    },
  });

/** `POST /subscribe`, its security (the operation's and the document's) and the petstore_auth scheme's flows. */
function subscribe(operation?: Doc[], global?: Doc[], flow: Doc = {}, schemes: Doc = {}): Doc {
  return api(
    { "/subscribe": { post: { ...(operation ? { security: operation } : {}), responses: OK } } },
    {
      ...(global ? { security: global } : {}),
      components: {
        securitySchemes: {
          petstore_auth: {
            type: "oauth2",
            flows: {
              implicit: {
                authorizationUrl: "http://example.org/api/oauth/dialog",
                scopes: { "write:pets": "modify pets in your account", "read:pets": "read your pets" },
                ...flow,
              },
            },
          },
          ...schemes,
        },
      },
    },
    "3.0.0",
  );
}
const petstore = (...scopes: string[]) => [{ petstore_auth: scopes }];

const nullName = (nullable31: boolean) =>
  requestBody(object({ name: { type: nullable31 ? ["string", "null"] : "string" } }));
const nullName30 = (isNullable: boolean) =>
  requestBody(object({ name: { type: "string", ...(isNullable ? { nullable: true } : {}) } }), { openapi: "3.0.3" });

export default [
  statuses(
    "TestResponseSuccessStatusAdded",
    one(["response-success-status-added"]),
    groupResponses(["200", "409"]),
    groupResponses(["200", "201", "409"]),
  ),
  statuses(
    "TestResponseNonSuccessStatusAdded",
    one(["response-non-success-status-added"]),
    groupResponses(["200", "409"]),
    groupResponses(["200", "400", "409"]),
  ),
  statuses(
    "TestResponseNonSuccessStatusRemoved",
    one(["response-non-success-status-removed"]),
    groupResponses(["200", "409"]),
    groupResponses(["200"]),
  ),
  statuses(
    "TestResponseSuccessStatusRemoved",
    one(["response-success-status-removed"]),
    groupResponses(["200", "409"]),
    groupResponses(["409"]),
  ),
  requestMedia(
    "TestRequestBodyMediaTypeAdded",
    one(["request-body-media-type-added"]),
    requestBody({ type: "string" }, { media: "text/plain" }),
    edit(requestBody({ type: "string" }, { media: "text/plain" }), (d) => {
      d.paths["/pets"].post.requestBody.content["application/json"] = { schema: group };
    }),
  ),
  requestMedia(
    "TestRequestBodyMediaTypeRemoved",
    one(["request-body-media-type-removed"]),
    edit(requestBody({ type: "string" }, { media: "text/plain" }), (d) => {
      d.paths["/pets"].post.requestBody.content["application/json"] = { schema: group };
    }),
    requestBody({ type: "string" }, { media: "text/plain" }),
  ),
  responseMediaTypes(
    "TestAddNewMediaType",
    one(["response-media-type-added"]),
    responseMedia({ "200": { "application/json": group } }),
    responseMedia({ "200": { "application/json": group, "application/xml": object({ id: { type: "integer" } }) } }),
  ),
  responseMediaTypes(
    "TestDeleteNewMediaType",
    one(["response-media-type-removed"]),
    responseMedia({ "200": { "application/json": group, "application/xml": object({ id: { type: "integer" } }) } }),
    responseMedia({ "200": { "application/json": group } }),
  ),
  bodyRemoved(
    "TestRequestBodyRemoved",
    one(["request-body-removed"], "warning"),
    requestBody(object({ test: { type: "string" } }), { required: true }),
    api({ "/pets": { post: { operationId: "addPet", responses: OK } } }),
  ),
  bodyRequired(
    "TestRequestBodyBecameRequired",
    one(["request-body-became-required"], "warning"),
    requestBody(group, { required: false }),
    requestBody(group, { required: true }),
  ),
  bodyRequired(
    "TestRequestBodyBecameOptional",
    one(["request-body-became-optional"]),
    requestBody(group, { required: true }),
    requestBody(group, { required: false }),
  ),
  schemaExistence(
    "TestMediaTypeSchemaExistence",
    every(["request-body-media-type-schema-added", "response-body-media-type-schema-added"]),
    api({
      "/test": {
        post: {
          requestBody: { content: { "application/json": {} } },
          responses: { "200": { description: "ok", content: { "application/json": {} } } },
        },
      },
    }),
    api({
      "/test": {
        post: {
          requestBody: { content: { "application/json": { schema: object({ id: { type: "string" } }) } } },
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "string" } } } } },
        },
      },
    }),
  ),
  headerAdded(
    "TestResponseHeaderAdded",
    every(["response-header-added"]),
    responseHeaders({ "X-Other": { schema: { type: "string" } } }),
    responseHeaders({
      "X-Other": { schema: { type: "string" } },
      "X-RateLimit-Limit": { schema: { type: "integer" } },
    }),
  ),
  headerNullable(
    "TestResponseHeaderBecameNullable",
    breaking(["response-header-became-nullable"]),
    responseHeaders({ "X-RateLimit-Limit": { schema: { type: "integer" } } }, "3.0.3"),
    responseHeaders({ "X-RateLimit-Limit": { schema: { type: "integer", nullable: true } } }, "3.0.3"),
  ),
  headerNullable(
    "TestResponseHeaderBecameNotNullable",
    every(["response-header-became-not-nullable"]),
    responseHeaders({ "X-RateLimit-Limit": { schema: { type: "integer", nullable: true } } }, "3.0.3"),
    responseHeaders({ "X-RateLimit-Limit": { schema: { type: "integer" } } }, "3.0.3"),
  ),
  parameterRemoved(
    "TestBreaking_DeletedParameter",
    one(["request-parameter-removed"], "warning"),
    withId({}),
    withId(null),
  ),
  parameterRemoved(
    "TestBreaking_ParameterDeprecationPast",
    one([], "warning"),
    withId({ deprecated: true, "x-sunset": "2022-08-10" }),
    withId(null),
  ),
  parameterRemoved(
    "TestBreaking_ParameterDeprecationFuture",
    one(["request-parameter-removed-before-sunset"], "warning"),
    withId({ deprecated: true, "x-sunset": "9999-08-10" }),
    withId(null),
  ),
  parameterRemoved(
    "TestBreaking_ParameterDeprecationNoSunset",
    one([], "warning"),
    withId({ deprecated: true }),
    withId(null),
  ),
  parameterRemoved(
    "TestBreaking_RemovedParameterForAlpha",
    breaking([]),
    withId({}, { "x-stability-level": "alpha" }),
    withId(null, { "x-stability-level": "alpha" }),
  ),
  parameterRemoved(
    "TestBreaking_RemoveParameterWithInvalidSunset",
    one(["request-parameter-sunset-parse"], "warning"),
    withId({ deprecated: true, "x-sunset": "invalid-date" }),
    withId(null),
  ),
  parameterRequired(
    "TestBreaking_HeaderParamBecameRequired",
    one(["request-parameter-became-required"], "warning"),
    networkPolicies(false),
    networkPolicies(true),
  ),
  parameterRequired(
    "TestBreaking_HeaderParamBecameOptional",
    one(["request-parameter-became-optional"]),
    networkPolicies(true),
    networkPolicies(false),
  ),
  parameterDeprecation(
    "TestBreaking_ParameterDeprecationWithInvalidSunset",
    one(["request-parameter-sunset-parse"], "warning"),
    withId({}),
    withId({ deprecated: true, "x-sunset": "invalid-date" }),
  ),
  parameterDeprecation(
    "TestBreaking_ParameterDeprecationForAlpha",
    one([], "warning"),
    withId({}, { "x-stability-level": "alpha" }),
    withId({ deprecated: true }, { "x-stability-level": "alpha" }),
  ),
  parameterDeprecation(
    "TestParameterDeprecated_DetectsDeprecated",
    one(["request-parameter-deprecated"]),
    withId({}),
    withId({ deprecated: true, "x-sunset": "9999-08-10" }),
  ),
  parameterDeprecation(
    "TestParameterDeprecated_DetectsReactivated",
    one(["request-parameter-reactivated"]),
    withId({ deprecated: true, "x-sunset": "9999-08-10" }),
    withId({}),
  ),
  parameterDeprecation(
    "TestParameterDeprecated_MessageWithoutDetails",
    one(["request-parameter-deprecated"]),
    withId({}),
    withId({ deprecated: true }),
  ),
  parameterSunset(
    "TestBreaking_SunsetDeletedForDeprecatedParameter",
    one(["request-parameter-sunset-deleted"], "warning"),
    withId({ deprecated: true, "x-sunset": "2023-08-02" }),
    withId({ deprecated: true }),
  ),
  parameterSunset(
    "TestBreaking_SunsetModifiedToInvalidForDeprecatedParameter",
    one(["request-parameter-sunset-parse"], "warning"),
    withId({ deprecated: true, "x-sunset": "9999-08-10" }),
    withId({ deprecated: true, "x-sunset": "invalid-date" }),
  ),
  parameterSunset(
    "TestBreaking_SunsetModifiedFromInvalidForDeprecatedParameter",
    one(["request-parameter-sunset-parse"], "warning"),
    withId({ deprecated: true, "x-sunset": "invalid-date" }),
    withId({ deprecated: true, "x-sunset": "9999-08-10" }),
    { judgment: "sunset-fixed" },
  ),
  parameterSunset(
    "TestBreaking_NonSunsetDeletedForDeprecatedParameter",
    one([], "warning"),
    withId({ deprecated: true, "x-other": "2023-08-02" }),
    withId({ deprecated: true }),
  ),
  parameterSunset(
    "TestBreaking_NoChangeToSunsetDeprecatedParameter",
    one([], "warning"),
    withId({ deprecated: true, "x-sunset": "9999-08-10" }),
    withId({ deprecated: true, "x-sunset": "9999-08-10", description: "The ID, still." }),
  ),
  apiSunset(
    "TestBreaking_SunsetModifiedFromInvalidForDeprecatedEndpoint",
    one(["api-path-sunset-parse"], "warning"),
    api({ "/api/test": { get: { deprecated: true, "x-sunset": "invalid-date", responses: OK } } }),
    api({ "/api/test": { get: { deprecated: true, "x-sunset": "9999-08-10", responses: OK } } }),
    { judgment: "sunset-fixed" },
  ),
  security(
    "TestAPIGlobalSecurityyAdded",
    one(["api-global-security-added"]),
    subscribe(),
    subscribe(undefined, petstore("write:pets", "read:pets")),
  ),
  security(
    "TestAPIGlobalSecurityyDeleted",
    one(["api-global-security-removed"]),
    subscribe(undefined, petstore("write:pets", "read:pets")),
    subscribe(),
  ),
  security(
    "TestAPIGlobalSecurityScopeRemoved",
    one(["api-global-security-scope-removed"]),
    subscribe(undefined, petstore("write:pets", "read:pets")),
    subscribe(undefined, petstore("write:pets")),
  ),
  security(
    "TestAPIGlobalSecurityScopeAdded",
    one(["api-global-security-scope-added"]),
    subscribe(undefined, petstore("write:pets")),
    subscribe(undefined, petstore("write:pets", "read:pets")),
  ),
  security(
    "TestAPISecurityAdded",
    one(["api-security-added"]),
    subscribe(),
    subscribe(petstore("write:pets", "read:pets")),
  ),
  security(
    "TestAPISecurityDeleted",
    one(["api-security-removed"]),
    subscribe(petstore("write:pets", "read:pets")),
    subscribe(),
  ),
  security(
    "TestAPISecurityScopeRemoved",
    one(["api-security-scope-removed"]),
    subscribe(petstore("write:pets", "read:pets")),
    subscribe(petstore("write:pets")),
  ),
  security(
    "TestAPISecurityScopeAdded",
    one(["api-security-scope-added"]),
    subscribe(petstore("write:pets")),
    subscribe(petstore("write:pets", "read:pets")),
  ),
  components(
    "TestComponentSecurityOauthURLUpdated",
    one(["api-security-component-oauth-url-changed"]),
    subscribe(petstore("write:pets")),
    subscribe(petstore("write:pets"), undefined, { authorizationUrl: "http://example.new.org/api/oauth/dialog" }),
  ),
  components(
    "TestComponentSecurityOauthTokenUpdated",
    one(["api-security-component-oauth-token-url-changed"]),
    subscribe(petstore("write:pets")),
    subscribe(petstore("write:pets"), undefined, { tokenUrl: "http://example.new.org/api/oauth/dialog" }),
  ),
  components(
    "TestComponentSecurityTypeUpdated",
    one(["api-security-component-type-changed"]),
    subscribe(petstore("write:pets")),
    edit(subscribe(petstore("write:pets")), (d) => {
      d.components.securitySchemes.petstore_auth.type = "http";
    }),
  ),
  components(
    "TestComponentSecurityAdded",
    one(["api-security-component-added"]),
    subscribe(petstore("write:pets")),
    subscribe(petstore("write:pets"), undefined, {}, { BasicAuth: { type: "http", scheme: "basic" } }),
  ),
  components(
    "TestComponentSecurityRemoved",
    one(["api-security-component-removed"]),
    subscribe(petstore("write:pets"), undefined, {}, { BasicAuth: { type: "http", scheme: "basic" } }),
    subscribe(petstore("write:pets")),
  ),
  components(
    "TestComponentSecurityOauthScopeAdded",
    one(["api-security-component-oauth-scope-added"]),
    subscribe(petstore("write:pets")),
    subscribe(petstore("write:pets"), undefined, {
      scopes: {
        "write:pets": "modify pets in your account",
        "read:pets": "read your pets",
        "admin:pets": "grants access to admin operations",
      },
    }),
  ),
  nullable(
    "TestRequestPropertyBecameNotNullable",
    one(["request-property-became-not-nullable"]),
    nullName30(true),
    nullName30(false),
  ),
  nullable(
    "TestRequestPropertyBecameNullable",
    one(["request-property-became-nullable"]),
    nullName30(false),
    nullName30(true),
  ),
  nullable(
    "TestRequestBodyBecameNullable",
    one(["request-body-became-nullable"]),
    requestBody(group, { openapi: "3.0.3" }),
    requestBody({ ...group, nullable: true }, { openapi: "3.0.3" }),
  ),
  nullable(
    "TestRequestPropertyBecameNullable31",
    one(["request-property-became-nullable"]),
    nullName(false),
    nullName(true),
  ),
  nullable(
    "TestRequestPropertyBecameNotNullable31",
    one(["request-property-became-not-nullable"]),
    nullName(true),
    nullName(false),
  ),
  nullable(
    "TestRequestBodyBecameNotNullable",
    one(["request-body-became-not-nullable"]),
    requestBody({ ...group, nullable: true }, { openapi: "3.0.3" }),
    requestBody(group, { openapi: "3.0.3" }),
  ),
  nullable(
    "TestResponsePropertyBecameNullable31",
    one(["response-property-became-nullable"]),
    responseBody(object({ name: { type: "string" } })),
    responseBody(object({ name: { type: ["string", "null"] } })),
  ),
  nullable(
    "TestRequestBodyBecameNullable31",
    one(["request-body-became-nullable"]),
    requestBody({ type: "object" }),
    requestBody({ type: ["object", "null"] }),
  ),
  nullable(
    "TestRequestBodyBecameNotNullable31",
    one(["request-body-became-not-nullable"]),
    requestBody({ type: ["object", "null"] }),
    requestBody({ type: "object" }),
  ),
  nullable(
    "TestResponseBodyBecameNullable31",
    one(["response-body-became-nullable"]),
    responseBody({ type: "object" }),
    responseBody({ type: ["object", "null"] }),
  ),
];
