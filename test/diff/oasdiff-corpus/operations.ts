/**
 * oasdiff's tests of paths and operations: removed (with or without deprecation, before or after a sunset, alpha
 * or draft), deprecated, reactivated, sunsets changed, stability levels, operationIds, tags, and webhooks added,
 * removed or changed (the last judged in the receiver's direction here, see JUDGMENTS).
 */
import { api, breaking, type Doc, every, from, OK, object, one } from "./build.ts";

const removed = from("check_api_removed_test.go");
const deprecation = from("check_api_deprecation_test.go");
const sunset = from("check_api_sunset_changed_test.go");
const stability = from("check_api_stability_level_test.go");
const operationId = from("check_api_operation_id_updated_test.go");
const tags = from("check_api_tag_updated_test.go");
const webhookUpdated = from("check_webhook_updated_test.go");
const webhookOperation = from("check_webhook_operation_test.go");

const created = { "201": { description: "OK" } };

/** `/api/test` with a POST and a GET, each carrying `post` and `get` (null: the operation is not there). */
function test(get: Doc | null = {}, post: Doc | null = {}, more: Doc = {}): Doc {
  const item: Doc = {};
  if (post) item.post = { ...post, responses: created };
  if (get) item.get = { ...get, responses: OK };
  return api({ ...more, "/api/test": item }, {}, "3.0.3");
}
const placeholder = { "/api/placeholder": { get: { responses: OK } } };
const onlyPlaceholder = () => api(placeholder, {}, "3.0.3");

const groups = (post: Doc) => api({ "/groups": { post: { ...post, responses: OK } } });

function webhooks(names: Record<string, Doc>): Doc {
  const body = (properties: Doc, required?: boolean) => ({
    ...(required ? { required: true } : {}),
    content: { "application/json": { schema: object(properties) } },
  });
  return api(
    { "/products": { get: { operationId: "listProducts", responses: OK } } },
    {
      webhooks: Object.fromEntries(
        Object.entries(names).map(([name, { properties, required }]) => [
          name,
          { post: { operationId: `${name}Handler`, requestBody: body(properties, required), responses: OK } },
        ]),
      ),
    },
  );
}
const orderId = { orderId: { type: "string" } };

