/**
 * Parameters (path, query, header, cookie) of an operation and headers of a response: presence, requiredness,
 * serialization. Their schemas are judged by the schema families; a response header's range of values (which
 * oasdiff does not judge) is reported at level info.
 */
import { code, type Document, deref, stable } from "../pairs.ts";
import type { Json, JsonObject } from "../resolve.ts";
import { defineFamily } from "./define.ts";
import { removal } from "./deprecation.ts";

const family = defineFamily("parameters", import.meta.url);
export default family;

const isRequired = (p: JsonObject) => p.required === true || p.in === "path";

/** A schema whose values are single strings, numbers or booleans (one `type`, none of them array or object). */
function isScalar(document: Document, value: Json | undefined): boolean {
  const schema = deref(document, value);
  const types = Array.isArray(schema?.type) ? schema.type : [schema?.type];
  return (
    types.length > 0 &&
    types.every((type) => typeof type === "string" && ["string", "number", "integer", "boolean", "null"].includes(type))
  );
}

function serialization(parameter: JsonObject): { style: string; explode: boolean } {
  const defaults: Record<string, string> = { query: "form", cookie: "form", path: "simple", header: "simple" };
  const style = typeof parameter.style === "string" ? parameter.style : (defaults[String(parameter.in)] ?? "form");
  const explode = typeof parameter.explode === "boolean" ? parameter.explode : style === "form";
  return { style, explode };
}

family.detector("presence", ["parameter"], (pair, out) => {
  const { before, after, place } = pair;
  if (before && !after) {
    if (removal(pair.today, before.parameter).kind !== "plain") return; // deprecation.ts
    // oasdiff: an optional response header removed is information, a required one an error.
    const oasdiff = pair.header ? (isRequired(before.parameter) ? "error" : "info") : undefined;
    return out.emit("parameter-removed", place, `\`${before.label}\` removed`, oasdiff ? { oasdiff } : {});
  }
  if (!before && after) {
    const required = isRequired(after.parameter);
    return out.emit(
      required ? "parameter-added-required" : "parameter-added-optional",
      place,
      `${required ? "required" : "optional"} \`${after.label}\` added`,
    );
  }
  if (!before || !after) return;
  const [x, y] = [before.parameter, after.parameter];
  if (!isRequired(x) && isRequired(y))
    out.emit("parameter-became-required", place, `\`${after.label}\` became required`);
  if (isRequired(x) && !isRequired(y))
    out.emit("parameter-became-optional", place, `\`${after.label}\` became optional`);
  const [was, now] = [serialization(x), serialization(y)];
  // explode makes no difference to a single value (a string, a number): only to arrays and objects.
  const scalar = isScalar(pair.base, x.schema) && isScalar(pair.head, y.schema);
  if (was.style !== now.style || (was.explode !== now.explode && !scalar))
    out.emit("parameter-serialization-changed", place, `\`${after.label}\`: ${stable(was)} → ${stable(now)}`);
  if ((x.allowReserved === true) !== (y.allowReserved === true))
    out.emit(
      y.allowReserved === true ? "parameter-reserved-allowed" : "parameter-reserved-disallowed",
      place,
      `\`${after.label}\`: allowReserved ${code(x.allowReserved)} → ${code(y.allowReserved)}`,
    );
});

/**
 * What a response header's schema may change without failing the gate: its range of values. oasdiff checks a
 * response header's presence, requiredness, type, format and nullability only; a wider range of values is
 * reported, as information. The walk reports these kinds found in a response header's schema through this
 * detector, as `response-header-values-changed`.
 */
export const HEADER_VALUE_KINDS = new Set([
  "constraint-widened",
  "constraint-changed",
  "enum-value-added",
  "enum-removed",
  "extensible-enum-value-added",
  "pattern-removed",
  "pattern-changed",
  "items-widened",
  "properties-widened",
  "prefix-items-changed",
  "variant-added",
  "allof-member-removed",
  "const-changed",
  "const-removed",
  "conditional-changed",
  "conditional-removed",
]);
export const headerValues = family.detector("headerValues", [], () => {});

// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  flow | parameter-removed               | presence     | error, error | Parameter or header removed | request-parameter-removed warning, required-response-header-removed error
  flow | parameter-added-required        | presence     | error, info  | Required parameter or header added | new-required-request-parameter error, response-header-added info
  flow | parameter-added-optional        | presence     | info, info   | Optional parameter or header added | new-optional-request-parameter info, response-header-added info
  flow | parameter-became-required       | presence     | error, info  | Parameter or header became required | request-parameter-became-required error, -
  flow | parameter-became-optional       | presence     | info, error  | Parameter or header became optional | request-parameter-became-optional info, response-header-became-optional error
  flow | parameter-serialization-changed | presence     | error, error | Parameter style, or explode of an array or object, changed (the wire format) | -
  flow | parameter-reserved-disallowed   | presence     | error, info  | Parameter no longer accepts reserved characters unencoded (allowReserved) | -
  flow | parameter-reserved-allowed      | presence     | info, error  | Parameter now accepts reserved characters unencoded (allowReserved) | -
  response | header-values-changed | headerValues | info | A response header's range of values changed (constraint, enum, pattern); its type and presence are checked apart | -
`);
