/**
 * oasdiff's tests of properties: added and removed (required or optional, write-only in a response), becoming
 * required or optional, read-only and write-only, and a body wrapped in a oneOf.
 */
import { type Doc, from, object, one, requestBody, responseBody } from "./build.ts";

const requestUpdated = from("check_request_property_updated_test.go");
const requestRequired = from("check_request_property_required_updated_test.go");
const responseRequired = from("check_response_required_property_updated_test.go");
const responseOptional = from("check_response_optional_property_updated_test.go");
const becameOptional = from("check_response_property_became_optional_test.go");
const becameRequired = from("check_response_property_became_required_test.go");
const requestMutability = from("check_request_property_write_only_read_only_test.go");
const responseOptionalMutability = from("check_response_optional_property_write_only_read_only_test.go");
const responseRequiredMutability = from("check_response_required_property_write_only_read_only_test.go");

const product = (properties: Doc, required: string[]) =>
  requestBody(object({ name: { type: "string" }, ...properties }, required));
/** GroupView's `data` in a response: `created` (read-only), `id` (read-only), `name`, and what a test adds. */
const groupData = (properties: Doc, required: string[] = ["name"]) =>
  responseBody(
    object({
      data: object(
        {
          created: { type: "string", format: "date-time", readOnly: true },
          id: { type: "string", readOnly: true },
          name: { type: "string" },
          ...properties,
        },
        required,
      ),
    }),
  );
const withoutId = (properties: Doc = {}) =>
  responseBody(
    object({
      data: object(
        { created: { type: "string", format: "date-time", readOnly: true }, name: { type: "string" }, ...properties },
        ["name"],
      ),
    }),
  );
const flags = (id: Doc, name: Doc) =>
  requestBody(object({ id: { type: "integer", ...id }, name: { type: "string", ...name } }, ["id"]), {
    required: true,
  });
const viewFlags = (name: Doc, id: Doc, writeOnlyName: Doc, required: string[]) =>
  responseBody(
    object({
      data: object(
        {
          name: { type: "string", ...name },
          id: { type: "string", readOnly: true, ...id },
          writeOnlyName: { type: "string", writeOnly: true, ...writeOnlyName },
        },
        required,
      ),
    }),
  );
const fooBar = (fooRequired: string[]) => ({
  type: "object",
  required: fooRequired,
  properties: { foo: { type: "string" }, bar: { type: "string" }, baz: { type: "string" } },
});

