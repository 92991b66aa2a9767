/**
 * Schema keywords: types and nullability, formats, values (`const`, `default`), constraints (length, range,
 * items, `multipleOf`, `uniqueItems`, `dependentRequired`, `not`), patterns, arrays, object shape
 * (`additionalProperties`, `patternProperties`, `propertyNames`, …) and composition (`oneOf`/`anyOf` variants,
 * `allOf` members, `if`/`then`/`else`, `dependentSchemas`, `discriminator`). Each judges one schema pair.
 */
import { allowsAny, code, stable } from "../pairs.ts";
import {
  isObject,
  type Json,
  locationOf,
  type SchemaNode,
  type SchemaView,
  type SubschemaKeyword,
  variantName,
} from "../resolve.ts";
import { defineFamily, type Level, type Out } from "./define.ts";

const family = defineFamily("schema keywords", import.meta.url);
export default family;

const LENGTH_BOUNDS: Record<string, "min" | "max"> = {
  minLength: "min",
  maxLength: "max",
  minItems: "min",
  maxItems: "max",
  minProperties: "min",
  maxProperties: "max",
  minContains: "min",
  maxContains: "max",
};
const RANGE_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
/** int32 values fit in int64, float in double: going to the wider format widens. */
const WIDER_FORMAT: Record<string, string> = { int32: "int64", float: "double" };
/** A pattern that accepts any string says nothing. */
const ANY_PATTERN = /^\^?(\.\*|\.\+|\[\\s\\S\]\*)\$?$/;

/** The schema keywords this family (and the enums) judge; any other that changes is reported as unmodeled. */
export const SCHEMA_KEYWORDS = new Set([
  ...Object.keys(LENGTH_BOUNDS),
  ...RANGE_KEYWORDS,
  "multipleOf",
  "uniqueItems",
  "dependentRequired",
  "const",
  "default",
  "pattern",
  "format",
  "discriminator",
  "contentMediaType",
  "contentEncoding",
]);

/**
 * What a change inside `not` becomes: what `not` excludes grows when its schema widens, so a widening there
 * narrows the schema around it. The walk reports such changes under the inverse kind, in the same direction.
 */
export const INVERSE_KINDS: Record<string, string> = {};
for (const [x, y] of [
  ["type-narrowed", "type-widened"],
  ["nullable-added", "nullable-removed"],
  ["format-added", "format-removed"],
  ["const-added", "const-removed"],
  ["constraint-narrowed", "constraint-widened"],
  ["pattern-added", "pattern-removed"],
  ["items-narrowed", "items-widened"],
  ["properties-narrowed", "properties-widened"],
  ["variant-removed", "variant-added"],
  ["allof-member-added", "allof-member-removed"],
  ["conditional-added", "conditional-removed"],
  ["enum-value-removed", "enum-value-added"],
  ["enum-added", "enum-removed"],
  ["extensible-enum-value-removed", "extensible-enum-value-added"],
] as const) {
  INVERSE_KINDS[x] = y;
  INVERSE_KINDS[y] = x;
}

const show = (types: Set<string> | undefined) => (types ? [...types].join(" | ") : "any");

/** `integer` is a subset of `number`: number → integer narrows, integer → number widens. */
function covers(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === "integer" && types.has("number"));
}

/** The types one side allows and the other does not. */
function typeDelta(a: SchemaView, b: SchemaView): { removed: string[]; added: string[] } | undefined {
  if (!a.types || !b.types) return undefined;
  return {
    removed: [...a.types].filter((t) => !covers(b.types!, t)),
    added: [...b.types].filter((t) => !covers(a.types!, t)),
  };
}

