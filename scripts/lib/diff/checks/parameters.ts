/**
 * Parameters (path, query, header, cookie) of an operation and headers of a response: presence, requiredness,
 * serialization. Their schemas are judged by the schema families; a response header's range of values (which
 * oasdiff does not judge) is reported at level info.
 */
import { code, type Document, deref, stable } from "../pairs.ts";
import type { Json, JsonObject } from "../resolve.ts";
import { defineFamily, flow, one } from "./define.ts";
import { removal } from "./deprecation.ts";

const family = defineFamily("parameters", import.meta.url, {
  "parameter-removed": flow(
    "Parameter or header removed",
    ["error", "error"],
    {
      request: ["request-parameter-removed"],
      response: ["required-response-header-removed", "optional-response-header-removed"],
    },
    {
      why: {
        request:
          "A request that still sends the parameter is invalid under the new contract (a validating server rejects it). Lower it in the config when the parameter was never read.",
        response: "Partners that read an optional header when present lose it without notice.",
      },
    },
  ),
  "parameter-added-required": flow("Required parameter or header added", ["error", "info"], {
    request: [
      "new-required-request-parameter",
      "new-request-path-parameter",
      "new-required-request-default-parameter-to-existing-path",
    ],
    response: ["response-header-added"],
  }),
  "parameter-added-optional": flow("Optional parameter or header added", ["info", "info"], {
    request: ["new-optional-request-parameter", "new-optional-request-default-parameter-to-existing-path"],
    response: ["response-header-added"],
  }),
  "parameter-became-required": flow("Parameter or header became required", ["error", "info"], {
    request: ["request-parameter-became-required"],
  }),
  "parameter-became-optional": flow("Parameter or header became optional", ["info", "error"], {
    request: ["request-parameter-became-optional"],
    response: ["response-header-became-optional"],
  }),
  "parameter-serialization-changed": flow(
    "Parameter style, or explode of an array or object, changed (the wire format)",
    ["error", "error"],
  ),
  "parameter-reserved-disallowed": flow("Parameter no longer accepts reserved characters unencoded (allowReserved)", [
    "error",
    "info",
  ]),
  "parameter-reserved-allowed": flow("Parameter now accepts reserved characters unencoded (allowReserved)", [
    "info",
    "error",
  ]),
  "header-values-changed": one(
    "response",
    "A response header's range of values changed (constraint, enum, pattern); its type and presence are checked apart",
    "info",
  ),
});
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

/** A parameter's `style` and `explode`, defaults filled in (form and exploded for query and cookie parameters). */
export function serialization(parameter: JsonObject): { style: string; explode: boolean } {
  const defaults: Record<string, string> = { query: "form", cookie: "form", path: "simple", header: "simple" };
  const style = typeof parameter.style === "string" ? parameter.style : (defaults[String(parameter.in)] ?? "form");
  const explode = typeof parameter.explode === "boolean" ? parameter.explode : style === "form";
  return { style, explode };
}

const PRESENCE_KINDS = [
  "parameter-removed",
  "parameter-added-required",
  "parameter-added-optional",
  "parameter-became-required",
  "parameter-became-optional",
  "parameter-serialization-changed",
  "parameter-reserved-disallowed",
  "parameter-reserved-allowed",
] as const;

family.detector("presence", ["parameter"], PRESENCE_KINDS, (pair, out) => {
  const { before, after, place } = pair;
  if (before && !after) {
    if (removal(pair.today, before.parameter).kind !== "plain") return; // deprecation.ts
    // oasdiff: an optional response header removed is a warning, a required one an error.
    const required = isRequired(before.parameter);
    const oasdiff = required ? "required-response-header-removed" : "optional-response-header-removed";
    return out.emit("parameter-removed", place, `\`${before.label}\` removed`, pair.header ? { oasdiff } : {});
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

/** Reports the kinds walk-kinds.ts lists (HEADER_VALUE_KINDS) found in a response header's schema. */
export const headerValues = family.detector("headerValues", [], ["header-values-changed"], () => {});
