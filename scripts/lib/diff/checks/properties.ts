/**
 * Object properties (fields) in either direction: added, removed, required or not, read-only and write-only.
 * A property the reader ignores (read-only in a request, write-only in a response) changes at level info.
 */
import { locationOf } from "../resolve.ts";
import { defineFamily } from "./define.ts";

const family = defineFamily("properties", import.meta.url);
export default family;

/** Also the detector the walk reports through for every change inside an ignored property. */
export const fields = family.detector("fields", ["property"], (pair, out) => {
  const { name, a, b, before, after, ignored } = pair;
  const emit = (kind: string, where: string, message: string) =>
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

family.detector("mutability", ["schema"], ({ a, b }, out) => {
  if (a.readOnly === b.readOnly && a.writeOnly === b.writeOnly) return;
  const flag = (view: typeof a) => (view.readOnly ? "readOnly" : view.writeOnly ? "writeOnly" : "read-write");
  out.emit("mutability-changed", locationOf(b.node), `${flag(a)} → ${flag(b)}`);
});

// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  flow | required-field-removed              | fields     | error, error | Required field removed or renamed | request-property-removed warning, response-required-property-removed error
  flow | optional-field-removed              | fields     | error, info  | Optional field removed or renamed | request-property-removed warning, response-optional-property-removed info
  flow | field-removed-after-deprecation     | fields     | info, info   | Deprecated field removed (no sunset, or after its sunset) | -
  flow | field-added-required                | fields     | error, info  | Field added as required | new-required-request-property error, response-required-property-added info
  flow | field-added-optional                | fields     | info, info   | Optional field added | new-optional-request-property info, response-optional-property-added info
  flow | field-became-required               | fields     | error, info  | Field became required | request-property-became-required error, response-property-became-required info
  flow | field-became-optional               | fields     | info, error  | Field became optional | request-property-became-optional info, response-property-became-optional error
  flow | ignored-field-changed               | fields     | info, info   | Change to a read-only field in a request or a write-only field in a response (that side ignores it) | -, response-optional-write-only-property-removed info
  response | required-field-no-longer-write-only | fields | error | Required field no longer write-only (responses must now carry it) | response-required-property-became-non-write-only warning
  flow | mutability-changed                  | mutability | info, info   | readOnly or writeOnly changed | request-optional-property-became-read-only info, response-optional-property-became-read-only info
`);