family.detector("types", ["schema"], ({ a, b, here }, out) => {
  if (a.never !== b.never)
    return out.emit(
      b.never ? "type-narrowed" : "type-widened",
      here,
      b.never ? "schema became `false`: no value allowed" : "schema no longer `false`",
    );
  if (a.nullable !== b.nullable)
    out.emit(
      b.nullable ? "nullable-added" : "nullable-removed",
      here,
      b.nullable ? "null now allowed" : "null no longer allowed",
    );
  if (!a.types && !b.types) return;
  if (!a.types) return out.emit("type-narrowed", here, `type any → ${show(b.types)}`);
  if (!b.types) return out.emit("type-widened", here, `type ${show(a.types)} → any`);
  const { removed, added } = typeDelta(a, b)!;
  const text = `type ${show(a.types)} → ${show(b.types)}`;
  if (removed.length > 0 && added.length > 0) out.emit("type-changed", here, text);
  else if (removed.length > 0) out.emit("type-narrowed", here, `${text} (${removed.join(", ")} no longer allowed)`);
  else if (added.length > 0) out.emit("type-widened", here, `${text} (${added.join(", ")} now allowed)`);
});

/** The keyword's value on each side and where the head (else the base) declares it. */
function keyword(a: SchemaView, b: SchemaView, key: string) {
  const before = a.keywords.get(key);
  const after = b.keywords.get(key);
  if (!before && !after) return undefined;
  if (before && after && stable(before.value) === stable(after.value)) return undefined;
  const from = before?.value;
  const to = after?.value;
  return { from, to, where: locationOf((after ?? before)!.at), text: `${key} ${code(from)} → ${code(to)}` };
}

/**
 * A format refines its type: a new format narrows, going to a wider one (int32 → int64) widens. When the type
 * itself changes (integer/int64 → number/double), the type's verdict covers the format, as oasdiff judges it
 * (checker/type_change_helpers: a type change is judged on the type alone; `request-property-type-generalized`).
 */
family.detector("formats", ["schema"], ({ a, b }, out) => {
  const change = keyword(a, b, "format");
  if (!change) return;
  const typesOf = (view: SchemaView) => (view.types ? stable([...view.types].sort()) : "any");
  if (typesOf(a) !== typesOf(b)) return;
  const { from, to, where, text } = change;
  const kind =
    from === undefined
      ? "format-added"
      : to === undefined || WIDER_FORMAT[String(from)] === to
        ? "format-removed"
        : "format-changed";
  out.emit(kind, where, text);
});

family.detector("values", ["schema"], ({ a, b }, out) => {
  const constant = keyword(a, b, "const");
  if (constant) {
    const { from, to, where, text } = constant;
    out.emit(from === undefined ? "const-added" : to === undefined ? "const-removed" : "const-changed", where, text);
  }
  const fallback = keyword(a, b, "default");
  if (fallback) out.emit("default-changed", fallback.where, fallback.text);
});

/** A numeric bound: 3.1's `exclusiveMinimum: 5` and 3.0's `minimum: 5, exclusiveMinimum: true` are the same. */
interface Bound {
  value: number;
  exclusive: boolean;
  at: SchemaNode;
  text: string;
}

function rangeBound(view: SchemaView, side: "lower" | "upper"): Bound | undefined {
  const [inclusiveKey, exclusiveKey] =
    side === "lower" ? ["minimum", "exclusiveMinimum"] : ["maximum", "exclusiveMaximum"];
  const inclusive = view.keywords.get(inclusiveKey);
  const exclusive = view.keywords.get(exclusiveKey);
  const bounds: Bound[] = [];
  if (inclusive && typeof inclusive.value === "number") {
    const isExclusive = exclusive?.value === true;
    bounds.push({
      value: inclusive.value,
      exclusive: isExclusive,
      at: inclusive.at,
      text: `${inclusiveKey} ${inclusive.value}${isExclusive ? " (exclusive)" : ""}`,
    });
  }
  if (exclusive && typeof exclusive.value === "number")
    bounds.push({
      value: exclusive.value,
      exclusive: true,
      at: exclusive.at,
      text: `${exclusiveKey} ${exclusive.value}`,
    });
  if (bounds.length === 0) return undefined;
  return bounds.reduce((x, y) => (tighter(side, y, x) ? y : x)); // The tighter of the two wins.
}

function tighter(side: "lower" | "upper", x: Bound, than: Bound): boolean {
  if (x.value === than.value) return x.exclusive && !than.exclusive;
  return side === "lower" ? x.value > than.value : x.value < than.value;
}

