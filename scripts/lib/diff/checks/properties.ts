/**
 * Object properties (fields) in either direction: added, removed, required or not, read-only and write-only.
 * A property the reader ignores (read-only in a request, write-only in a response) changes at level info.
 */
import { locationOf } from "../resolve.ts";
import { defineFamily, flow, one } from "./define.ts";

const family = defineFamily("properties", import.meta.url, {
  "required-field-removed": flow(
    "Required field removed or renamed",
    ["error", "error"],
    {
      request: ["request-property-removed"],
      response: ["response-required-property-removed"],
    },
    {
      why: {
        request:
          "Old writers still send the field, which the contract no longer allows (a validating server rejects it).",
      },
    },
  ),
  // Response: an error, where oasdiff rates it a warning. This API's description marks no response field required
  // ("in response tables every listed field is optional"), so `required` tells partners nothing: a field it
  // documents is one partners read. The way to remove one is to deprecate it first (below).
  "optional-field-removed": flow(
    "Optional field removed or renamed",
    ["error", "error"],
    {
      request: ["request-property-removed"],
      response: ["response-optional-property-removed"],
    },
    {
      why: {
        request:
          "Old writers still send the field, which the contract no longer allows (a validating server rejects it).",
        response:
          "Partners read every documented response field: this API marks none required, so `optional` says nothing about who reads it. Deprecate the field in one release (`deprecated: true`) and remove it in a later one (a warning).",
      },
    },
  ),
  // The deprecation path: a field a release marked deprecated may go in a later one. Removed from a response it is
  // still a warning (partners were told, yet some still read it); from a request, information (the service no
  // longer reads it).
  "field-removed-after-deprecation": flow("Deprecated field removed (no sunset, or after its sunset)", [
    "info",
    "warning",
  ]),
  "field-added-required": flow("Field added as required", ["error", "info"], {
    request: ["new-required-request-property", "new-required-request-property-with-default"],
    response: ["response-required-property-added"],
  }),
  "field-added-optional": flow("Optional field added", ["info", "info"], {
    request: ["new-optional-request-property"],
    response: ["response-optional-property-added"],
  }),
  "field-became-required": flow("Field became required", ["error", "info"], {
    request: ["request-property-became-required", "request-property-became-required-with-default"],
    response: ["response-property-became-required"],
  }),
  "field-became-optional": flow("Field became optional", ["info", "error"], {
    request: ["request-property-became-optional"],
    response: ["response-property-became-optional"],
  }),
  "ignored-field-changed": flow(
    "Change to a read-only field in a request or a write-only field in a response (that side ignores it)",
    ["info", "info"],
    {
      request: [
        "request-read-only-property-enum-value-removed",
        "request-read-only-property-max-decreased",
        "request-read-only-property-exclusive-max-decreased",
        "request-read-only-property-max-length-decreased",
        "request-read-only-property-min-increased",
        "request-read-only-property-exclusive-min-increased",
      ],
      response: [
        "response-optional-write-only-property-removed",
        "response-required-write-only-property-removed",
        "response-optional-write-only-property-added",
        "response-required-write-only-property-added",
        "response-write-only-property-enum-value-added",
        "response-write-only-property-became-optional",
        "response-write-only-property-became-required",
      ],
    },
  ),
  "required-field-no-longer-write-only": one(
    "response",
    "Required field no longer write-only (responses must now carry it)",
    "error",
    ["response-required-property-became-not-write-only"],
    {
      why: "A required field responses never carried must now be in every response: readers validating the old contract reject it.",
    },
  ),
  "mutability-changed": flow("readOnly or writeOnly changed", ["info", "info"], {
    request: [
      "request-optional-property-became-not-write-only",
      "request-optional-property-became-write-only",
      "request-optional-property-became-read-only",
      "request-optional-property-became-not-read-only",
      "request-required-property-became-not-write-only",
      "request-required-property-became-write-only",
      "request-required-property-became-read-only",
      "request-required-property-became-not-read-only",
    ],
    response: [
      "response-optional-property-became-not-write-only",
      "response-optional-property-became-write-only",
      "response-optional-property-became-read-only",
      "response-optional-property-became-not-read-only",
      "response-required-property-became-write-only",
      "response-required-property-became-read-only",
      "response-required-property-became-not-read-only",
    ],
  }),
});
export default family;

const FIELD_KINDS = [
  "required-field-removed",
  "optional-field-removed",
  "field-removed-after-deprecation",
  "field-added-required",
  "field-added-optional",
  "field-became-required",
  "field-became-optional",
  "ignored-field-changed",
  "required-field-no-longer-write-only",
] as const;
type FieldKind = (typeof FIELD_KINDS)[number];

/** Also the detector the walk reports through for every change inside an ignored property. */
export const fields = family.detector("fields", ["property"], FIELD_KINDS, (pair, out) => {
  const { name, a, b, before, after, ignored } = pair;
  const emit = (kind: FieldKind, where: string, message: string) =>
    ignored ? out.emit("ignored-field-changed", where, `${message} (${ignored})`) : out.emit(kind, where, message);
  if (before && !after) {
    const required = a.required.has(name);
    const text = `${required ? "required" : "optional"} field \`${name}\` removed`;
    if (pair.mayGo) return out.emit("field-removed-after-deprecation", locationOf(before), `${text} (was deprecated)`);
    return emit(required ? "required-field-removed" : "optional-field-removed", locationOf(before), text);
  }
  if (!before && after) {
    const required = b.required.has(name);
    const text = `${required ? "required" : "optional"} field \`${name}\` added`;
    return emit(required ? "field-added-required" : "field-added-optional", locationOf(after), text);
  }
  if (!before || !after) return;
  if (
    ignored &&
    out.flow === "toPartner" &&
    b.required.has(name) &&
    pair.viewBefore?.writeOnly &&
    !pair.viewAfter?.writeOnly
  )
    out.emit(
      "required-field-no-longer-write-only",
      locationOf(after),
      `required field \`${name}\` is no longer write-only`,
    );
  // Requiring a property the schema does not declare is a no-op oasdiff also ignores: both sides declare it here.
  if (!a.required.has(name) && b.required.has(name))
    emit("field-became-required", locationOf(after), `field \`${name}\` became required`);
  if (a.required.has(name) && !b.required.has(name))
    emit("field-became-optional", locationOf(after), `field \`${name}\` became optional`);
});

family.detector("mutability", ["schema"], ["mutability-changed"], ({ a, b }, out) => {
  if (a.readOnly === b.readOnly && a.writeOnly === b.writeOnly) return;
  const flag = (view: typeof a) => (view.readOnly ? "readOnly" : view.writeOnly ? "writeOnly" : "read-write");
  out.emit("mutability-changed", locationOf(b.node), `${flag(a)} → ${flag(b)}`);
});