export default [
  removed(
    "TestBreaking_DeletedPath",
    breaking(["api-path-removed-without-deprecation"]),
    test({}, {}, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_DeletedOp",
    breaking(["api-removed-without-deprecation"]),
    test({}, {}, { "/api/install": { get: { responses: OK }, put: { responses: OK } } }),
    test({}, {}, { "/api/install": { get: { responses: OK } } }),
  ),
  removed(
    "TestBreaking_DeprecationPast",
    one([], "warning"),
    test({ deprecated: true, "x-sunset": "2022-08-10" }),
    test(null),
  ),
  removed(
    "TestBreaking_RemoveBeforeSunset",
    one(["api-removed-before-sunset"], "warning"),
    test({ deprecated: true, "x-sunset": "9999-08-10" }),
    test(null),
  ),
  removed(
    "TestBreaking_DeprecationNoSunset",
    one(["api-removed-with-deprecation"]),
    test({ deprecated: true }),
    test(null),
  ),
  removed(
    "TestBreaking_RemovedPathForAlpha",
    one([], "warning"),
    test({ "x-stability-level": "alpha" }, { "x-stability-level": "alpha" }, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_RemovedPathForDraft",
    one([], "warning"),
    test({ "x-stability-level": "draft" }, { "x-stability-level": "draft" }, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_RemovedPathForAlphaBreaking",
    one(["api-path-removed-without-deprecation"], "warning"),
    test({ "x-stability-level": "alpha" }, {}, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_RemovedPathForDraftBreaking",
    one(["api-path-removed-without-deprecation"], "warning"),
    test({ "x-stability-level": "draft" }, {}, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_DeprecationPathPast",
    one([], "warning"),
    test({ deprecated: true, "x-sunset": "2022-08-10" }, { deprecated: true, "x-sunset": "2022-08-10" }, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_DeprecationPathMixed",
    one(["api-path-removed-before-sunset"], "warning"),
    test({ deprecated: true, "x-sunset": "2022-08-10" }, { deprecated: true, "x-sunset": "9999-08-10" }, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_PathDeprecationNoSunset",
    one(["api-path-removed-with-deprecation"]),
    test({ deprecated: true }, { deprecated: true }, placeholder),
    onlyPlaceholder(),
  ),
  removed(
    "TestBreaking_RemoveEndpointWithInvalidSunset",
    one(["api-path-sunset-parse"], "warning"),
    test({ deprecated: true, "x-sunset": "invalid-date" }),
    test(null),
  ),
  removed(
    "TestBreaking_DeprecationPathMixed_RFC3339_Sunset",
    one(["api-path-removed-before-sunset"], "warning"),
    test(
      { deprecated: true, "x-sunset": "2022-08-10T00:00:00Z" },
      { deprecated: true, "x-sunset": "9999-08-10T00:00:00Z" },
      placeholder,
    ),
    onlyPlaceholder(),
  ),
  deprecation(
    "TestBreaking_DeprecationWithInvalidSunset",
    one(["api-deprecated-sunset-parse"], "warning"),
    test(),
    test({ deprecated: true, "x-sunset": "invalid-date" }),
  ),
  deprecation(
    "TestBreaking_DeprecationWithInvalidStabilityLevel",
    one(["api-invalid-stability-level"], "warning"),
    test({ deprecated: true, "x-sunset": "2023-08-02", "x-stability-level": "invalid" }),
    test(),
  ),
  deprecation("TestBreaking_DeprecationWithoutSunsetNoPolicy", one([], "warning"), test(), test({ deprecated: true })),
  deprecation(
    "TestBreaking_DeprecationForAlpha",
    one([], "warning"),
    test({ "x-stability-level": "alpha" }),
    test({ "x-stability-level": "alpha", deprecated: true }),
  ),
  deprecation(
    "TestApiDeprecated_DetectsDeprecatedOperations",
    one(["endpoint-deprecated-with-sunset"]),
    test(),
    test({ deprecated: true, "x-sunset": "9999-08-10" }),
  ),
  deprecation(
    "TestApiDeprecated_DetectsReactivatedOperations",
    one(["endpoint-reactivated"]),
    test({ deprecated: true, "x-sunset": "9999-08-10" }),
    test(),
  ),
  deprecation(
    "TestApiDeprecated_MessageWithoutDetails",
    one(["endpoint-deprecated"]),
    test(),
    test({ deprecated: true }),
  ),
  deprecation(
    "TestApiDeprecated_MessageIncludesStabilityOnly",
    one(["endpoint-deprecated"]),
    test({ "x-stability-level": "beta" }),
    test({ "x-stability-level": "beta", deprecated: true }),
  ),
  deprecation(
    "TestBreaking_DeprecationWithRFC3339Sunset",
    one(["endpoint-deprecated-with-sunset"]),
    test(),
    test({ deprecated: true, "x-sunset": "9999-08-10T00:00:00Z" }),
  ),
  sunset(
    "TestBreaking_SunsetDeletedForDeprecatedEndpoint",
    one(["sunset-deleted"], "warning"),
    test({ deprecated: true, "x-sunset": "9999-08-10" }),
    test({ deprecated: true }),
  ),
  sunset(
    "TestBreaking_SunsetModifiedToInvalidForDeprecatedEndpoint",
    one(["api-path-sunset-parse"], "warning"),
    test({ deprecated: true, "x-sunset": "9999-08-10" }),
    test({ deprecated: true, "x-sunset": "invalid-date" }),
  ),
  sunset(
    "TestBreaking_NonSunsetDeletedForDeprecatedEndpoint",
    one([], "warning"),
    test({ deprecated: true, "x-other-extension": "value" }),
    test({ deprecated: true }),
  ),
  sunset(
    "TestBreaking_NoChangeToSunsetDeprecatedEndpoint",
    one([], "warning"),
    test({ deprecated: true, "x-sunset": "9999-08-10" }),
    test({ deprecated: true, "x-sunset": "9999-08-10", description: "Still going." }),
  ),
  stability(
    "TestBreaking_StabilityLevelDecreased",
    breaking(["api-stability-decreased"]),
    test({ "x-stability-level": "beta" }),
    test({ "x-stability-level": "alpha" }),
  ),
  stability(
    "TestBreaking_StabilityLevelIncreased",
    breaking([]),
    test({ "x-stability-level": "alpha" }),
    test({ "x-stability-level": "beta" }),
  ),
  stability(
    "TestBreaking_InvalidStabilityLevelInRevision",
    breaking(["api-invalid-stability-level"]),
    test(),
    test({ "x-stability-level": "invalid" }),
  ),
  stability(
    "TestBreaking_InvalidStabilityLevelInBase",
    breaking(["api-invalid-stability-level"]),
    test({ "x-stability-level": "invalid" }),
    test({ "x-stability-level": "invalid", description: "Unchanged level." }),
  ),
  stability(
    "TestEndpointStability_StableToDraft_Decreased",
    every(["api-stability-decreased"]),
    test({ "x-stability-level": "stable" }),
    test({ "x-stability-level": "draft" }),
  ),
  stability(
    "TestEndpointStability_DraftToStable_Increased",
    every(["api-stability-increased"]),
    test({ "x-stability-level": "draft" }),
    test({ "x-stability-level": "stable" }),
  ),
  operationId(
    "TestOperationIdRemoved",
    one(["api-operation-id-removed"]),
    groups({ operationId: "createOneGroup" }),
    groups({}),
  ),
  operationId(
    "TestOperationIdUpdated",
    one(["api-operation-id-removed"]),
    groups({ operationId: "createOneGroup" }),
    groups({ operationId: "newOperationId" }),
  ),
  operationId(
    "TestOperationIdAdded",
    one(["api-operation-id-added"]),
    groups({}),
    groups({ operationId: "NewOperationId" }),
  ),
  tags("TestTagAdded", one(["api-tag-added"]), groups({}), groups({ tags: ["newTag"] })),
  tags("TestTagRemoved", one(["api-tag-removed"]), groups({ tags: ["Group"] }), groups({ tags: [] })),
  tags(
    "TestTagUpdated",
    one(["api-tag-removed", "api-tag-added"]),
    groups({ tags: ["Group"] }),
    groups({ tags: ["newTag"] }),
  ),
  webhookUpdated(
    "TestWebhookAddedAndRemoved",
    one(["webhook-removed", "webhook-added"]),
    webhooks({ orderCreated: { properties: orderId }, orderDeleted: { properties: orderId } }),
    webhooks({ orderCreated: { properties: orderId }, orderUpdated: { properties: orderId } }),
  ),
  // oasdiff judges a webhook's body as a request: a body becoming required is an error there. Here the delivery is
  // what partners read: a body becoming required (always sent) and an optional field added are compatible.
  webhookOperation(
    "TestWebhookOperationChangesDetected",
    every(["request-body-became-required", "new-optional-request-property"]),
    webhooks({ orderCreated: { properties: orderId } }),
    webhooks({ orderCreated: { properties: { ...orderId, amount: { type: "number" } }, required: true } }),
    { judgment: "webhook-direction" },
  ),
];