function range(a: SchemaView, b: SchemaView, side: "lower" | "upper", out: Out): void {
  const before = rangeBound(a, side);
  const after = rangeBound(b, side);
  if (!before && !after) return;
  const where = locationOf((after ?? before)!.at);
  const text = `${before?.text ?? `no ${side} bound`} → ${after?.text ?? `no ${side} bound`}`;
  if (!before || (after && tighter(side, after, before))) out.emit("constraint-narrowed", where, text);
  else if (!after || tighter(side, before, after)) out.emit("constraint-widened", where, text);
}

function bound(side: "min" | "max", change: NonNullable<ReturnType<typeof keyword>>, out: Out): void {
  const { from, to, where, text } = change;
  if (typeof from !== "number" && typeof to !== "number") return;
  if (typeof from !== "number") return out.emit("constraint-narrowed", where, text);
  if (typeof to !== "number") return out.emit("constraint-widened", where, text);
  out.emit((side === "min" ? to > from : to < from) ? "constraint-narrowed" : "constraint-widened", where, text);
}

function multipleOf(change: NonNullable<ReturnType<typeof keyword>>, out: Out): void {
  const { from, to, where, text } = change;
  if (typeof from !== "number") return out.emit("constraint-narrowed", where, text);
  if (typeof to !== "number") return out.emit("constraint-widened", where, text);
  const divides = (x: number, y: number) => Number.isInteger(y / x);
  if (divides(to, from)) out.emit("constraint-widened", where, text);
  else if (divides(from, to)) out.emit("constraint-narrowed", where, text);
  else out.emit("constraint-changed", where, text);
}

function dependentRequired(change: NonNullable<ReturnType<typeof keyword>>, out: Out): void {
  const a = isObject(change.from) ? change.from : {};
  const b = isObject(change.to) ? change.to : {};
  const list = (value: Json | undefined) => new Set(Array.isArray(value) ? value.map(String) : []);
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const before = list(a[key]);
    const after = list(b[key]);
    const text = `dependentRequired \`${key}\`: ${code(a[key])} → ${code(b[key])}`;
    const grew = [...after].some((name) => !before.has(name));
    const shrank = [...before].some((name) => !after.has(name));
    if (grew && shrank) out.emit("constraint-changed", change.where, text);
    else if (grew) out.emit("constraint-narrowed", change.where, text);
    else if (shrank) out.emit("constraint-widened", change.where, text);
  }
}

/** Lengths, ranges, counts, `multipleOf`, `uniqueItems`, `dependentRequired`, `contentSchema` and `not`. */
family.detector("constraints", ["schema"], ({ a, b }, out) => {
  range(a, b, "lower", out);
  range(a, b, "upper", out);
  for (const [key, side] of Object.entries(LENGTH_BOUNDS)) {
    const change = keyword(a, b, key);
    if (change) bound(side, change, out);
  }
  const multiple = keyword(a, b, "multipleOf");
  if (multiple) multipleOf(multiple, out);
  const unique = keyword(a, b, "uniqueItems");
  if (unique && (unique.from === true) !== (unique.to === true))
    out.emit(unique.to === true ? "constraint-narrowed" : "constraint-widened", unique.where, unique.text);
  const dependent = keyword(a, b, "dependentRequired");
  if (dependent) dependentRequired(dependent, out);
  presence(a.subschemas.get("contentSchema"), b.subschemas.get("contentSchema"), b, "contentSchema", out, [
    "constraint-narrowed",
    "constraint-widened",
  ]);
  if (!a.not && b.not) out.emit("constraint-narrowed", locationOf(b.not), "`not` added");
  else if (a.not && !b.not) out.emit("constraint-widened", locationOf(a.not), "`not` removed");
});

/**
 * A subschema appearing, disappearing or becoming `false`: the walk compares it when it is on both sides;
 * this judges its presence. Returns whether it reported.
 */