export default [
  requestUpdated(
    "TestRequiredRequestPropertyAdded",
    one(["new-required-request-property"]),
    product({}, ["name"]),
    product({ description: { type: "string" } }, ["name", "description"]),
  ),
  requestUpdated(
    "TestRequiredRequestPropertiesAdded",
    one(["new-required-request-property", "new-optional-request-property"]),
    product({}, ["name"]),
    product({ description: { type: "string" }, info: { type: "string" } }, ["name", "description"]),
  ),
  requestUpdated(
    "TestRequiredOptionalPropertyAdded",
    one(["new-optional-request-property"]),
    product({}, ["name"]),
    product({ description: { type: "string" } }, ["name"]),
  ),
  requestUpdated(
    "TestRequiredRequestPropertyRemoved",
    one(["request-property-removed"]),
    product({ description: { type: "string" } }, ["name", "description"]),
    product({}, ["name"]),
  ),
  requestUpdated(
    "TestRequiredRequestPropertyAddedWithDefault",
    one(["new-required-request-property-with-default"]),
    product({}, ["name"]),
    product({ description: { type: "string", default: "default description" } }, ["name", "description"]),
  ),
  requestUpdated(
    "TestRequestPropertyOneOfWrappingIsBreaking",
    one(["request-body-wrapped-in-one-of"]),
    requestBody(fooBar(["foo", "bar"])),
    requestBody({ oneOf: [fooBar(["foo"]), fooBar(["bar"])] }),
  ),
  requestRequired(
    "TestRequestPropertyMarkedRequired",
    one(["request-property-became-required"]),
    requestMedia({ name: { type: "string" } }, []),
    requestMedia({ name: { type: "string" } }, ["name"]),
  ),
  requestRequired(
    "TestRequestPropertyMarkedOptional",
    one(["request-property-became-optional"]),
    requestMedia({ name: { type: "string" } }, ["name"]),
    requestMedia({ name: { type: "string" } }, []),
  ),
  requestRequired(
    "TestRequestPropertyWithDefaultMarkedRequired",
    one(["request-property-became-required-with-default"]),
    requestMedia({ name: { type: "string" } }, []),
    requestMedia({ name: { type: "string", default: "default" } }, ["name"]),
  ),
  responseRequired(
    "TestResponseRequiredPropertyAdded",
    one(["response-required-property-added"]),
    groupData({}),
    groupData({ new: { type: "string" } }, ["name", "new"]),
  ),
  responseRequired(
    "TestResponseRequiredPropertyRemoved",
    one(["response-required-property-removed"]),
    groupData({ new: { type: "string" } }, ["name", "new"]),
    groupData({}, ["name", "id"]),
  ),
  responseRequired(
    "TestResponseRequiredWriteOnlyPropertyAdded",
    one(["response-required-write-only-property-added"]),
    groupData({}),
    groupData({ new: { type: "string", writeOnly: true } }, ["name", "new"]),
  ),
  responseRequired(
    "TestResponseRequiredWriteOnlyPropertyRemoved",
    one(["response-required-write-only-property-removed"]),
    groupData({ new: { type: "string", writeOnly: true } }, ["name", "new"]),
    groupData({}, ["name", "id"]),
  ),
  responseOptional(
    "TestResponseOptionalPropertyUpdatedCheck",
    one(["response-optional-property-removed"]),
    groupData({}),
    withoutId(),
  ),
  responseOptional(
    "TestResponseOptionalPropertyAddedCheck",
    one(["response-optional-property-added"]),
    withoutId(),
    groupData({}),
  ),
  responseOptional(
    "TestResponseOptionalWriteOnlyPropertyRemovedCheck",
    one(["response-optional-write-only-property-removed"]),
    groupData({ id: { type: "string", readOnly: true, writeOnly: true } }),
    withoutId(),
  ),
  responseOptional(
    "TestResponseOptionalWriteOnlyPropertyAddedCheck",
    one(["response-optional-write-only-property-added"]),
    withoutId(),
    groupData({ id: { type: "string", readOnly: true, writeOnly: true } }),
  ),
  becameOptional(
    "TestResponsePropertyBecameOptionalCheck",
    one(["response-property-became-optional"], "error"),
    groupData({}),
    groupData({}, []),
  ),
  becameOptional(
    "TestResponseWriteOnlyPropertyBecameOptionalCheck",
    one(["response-write-only-property-became-optional"]),
    groupData({ name: { type: "string", writeOnly: true } }),
    groupData({}, []),
  ),
  becameRequired(
    "TestResponsePropertyBecameRequiredlCheck",
    one(["response-property-became-required"]),
    groupData({}, []),
    groupData({}),
  ),
  requestMutability(
    "TestRequestOptionalPropertyBecameWriteOnly",
    one(["request-optional-property-became-write-only"]),
    flags({ writeOnly: false }, { writeOnly: false }),
    flags({ writeOnly: false }, { writeOnly: true }),
  ),
  requestMutability(
    "TestRequestOptionalPropertyBecameNotWriteOnly",
    one(["request-optional-property-became-not-write-only"]),
    flags({ writeOnly: false }, { writeOnly: true }),
    flags({ writeOnly: false }, { writeOnly: false }),
  ),
  requestMutability(
    "TestRequestOptionalPropertyBecameReadOnly",
    one(["request-optional-property-became-read-only"]),
    flags({}, {}),
    flags({}, { readOnly: true }),
  ),
  requestMutability(
    "TestRequestOptionalPropertyBecameNonReadOnly",
    one(["request-optional-property-became-not-read-only"]),
    flags({}, { readOnly: true }),
    flags({}, {}),
  ),
  requestMutability(
    "TestRequestRequiredPropertyBecameWriteOnly",
    one(["request-required-property-became-write-only"]),
    flags({ writeOnly: false }, {}),
    flags({ writeOnly: true }, {}),
  ),
  requestMutability(
    "TestRequestRequiredPropertyBecameNotWriteOnly",
    one(["request-required-property-became-not-write-only"]),
    flags({ writeOnly: true }, {}),
    flags({ writeOnly: false }, {}),
  ),
  requestMutability(
    "TestRequestRequiredPropertyBecameReadOnly",
    one(["request-required-property-became-read-only"]),
    flags({}, {}),
    flags({ readOnly: true }, {}),
  ),
  requestMutability(
    "TestRequestRequiredPropertyBecameNonReadOnly",
    one(["request-required-property-became-not-read-only"]),
    flags({ readOnly: true }, {}),
    flags({}, {}),
  ),
  responseOptionalMutability(
    "TestResponseOptionalPropertyBecameWriteOnly",
    one(["response-optional-property-became-write-only"]),
    viewFlags({}, {}, {}, []),
    viewFlags({ writeOnly: true }, {}, {}, []),
  ),
  responseOptionalMutability(
    "TestResponseOptionalPropertyBecameNotWriteOnly",
    one(["response-optional-property-became-not-write-only"]),
    viewFlags({}, {}, {}, []),
    viewFlags({}, {}, { writeOnly: false }, []),
  ),
  responseOptionalMutability(
    "TestResponseOptionalPropertyBecameReadOnly",
    one(["response-optional-property-became-read-only"]),
    viewFlags({}, { readOnly: false }, {}, []),
    viewFlags({}, {}, {}, []),
  ),
  responseOptionalMutability(
    "TestResponseOptionalPropertyBecameNonReadOnly",
    one(["response-optional-property-became-not-read-only"]),
    viewFlags({}, {}, {}, []),
    viewFlags({}, { readOnly: false }, {}, []),
  ),
  responseRequiredMutability(
    "TestResponseRequiredPropertyBecameWriteOnly",
    one(["response-required-property-became-write-only"]),
    viewFlags({}, {}, {}, ["name", "id", "writeOnlyName"]),
    viewFlags({ writeOnly: true }, {}, {}, ["name", "id", "writeOnlyName"]),
  ),
  responseRequiredMutability(
    "TestResponseRequiredPropertyBecameNotWriteOnly",
    one(["response-required-property-became-not-write-only"]),
    viewFlags({}, {}, {}, ["name", "id", "writeOnlyName"]),
    viewFlags({}, {}, { writeOnly: false }, ["name", "id", "writeOnlyName"]),
  ),
  responseRequiredMutability(
    "TestResponseRequiredPropertyBecameReadOnly",
    one(["response-required-property-became-read-only"]),
    viewFlags({}, { readOnly: false }, {}, ["name", "id", "writeOnlyName"]),
    viewFlags({}, {}, {}, ["name", "id", "writeOnlyName"]),
  ),
  responseRequiredMutability(
    "TestResponseRequiredPropertyBecameNonReadOnly",
    one(["response-required-property-became-not-read-only"]),
    viewFlags({}, {}, {}, ["name", "id", "writeOnlyName"]),
    viewFlags({}, { readOnly: false }, {}, ["name", "id", "writeOnlyName"]),
  ),
];

function requestMedia(properties: Doc, required: string[]): Doc {
  return requestBody(object(properties, required));
}