function presence(
  before: SchemaNode | undefined,
  after: SchemaNode | undefined,
  b: SchemaView,
  keyword: SubschemaKeyword,
  out: Out,
  [narrowed, widened]: [string, string],
  opened?: string,
): void {
  if (allowsAny(before) && allowsAny(after)) return;
  const where = locationOf(after ?? before ?? b.node);
  if (after?.schema === false && before?.schema !== false)
    return out.emit(narrowed, where, `${keyword}: false (nothing allowed there now)`);
  if (before?.schema === false && after?.schema !== false)
    return out.emit(opened ?? widened, where, `${keyword} no longer false`);
  if (allowsAny(before)) return out.emit(narrowed, where, `${keyword} schema added`);
  if (allowsAny(after)) out.emit(widened, where, `${keyword} schema removed`);
}

family.detector("patterns", ["schema"], ({ a, b }, out) => {
  const change = keyword(a, b, "pattern");
  if (!change) return;
  const anyBefore = change.from === undefined || ANY_PATTERN.test(String(change.from));
  const anyAfter = change.to === undefined || ANY_PATTERN.test(String(change.to));
  if (anyBefore && anyAfter) return;
  const kind = anyAfter ? "pattern-removed" : anyBefore ? "pattern-added" : "pattern-changed";
  // oasdiff calls a pattern generalised to `.*` a change in a response (a warning), not a removal.
  const generalised = anyAfter && change.to !== undefined && out.flow === "toPartner";
  out.emit(
    kind,
    change.where,
    `pattern ${code(change.from)} → ${code(change.to)}`,
    generalised ? { oasdiff: "warning" } : {},
  );
});

/** `items`, `contains`, `unevaluatedItems` and tuple entries (`prefixItems`). */
family.detector("arrays", ["schema"], ({ a, b, differs }, out) => {
  for (const keyword of ["items", "contains", "unevaluatedItems"] as const)
    presence(a.subschemas.get(keyword), b.subschemas.get(keyword), b, keyword, out, [
      "items-narrowed",
      "items-widened",
    ]);
  // A position without a tuple entry is governed by `items`: an entry added or removed changes the position
  // only where it differs from `items`. Which way it goes depends on both, so it counts both ways.
  const before = a.prefixItems?.nodes ?? [];
  const after = b.prefixItems?.nodes ?? [];
  for (let i = Math.min(before.length, after.length); i < Math.max(before.length, after.length); i++) {
    const x = before[i];
    const y = after[i];
    // oasdiff rates an entry added as information in a request and an error in a response; removed the other way.
    const oasdiffLevel = (added: boolean): Level => ((out.flow === "toService") === added ? "info" : "error");
    if (y && differs(a.subschemas.get("items") ?? { ...y, schema: {} }, y))
      out.emit("prefix-items-changed", locationOf(y), `prefixItems entry ${i} added`, { oasdiff: oasdiffLevel(true) });
    else if (x && differs(x, b.subschemas.get("items") ?? { ...x, schema: {} }))
      out.emit("prefix-items-changed", locationOf(x), `prefixItems entry ${i} removed`, {
        oasdiff: oasdiffLevel(false),
      });
  }
});

/** Which properties an object may have beyond those it names. */
family.detector("objectShape", ["schema"], ({ a, b, here }, out) => {
  const kinds: [string, string] = ["properties-narrowed", "properties-widened"];
  // Undeclared properties may now appear: like an optional field added, readers ignore what they do not know.
  for (const keyword of ["additionalProperties", "unevaluatedProperties"] as const)
    presence(a.subschemas.get(keyword), b.subschemas.get(keyword), b, keyword, out, kinds, "closed-object-opened");
  presence(a.subschemas.get("propertyNames"), b.subschemas.get("propertyNames"), b, "propertyNames", out, kinds);
  for (const key of a.patternProperties.keys())
    if (!b.patternProperties.has(key)) out.emit("properties-widened", here, `patternProperties \`${key}\` removed`);
  for (const key of b.patternProperties.keys())
    if (!a.patternProperties.has(key)) out.emit("properties-narrowed", here, `patternProperties \`${key}\` added`);
});

family.detector("variants", ["schema"], ({ a, b }, out) => {
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const before = a.variants.filter((v) => v.keyword === keyword);
    const after = b.variants.filter((v) => v.keyword === keyword);
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const x = before[i];
      const y = after[i];
      if (!x || !y) {
        out.emit(
          y ? "variant-removed" : "variant-added",
          locationOf((y ?? x)!.at),
          `${keyword} ${y ? "added (narrows to its variants)" : "removed"}`,
        );
        continue;
      }
      const names = (list: typeof x) =>
        new Map(list.nodes.map((node, index) => [variantName(node.schema, index), node]));
      const [was, now] = [names(x), names(y)];
      for (const [name, node] of was)
        if (!now.has(name)) out.emit("variant-removed", locationOf(node), `${keyword} variant \`${name}\` removed`);
      for (const [name, node] of now)
        if (!was.has(name)) out.emit("variant-added", locationOf(node), `${keyword} variant \`${name}\` added`);
    }
  }
});

/** The merged view already compares what members say; this reports members appearing and disappearing. */
family.detector("allOf", ["schema"], ({ a, b, here }, out) => {
  for (const [name, member] of b.allOf)
    if (!a.allOf.has(name) && !member.annotationOnly)
      out.emit("allof-member-added", here, `allOf member \`${name}\` added`);
  for (const [name, member] of a.allOf)
    if (!b.allOf.has(name) && !member.annotationOnly)
      out.emit("allof-member-removed", here, `allOf member \`${name}\` removed`);
});

family.detector("conditionals", ["schema"], ({ a, b, here }, out) => {
  for (let i = 0; i < Math.max(a.conditionals.length, b.conditionals.length); i++) {
    const before = a.conditionals[i];
    const after = b.conditionals[i];
    if (!before || !after) {
      out.emit(
        after ? "conditional-added" : "conditional-removed",
        locationOf((after ?? before)!.at),
        `if/then/else rule ${after ? "added" : "removed"}`,
      );
      continue;
    }
    // Any change to the condition changes which instances a rule applies to: not classifiable by direction.
    if (stable(before.if?.schema) !== stable(after.if?.schema))
      out.emit("conditional-changed", locationOf(after.if ?? after.at), "the `if` condition changed");
    for (const part of ["then", "else"] as const) {
      const x = before[part];
      const y = after[part];
      if (!x !== !y)
        out.emit(
          y ? "conditional-added" : "conditional-removed",
          locationOf((y ?? x)!),
          `\`${part}\` branch ${y ? "added" : "removed"}`,
        );
    }
  }
  for (const key of a.dependentSchemas.keys())
    if (!b.dependentSchemas.has(key)) out.emit("conditional-removed", here, `dependentSchemas \`${key}\` removed`);
  for (const key of b.dependentSchemas.keys())
    if (!a.dependentSchemas.has(key)) out.emit("conditional-added", here, `dependentSchemas \`${key}\` added`);
});

family.detector("annotations", ["schema"], ({ a, b }, out) => {
  const discriminator = keyword(a, b, "discriminator");
  if (discriminator) out.emit("discriminator-changed", discriminator.where, discriminator.text);
  for (const key of ["contentMediaType", "contentEncoding"]) {
    const change = keyword(a, b, key);
    if (change) out.emit("content-encoding-changed", change.where, change.text);
  }
});

// prefix-items-changed is an error both ways: a tuple entry differing from `items` narrows or widens by position.
// scope | kind | detector | level (request, response) | title | oasdiff's check and level (request, response)
family.table(`
  flow | type-changed             | types        | error, error | Type changed | request-property-type-changed error, response-property-type-changed error
  flow | type-narrowed            | types        | error, info  | Type narrowed (for example number → integer) | request-property-type-changed error, response-property-type-specialized info
  flow | type-widened             | types        | info, error  | Type widened (for example integer → number) | request-property-type-generalized info, response-property-type-generalized error
  flow | nullable-added           | types        | info, error  | null now allowed | request-property-became-nullable info, response-property-became-nullable error
  flow | nullable-removed         | types        | error, info  | null no longer allowed | request-property-became-not-nullable error, response-property-became-not-nullable info
  flow | format-changed           | formats      | error, error | Format changed (the type unchanged) | request-property-type-changed error, response-property-type-changed error
  flow | format-added             | formats      | error, info  | Format added | request-property-type-changed error, response-property-type-specialized info
  flow | format-removed           | formats      | info, error  | Format removed or widened (int32 → int64) | request-property-type-generalized info, response-property-type-generalized error
  flow | const-changed            | values       | error, error | Constant value changed | request-property-const-changed error, response-property-const-changed error
  flow | const-added              | values       | error, info  | Constant added | request-property-const-added error, response-property-const-added info
  flow | const-removed            | values       | info, error  | Constant removed | request-property-const-removed info, response-property-const-removed error
  flow | default-changed          | values       | info, info   | Default value added, removed or changed | request-property-default-value-changed info, response-property-default-value-changed info
  flow | constraint-narrowed      | constraints  | error, info  | Constraint narrowed (length, range, items, properties, uniqueItems, multipleOf, not) | request-property-max-length-decreased error, -
  flow | constraint-widened       | constraints  | info, error  | Constraint widened | request-property-max-length-increased info, response-property-max-length-increased error
  flow | constraint-changed       | constraints  | error, error | Constraint changed in neither direction (multipleOf, dependentRequired) | request-property-multiple-of-changed error, response-property-multiple-of-changed error
  flow | pattern-added            | patterns     | error, info  | Pattern added | request-property-pattern-added error, response-property-pattern-added info
  flow | pattern-removed          | patterns     | info, error  | Pattern removed, or generalised to accept any string | request-property-pattern-removed info, response-property-pattern-removed error
  flow | pattern-changed          | patterns     | error, error | Pattern changed | request-property-pattern-changed warning, response-property-pattern-changed warning
  flow | items-narrowed           | arrays       | error, info  | Array items or contains narrowed | request-property-contains-added error, response-property-contains-added info
  flow | items-widened            | arrays       | info, error  | Array items or contains widened | request-property-contains-removed info, response-property-contains-removed error
  flow | prefix-items-changed     | arrays       | error, error | prefixItems entry added or removed where it differs from items | request-property-prefix-items-removed error, response-property-prefix-items-added error
  flow | properties-narrowed      | objectShape  | error, info  | Additional properties narrowed (additionalProperties, patternProperties, propertyNames, unevaluated…) | request-property-property-names-added error, response-property-property-names-added info
  flow | properties-widened       | objectShape  | info, error  | Additional properties widened | request-property-property-names-removed info, response-property-property-names-removed error
  flow | closed-object-opened     | objectShape  | info, info   | additionalProperties: false removed (undeclared properties allowed; readers ignore them, as an added optional field) | -
  flow | content-encoding-changed | annotations  | error, error | contentMediaType or contentEncoding changed | request-property-content-media-type-changed error, response-property-content-media-type-changed error
  flow | discriminator-changed    | annotations  | info, info   | Discriminator changed | request-property-discriminator-added info, response-property-discriminator-added info
  flow | variant-removed          | variants     | error, info  | oneOf/anyOf variant removed | request-property-one-of-removed error, response-property-one-of-removed info
  flow | variant-added            | variants     | info, error  | oneOf/anyOf variant added | request-property-one-of-added info, response-property-one-of-added error
  flow | allof-member-added       | allOf        | error, info  | allOf member added | request-property-all-of-added error, response-property-all-of-added info
  flow | allof-member-removed     | allOf        | info, error  | allOf member removed | request-property-all-of-removed info, response-property-all-of-removed error
  flow | conditional-changed      | conditionals | error, error | Conditional rule (if/then/else) condition changed | -
  flow | conditional-added        | conditionals | error, info  | Conditional rule (if/then/else) or dependent schema added | request-property-if-added error, response-property-if-added info
  flow | conditional-removed      | conditionals | info, error  | Conditional rule (if/then/else) or dependent schema removed | request-property-if-removed info, response-property-if-removed error
`);
