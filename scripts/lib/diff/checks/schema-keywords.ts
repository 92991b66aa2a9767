/**
 * Schema keywords: types and nullability, formats, values (`const`, `default`), constraints (length, range,
 * items, `multipleOf`, `uniqueItems`, `dependentRequired`, `not`), patterns, arrays, object shape
 * (`additionalProperties`, `patternProperties`, `propertyNames`, …) and composition (`oneOf`/`anyOf` variants,
 * `allOf` members, `if`/`then`/`else`, `dependentSchemas`, `discriminator`). Each judges one schema pair, and
 * names the oasdiff rule a change is where the rules its check covers differ in level.
 */
import { allowsAny, code, type SchemaContext, stable } from "../pairs.ts";
import type { Kind } from "../registry.ts";
import {
  isObject,
  type Json,
  locationOf,
  type SchemaNode,
  type SchemaView,
  type SubschemaKeyword,
  variantName,
} from "../resolve.ts";
import { defineFamily, flow, type Out, ruleAt, rulesBothWays, rulesFor } from "./define.ts";

const DISCRIMINATOR = [
  "discriminator-added",
  "discriminator-removed",
  "discriminator-property-name-changed",
  "discriminator-mapping-added",
  "discriminator-mapping-deleted",
  "discriminator-mapping-changed",
] as const;
const BODY = ["body", "property"] as const;
const PARAMETER = ["parameter"] as const;

const family = defineFamily("schema keywords", import.meta.url, {
  // A nested property of an object parameter changing to a type its text form also reads (integer → string) is
  // a warning in oasdiff (it cannot tell how the object is serialized): the change names that rule.
  "type-changed": flow(
    "Type changed",
    ["error", "error"],
    {
      request: rulesFor("request", ["type-changed", "property-type-changed", "property-type-specialized"]),
      response: rulesFor("response", ["type-changed"]),
    },
    {
      why: {
        request:
          "A changed type is an error wherever it is; oasdiff lowers it to a warning for an object parameter's property only because it cannot tell whether the object travels as text (where any value is also a string) or as JSON.",
      },
    },
  ),
  "type-narrowed": flow("Type narrowed (for example number → integer)", ["error", "info"], {
    request: rulesFor("request", ["type-changed", "property-type-specialized", "list-of-types-narrowed"]),
    response: rulesFor("response", ["type-specialized", "type-compatible", "list-of-types-narrowed"]),
  }),
  "type-widened": flow(
    "Type widened (for example integer → number; anything → string where values are text)",
    ["info", "error"],
    {
      request: rulesFor("request", [
        "type-generalized",
        "type-compatible",
        "property-type-generalized",
        "list-of-types-widened",
      ]),
      response: rulesFor("response", ["type-generalized", "list-of-types-widened"]),
    },
  ),
  "nullable-added": flow("null now allowed", ["info", "error"], {
    request: rulesFor("request", ["became-nullable", "property-became-nullable"]),
    response: rulesFor("response", ["became-nullable"]),
  }),
  "nullable-removed": flow("null no longer allowed", ["error", "info"], {
    request: rulesFor("request", ["became-not-nullable", "property-became-not-nullable"]),
    response: rulesFor("response", ["became-not-nullable"]),
  }),
  "format-changed": flow("Format changed (the type unchanged)", ["error", "error"], {
    request: rulesFor("request", ["type-changed", "property-type-specialized"]),
    response: rulesFor("response", ["type-changed"]),
  }),
  "format-added": flow("Format added", ["error", "info"], {
    request: rulesFor("request", ["type-changed", "property-type-specialized"]),
    response: rulesFor("response", ["type-specialized"]),
  }),
  "format-removed": flow("Format removed or widened (int32 → int64)", ["info", "error"], {
    request: rulesFor("request", ["type-generalized", "property-type-generalized"]),
    response: rulesFor("response", ["type-generalized"]),
  }),
  "const-changed": flow("Constant value changed", ["error", "error"], rulesBothWays(["const-changed"])),
  "const-added": flow("Constant added", ["error", "info"], rulesBothWays(["const-added"])),
  "const-removed": flow("Constant removed", ["info", "error"], rulesBothWays(["const-removed"])),
  "default-changed": flow("Default value added, removed or changed (a body's or a property's)", ["info", "info"], {
    request: rulesFor("request", ["default-value-added", "default-value-removed", "default-value-changed"], BODY),
    response: rulesFor("response", ["default-value-added", "default-value-removed", "default-value-changed"], BODY),
  }),
  // An optional parameter's default is what the service assumes when a call leaves it out: changing it changes
  // what existing calls do (oasdiff: an error). A required parameter's default is never applied (documentation).
  "parameter-default-changed": flow(
    "An optional parameter's (or a header's) default added, removed or changed",
    ["error", "info"],
    {
      request: rulesFor(
        "request",
        ["default-value-added", "default-value-removed", "default-value-changed"],
        PARAMETER,
      ),
    },
  ),
  "constraint-narrowed": flow(
    "Constraint narrowed (length, range, items, properties, uniqueItems, multipleOf, contains, not)",
    ["error", "info"],
    {
      request: rulesFor("request", [
        "max-length-decreased",
        "max-length-set",
        "min-length-increased",
        "max-decreased",
        "exclusive-max-decreased",
        "max-set",
        "exclusive-max-set",
        "min-increased",
        "exclusive-min-increased",
        "min-set",
        "exclusive-min-set",
        "min-items-increased",
        "min-items-set",
        "max-items-decreased",
        "min-contains-increased",
        "max-contains-decreased",
        "dependent-required-added",
        "content-schema-added",
      ]),
      response: rulesFor("response", [
        "min-contains-increased",
        "max-contains-decreased",
        "dependent-required-added",
        "content-schema-added",
      ]),
    },
    {
      why: {
        request:
          "A maximum, length, range or item count set where there was none rejects values that were accepted: writers that sent them break. oasdiff calls a bound set for the first time a warning, a bound tightened an error.",
      },
    },
  ),
  "constraint-widened": flow("Constraint widened", ["info", "error"], {
    request: rulesFor("request", [
      "max-length-increased",
      "min-length-decreased",
      "max-increased",
      "exclusive-max-increased",
      "min-decreased",
      "exclusive-min-decreased",
      "min-items-decreased",
      "max-items-increased",
      "min-contains-decreased",
      "max-contains-increased",
      "dependent-required-removed",
      "content-schema-removed",
    ]),
    response: rulesFor("response", [
      "max-length-increased",
      "max-length-unset",
      "min-length-decreased",
      "max-increased",
      "exclusive-max-increased",
      "min-decreased",
      "exclusive-min-decreased",
      "min-items-decreased",
      "min-items-unset",
      "min-contains-decreased",
      "max-contains-increased",
      "dependent-required-removed",
      "content-schema-removed",
    ]),
  }),
  "constraint-changed": flow(
    "Constraint changed in neither direction (multipleOf, dependentRequired)",
    ["error", "error"],
    rulesBothWays(["dependent-required-changed"]),
  ),
  "pattern-added": flow("Pattern added", ["error", "info"], rulesBothWays(["pattern-added"])),
  "pattern-removed": flow(
    "Pattern removed, or generalised to accept any string",
    ["info", "error"],
    {
      request: rulesFor("request", ["pattern-removed", "pattern-generalized"]),
      response: rulesFor("response", ["pattern-removed"]),
    },
    { why: { response: "Readers that validate against the old pattern may now get values it rejects." } },
  ),
  "pattern-changed": flow("Pattern changed", ["error", "error"], rulesBothWays(["pattern-changed"]), {
    why: {
      request:
        "A changed pattern narrows some values and widens others; the gate cannot tell which side breaks, and one does.",
      response:
        "A changed pattern narrows some values and widens others; the gate cannot tell which side breaks, and one does.",
    },
  }),
  "items-narrowed": flow(
    "Array items, contains or unevaluatedItems added or narrowed",
    ["error", "info"],
    rulesBothWays(["contains-added", "unevaluated-items-added"]),
  ),
  "items-widened": flow(
    "Array items, contains or unevaluatedItems removed or widened",
    ["info", "error"],
    rulesBothWays(["contains-removed", "unevaluated-items-removed"]),
  ),
  "prefix-items-changed": flow(
    "prefixItems entry added or removed where it differs from items",
    ["error", "error"],
    rulesBothWays(["prefix-items-added", "prefix-items-removed"]),
    {
      why: {
        request:
          "A tuple entry differing from `items` changes what one position accepts, narrowing or widening it by value.",
        response:
          "A tuple entry differing from `items` changes what one position accepts, narrowing or widening it by value.",
      },
    },
  ),
  "properties-narrowed": flow(
    "Additional properties narrowed (additionalProperties, patternProperties, propertyNames, unevaluated…)",
    ["error", "info"],
    {
      request: rulesFor("request", ["property-names-added", "pattern-property-added", "unevaluated-properties-added"]),
      response: rulesFor("response", [
        "property-names-added",
        "pattern-property-added",
        "unevaluated-properties-added",
      ]),
    },
  ),
  "properties-widened": flow(
    "Additional properties widened",
    ["info", "error"],
    rulesBothWays(["property-names-removed", "pattern-property-removed", "unevaluated-properties-removed"]),
  ),
  "closed-object-opened": flow(
    "additionalProperties: false removed (undeclared properties allowed; readers ignore them, as an added optional field)",
    ["info", "info"],
  ),
  "content-encoding-changed": flow(
    "contentMediaType or contentEncoding changed",
    ["error", "error"],
    rulesBothWays(["content-media-type-changed", "content-encoding-changed"]),
  ),
  "discriminator-changed": flow("Discriminator changed", ["info", "info"], {
    request: rulesFor("request", DISCRIMINATOR),
    response: rulesFor("response", DISCRIMINATOR),
  }),
  "variant-removed": flow(
    "oneOf/anyOf variant removed",
    ["error", "info"],
    rulesBothWays(["one-of-removed", "any-of-removed"]),
  ),
  "variant-added": flow(
    "oneOf/anyOf variant added",
    ["info", "error"],
    rulesBothWays(["one-of-added", "any-of-added"]),
    { why: { response: "A reader meets values of a shape it never saw, whether the list is a oneOf or an anyOf." } },
  ),
  "allof-member-added": flow("allOf member added", ["error", "info"], rulesBothWays(["all-of-added"])),
  // Request: a warning, as oasdiff rates it (a removed member may have carried what the service relies on).
  "allof-member-removed": flow("allOf member removed", ["warning", "error"], rulesBothWays(["all-of-removed"]), {
    why: { response: "Readers get values the removed member used to exclude." },
  }),
  "conditional-changed": flow("Conditional rule (if/then/else) condition changed", ["error", "error"]),
  "conditional-added": flow(
    "Conditional rule (if/then/else) or dependent schema added",
    ["error", "info"],
    rulesBothWays(["if-added", "then-added", "else-added", "dependent-schema-added"]),
  ),
  "conditional-removed": flow(
    "Conditional rule (if/then/else) or dependent schema removed",
    ["info", "error"],
    rulesBothWays(["if-removed", "then-removed", "else-removed", "dependent-schema-removed"]),
  ),
});
export default family;

const LENGTH_BOUNDS = {
  minLength: "min",
  maxLength: "max",
  minItems: "min",
  maxItems: "max",
  minProperties: "min",
  maxProperties: "max",
  minContains: "min",
  maxContains: "max",
} as const;
const RANGE_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
/** How oasdiff's rule ids name a bound keyword: `request-property-max-length-set`. */
const RULE_NAMES: Readonly<Record<string, string>> = {
  minLength: "min-length",
  maxLength: "max-length",
  minItems: "min-items",
  maxItems: "max-items",
  minContains: "min-contains",
  maxContains: "max-contains",
  minimum: "min",
  maximum: "max",
  exclusiveMinimum: "exclusive-min",
  exclusiveMaximum: "exclusive-max",
};
/** Formats whose values all fit in another format of the same type: going there widens (int32 → int64). */
const WIDER_FORMATS: Readonly<Record<string, readonly string[]>> = {
  int32: ["int64", "bigint"],
  int64: ["bigint"],
  float: ["double"],
};
/** A pattern that accepts any string says nothing; so does an empty one. (`.+` refuses the empty string.) */
const ANY_PATTERN = /^(\^?(\.\*|\[\\s\\S\]\*)\$?)?$/;

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
export const INVERSE_KINDS = new Map<Kind, Kind>();
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
] as const satisfies readonly (readonly [Kind, Kind])[]) {
  INVERSE_KINDS.set(x, y);
  INVERSE_KINDS.set(y, x);
}

const show = (types: Set<string> | undefined) => (types ? [...types].join(" | ") : "any");

/** How one schema's values relate to another's: the same, more (widened), fewer (narrowed), or neither. */
type Relation = "same" | "widened" | "narrowed" | "changed";

const relation = (widens: boolean, narrows: boolean): Relation =>
  widens && narrows ? "changed" : widens ? "widened" : narrows ? "narrowed" : "same";

/**
 * Whether a value of `type` is among `types`. `integer` is a kind of `number`; where values travel as text (a
 * parameter, a header, a body that is not JSON), every value also reads as a `string` (oasdiff's "not strongly
 * typed": `5` in a query is the string "5").
 */
function covers(types: Set<string>, type: string, textual: boolean): boolean {
  return types.has(type) || (type === "integer" && types.has("number")) || (textual && types.has("string"));
}

/** How the types relate (undefined types: any value). */
function typeRelation(a: SchemaView, b: SchemaView, textual: boolean): Relation {
  if (!a.types && !b.types) return "same";
  if (!a.types) return textual && b.types!.has("string") ? "same" : "narrowed";
  if (!b.types) return "widened";
  const lost = [...a.types].some((type) => !covers(b.types!, type, textual));
  const gained = [...b.types].some((type) => !covers(a.types!, type, textual));
  return relation(gained, lost);
}

/** How the formats relate: one added narrows, one removed (or a wider one: int32 → int64) widens. */
function formatRelation(from: Json | undefined, to: Json | undefined): Relation {
  if (stable(from) === stable(to)) return "same";
  if (from === undefined) return "narrowed";
  if (to === undefined || WIDER_FORMATS[String(from)]?.includes(String(to))) return "widened";
  return "changed";
}

/** Two relations on two axes of the same values (type and format): the change is the sum. */
const combine = (x: Relation, y: Relation): Relation => (x === "same" ? y : y === "same" || y === x ? x : "changed");

const TYPE_KINDS = {
  widened: "type-widened",
  narrowed: "type-narrowed",
  changed: "type-changed",
} as const;

/**
 * Types and formats, judged as oasdiff judges them (checker/check_types.go): on both axes at once, so a type that
 * widens with a format that does not (integer/int32 → number/double) is a change; where values travel as text,
 * anything may become a string. A nested property of an object parameter may travel either way (`id[x]=1` or
 * JSON): where the two readings disagree, the change is oasdiff's warning (request-parameter-property-type-changed).
 */
export const types = family.detector(
  "types",
  ["schema"],
  ["type-changed", "type-narrowed", "type-widened", "nullable-added", "nullable-removed"],
  ({ a, b, here, context }, out) => {
    if (a.never !== b.never)
      return out.emit(
        b.never ? "type-narrowed" : "type-widened",
        here,
        b.never ? "schema became `false`: no value allowed" : "schema no longer `false`",
        { oasdiff: null },
      );
    if (a.nullable !== b.nullable)
      out.emit(
        b.nullable ? "nullable-added" : "nullable-removed",
        here,
        b.nullable ? "null now allowed" : "null no longer allowed",
        { oasdiff: ruleAt(out.flow, context, b.nullable ? "became-nullable" : "became-not-nullable") },
      );
    const sameTypes = stable(a.types ? [...a.types].sort() : null) === stable(b.types ? [...b.types].sort() : null);
    if (sameTypes) return; // a format change alone: the formats detector
    const format = formatRelation(a.keywords.get("format")?.value, b.keywords.get("format")?.value);
    const text = `type ${show(a.types)}${fmt(a)} → ${show(b.types)}${fmt(b)}`;
    const nested = context.in === "parameter" && !context.top;
    const strong = combine(typeRelation(a, b, context.textual && !nested), format);
    if (nested && out.flow === "toService") {
      const weak = combine(typeRelation(a, b, true), format);
      if (strong !== "widened" && weak === "widened")
        return out.emit("type-changed", here, `${text} (an object parameter's property: text or JSON?)`, {
          oasdiff: ruleAt(out.flow, context, "type-changed"),
        });
    }
    if (strong === "same") {
      if (combine(typeRelation(a, b, false), format) === "same") return;
      // Where values are text, [integer, string] → [number, string] takes the same values on the wire.
      const request = out.flow === "toService";
      return out.emit(request ? "type-widened" : "type-narrowed", here, `${text} (values are text here: the same)`, {
        oasdiff: ruleAt(out.flow, context, request ? "type-generalized" : "type-compatible"),
      });
    }
    const breaks = out.flow === "toService" ? strong !== "widened" : strong !== "narrowed";
    const suffix = breaks
      ? out.flow === "toService" && nested
        ? "type-specialized"
        : strong === "widened" && out.flow === "toPartner"
          ? "type-generalized"
          : "type-changed"
      : strong === "widened"
        ? "type-generalized"
        : "type-specialized";
    out.emit(TYPE_KINDS[strong], here, text, { oasdiff: ruleAt(out.flow, context, suffix) });
  },
);

const fmt = (view: SchemaView) => {
  const format = view.keywords.get("format")?.value;
  return format === undefined ? "" : `/${String(format)}`;
};

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

/** A format refines its type: a new format narrows, going to a wider one (int32 → int64) widens. */
family.detector("formats", ["schema"], ["format-changed", "format-added", "format-removed"], ({ a, b }, out) => {
  const change = keyword(a, b, "format");
  if (!change) return;
  const typesOf = (view: SchemaView) => (view.types ? stable([...view.types].sort()) : "any");
  if (typesOf(a) !== typesOf(b)) return; // judged with the type (types)
  const related = formatRelation(change.from, change.to);
  const kind = related === "narrowed" ? "format-added" : related === "widened" ? "format-removed" : "format-changed";
  out.emit(kind, change.where, change.text);
});

family.detector(
  "values",
  ["schema"],
  ["const-changed", "const-added", "const-removed", "default-changed", "parameter-default-changed"],
  ({ a, b, context }, out) => {
    const constant = keyword(a, b, "const");
    if (constant) {
      const { from, to, where, text } = constant;
      out.emit(from === undefined ? "const-added" : to === undefined ? "const-removed" : "const-changed", where, text);
    }
    const fallback = keyword(a, b, "default");
    if (!fallback) return;
    const action = fallback.from === undefined ? "added" : fallback.to === undefined ? "removed" : "changed";
    if (context.in !== "body" && context.top)
      return out.emit("parameter-default-changed", fallback.where, fallback.text, {
        oasdiff: ruleAt(out.flow, context, `default-value-${action}`),
      });
    out.emit("default-changed", fallback.where, fallback.text);
  },
);

/** A numeric bound: 3.1's `exclusiveMinimum: 5` and 3.0's `minimum: 5, exclusiveMinimum: true` are the same. */
interface Bound {
  value: number;
  exclusive: boolean;
  /** The keyword that sets it (`exclusiveMinimum`, or `minimum` for 3.0's boolean form). */
  key: string;
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
      key: inclusiveKey,
      at: inclusive.at,
      text: `${inclusiveKey} ${inclusive.value}${isExclusive ? " (exclusive)" : ""}`,
    });
  }
  if (exclusive && typeof exclusive.value === "number")
    bounds.push({
      value: exclusive.value,
      exclusive: true,
      key: exclusiveKey,
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

type ConstraintKind = "constraint-narrowed" | "constraint-widened" | "constraint-changed";

/**
 * oasdiff's rule for a bound keyword going `from` → `to`: `…-set` (none before), `…-unset` (none after),
 * `…-increased` or `…-decreased`; null where oasdiff has no such rule (a minLength set, a maximum removed).
 */
function boundRule(out: Out, context: SchemaContext, key: string, from: unknown, to: unknown) {
  const name = RULE_NAMES[key];
  if (!name || from === to) return null; // 3.0's boolean exclusiveMinimum turned on: no rule of oasdiff's
  const action =
    typeof from !== "number" ? "set" : typeof to !== "number" ? "unset" : to > from ? "increased" : "decreased";
  return ruleAt(out.flow, context, `${name}-${action}`);
}

function range(
  a: SchemaView,
  b: SchemaView,
  side: "lower" | "upper",
  context: SchemaContext,
  out: Out<ConstraintKind>,
) {
  const before = rangeBound(a, side);
  const after = rangeBound(b, side);
  if (!before && !after) return;
  const where = locationOf((after ?? before)!.at);
  const text = `${before?.text ?? `no ${side} bound`} → ${after?.text ?? `no ${side} bound`}`;
  // The keyword oasdiff compares: the one both sides set, else the one that appeared or went.
  const key = before && after && before.key !== after.key ? after.key : (after ?? before)!.key;
  const from = a.keywords.get(key)?.value;
  const to = b.keywords.get(key)?.value;
  const oasdiff = boundRule(out, context, key, from, to);
  if (!before || (after && tighter(side, after, before))) out.emit("constraint-narrowed", where, text, { oasdiff });
  else if (!after || tighter(side, before, after)) out.emit("constraint-widened", where, text, { oasdiff });
}

function bound(
  key: keyof typeof LENGTH_BOUNDS,
  change: NonNullable<ReturnType<typeof keyword>>,
  context: SchemaContext,
  out: Out<ConstraintKind>,
): void {
  const { from, to, where, text } = change;
  if (typeof from !== "number" && typeof to !== "number") return;
  const oasdiff = boundRule(out, context, key, from, to);
  const side = LENGTH_BOUNDS[key];
  if (typeof from !== "number") return out.emit("constraint-narrowed", where, text, { oasdiff });
  if (typeof to !== "number") return out.emit("constraint-widened", where, text, { oasdiff });
  const narrows = side === "min" ? to > from : to < from;
  out.emit(narrows ? "constraint-narrowed" : "constraint-widened", where, text, { oasdiff });
}

function multipleOf(change: NonNullable<ReturnType<typeof keyword>>, out: Out<ConstraintKind>): void {
  const { from, to, where, text } = change;
  const none = { oasdiff: null }; // oasdiff has no rule for multipleOf
  if (typeof from !== "number") return out.emit("constraint-narrowed", where, text, none);
  if (typeof to !== "number") return out.emit("constraint-widened", where, text, none);
  const divides = (x: number, y: number) => Number.isInteger(y / x);
  if (divides(to, from)) out.emit("constraint-widened", where, text, none);
  else if (divides(from, to)) out.emit("constraint-narrowed", where, text, none);
  else out.emit("constraint-changed", where, text, none);
}

function dependentRequired(
  change: NonNullable<ReturnType<typeof keyword>>,
  context: SchemaContext,
  out: Out<ConstraintKind>,
): void {
  const a = isObject(change.from) ? change.from : {};
  const b = isObject(change.to) ? change.to : {};
  const list = (value: Json | undefined) => new Set(Array.isArray(value) ? value.map(String) : []);
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const before = list(a[key]);
    const after = list(b[key]);
    const text = `dependentRequired \`${key}\`: ${code(a[key])} → ${code(b[key])}`;
    const grew = [...after].some((name) => !before.has(name));
    const shrank = [...before].some((name) => !after.has(name));
    const rule = (action: string) => ({ oasdiff: ruleAt(out.flow, context, `dependent-required-${action}`) });
    if (!(key in a)) out.emit("constraint-narrowed", change.where, text, rule("added"));
    else if (!(key in b)) out.emit("constraint-widened", change.where, text, rule("removed"));
    // A trigger's list changed: oasdiff rates any such change an error, whichever way; so does this gate.
    else if (grew || shrank) out.emit("constraint-changed", change.where, text, rule("changed"));
  }
}

/** Lengths, ranges, counts, `multipleOf`, `uniqueItems`, `dependentRequired`, `contentSchema` and `not`. */
family.detector(
  "constraints",
  ["schema"],
  ["constraint-narrowed", "constraint-widened", "constraint-changed"],
  ({ a, b, context }, out) => {
    range(a, b, "lower", context, out);
    range(a, b, "upper", context, out);
    for (const key of Object.keys(LENGTH_BOUNDS) as (keyof typeof LENGTH_BOUNDS)[]) {
      const change = keyword(a, b, key);
      if (change) bound(key, change, context, out);
    }
    const multiple = keyword(a, b, "multipleOf");
    if (multiple) multipleOf(multiple, out);
    const unique = keyword(a, b, "uniqueItems");
    if (unique && (unique.from === true) !== (unique.to === true))
      out.emit(unique.to === true ? "constraint-narrowed" : "constraint-widened", unique.where, unique.text, {
        oasdiff: null,
      });
    const dependent = keyword(a, b, "dependentRequired");
    if (dependent) dependentRequired(dependent, context, out);
    const content = presence(a.subschemas.get("contentSchema"), b.subschemas.get("contentSchema"), b, "contentSchema");
    if (content)
      out.emit(content.narrows ? "constraint-narrowed" : "constraint-widened", content.where, content.text, {
        oasdiff: ruleAt(out.flow, context, `content-schema-${content.narrows ? "added" : "removed"}`),
      });
    if (!a.not && b.not) out.emit("constraint-narrowed", locationOf(b.not), "`not` added", { oasdiff: null });
    else if (a.not && !b.not) out.emit("constraint-widened", locationOf(a.not), "`not` removed", { oasdiff: null });
  },
);

/**
 * A subschema appearing, disappearing or becoming `false`: the walk compares it when it is on both sides; this
 * judges its presence. `opened`: it was `false` and is no longer.
 */
function presence(
  before: SchemaNode | undefined,
  after: SchemaNode | undefined,
  b: SchemaView,
  keyword: SubschemaKeyword,
): { narrows: boolean; opened: boolean; where: string; text: string } | undefined {
  if (allowsAny(before) && allowsAny(after)) return undefined;
  const where = locationOf(after ?? before ?? b.node);
  if (after?.schema === false && before?.schema !== false)
    return { narrows: true, opened: false, where, text: `${keyword}: false (nothing allowed there now)` };
  if (before?.schema === false && after?.schema !== false)
    return { narrows: false, opened: true, where, text: `${keyword} no longer false` };
  if (allowsAny(before)) return { narrows: true, opened: false, where, text: `${keyword} schema added` };
  if (allowsAny(after)) return { narrows: false, opened: false, where, text: `${keyword} schema removed` };
  return undefined;
}

family.detector("patterns", ["schema"], ["pattern-added", "pattern-removed", "pattern-changed"], ({ a, b }, out) => {
  const change = keyword(a, b, "pattern");
  if (!change) return;
  const anyBefore = change.from === undefined || ANY_PATTERN.test(String(change.from));
  const anyAfter = change.to === undefined || ANY_PATTERN.test(String(change.to));
  if (anyBefore && anyAfter) return;
  const kind = anyAfter ? "pattern-removed" : anyBefore ? "pattern-added" : "pattern-changed";
  out.emit(kind, change.where, `pattern ${code(change.from)} → ${code(change.to)}`);
});

/** `items`, `contains`, `unevaluatedItems` and tuple entries (`prefixItems`). */
family.detector(
  "arrays",
  ["schema"],
  ["items-narrowed", "items-widened", "prefix-items-changed"],
  ({ a, b, differs, context }, out) => {
    for (const keyword of ["items", "contains", "unevaluatedItems"] as const) {
      const found = presence(a.subschemas.get(keyword), b.subschemas.get(keyword), b, keyword);
      if (!found) continue;
      const name = keyword === "items" ? undefined : keyword === "contains" ? "contains" : "unevaluated-items";
      const rule = name ? ruleAt(out.flow, context, `${name}-${found.narrows ? "added" : "removed"}`) : null;
      out.emit(found.narrows ? "items-narrowed" : "items-widened", found.where, found.text, { oasdiff: rule });
    }
    // A position without a tuple entry is governed by `items`: an entry added or removed changes the position
    // only where it differs from `items`. Which way it goes depends on both, so it counts both ways.
    const before = a.prefixItems?.nodes ?? [];
    const after = b.prefixItems?.nodes ?? [];
    for (let i = Math.min(before.length, after.length); i < Math.max(before.length, after.length); i++) {
      const x = before[i];
      const y = after[i];
      if (y && differs(a.subschemas.get("items") ?? { ...y, schema: {} }, y))
        out.emit("prefix-items-changed", locationOf(y), `prefixItems entry ${i} added`, {
          oasdiff: ruleAt(out.flow, context, "prefix-items-added"),
        });
      else if (x && differs(x, b.subschemas.get("items") ?? { ...x, schema: {} }))
        out.emit("prefix-items-changed", locationOf(x), `prefixItems entry ${i} removed`, {
          oasdiff: ruleAt(out.flow, context, "prefix-items-removed"),
        });
    }
  },
);

/** Which properties an object may have beyond those it names. */
family.detector(
  "objectShape",
  ["schema"],
  ["properties-narrowed", "properties-widened", "closed-object-opened"],
  ({ a, b, here, context }, out) => {
    const names = {
      additionalProperties: undefined,
      unevaluatedProperties: "unevaluated-properties",
      propertyNames: "property-names",
    } as const;
    for (const keyword of ["additionalProperties", "unevaluatedProperties", "propertyNames"] as const) {
      const found = presence(a.subschemas.get(keyword), b.subschemas.get(keyword), b, keyword);
      if (!found) continue;
      // Undeclared properties may now appear: like an optional field added, readers ignore what they do not know.
      if (found.opened && keyword !== "propertyNames") {
        out.emit("closed-object-opened", found.where, found.text);
        continue;
      }
      const name = names[keyword];
      const rule = name ? ruleAt(out.flow, context, `${name}-${found.narrows ? "added" : "removed"}`) : null;
      out.emit(found.narrows ? "properties-narrowed" : "properties-widened", found.where, found.text, {
        oasdiff: rule,
      });
    }
    for (const key of a.patternProperties.keys())
      if (!b.patternProperties.has(key))
        out.emit("properties-widened", here, `patternProperties \`${key}\` removed`, {
          oasdiff: ruleAt(out.flow, context, "pattern-property-removed"),
        });
    for (const key of b.patternProperties.keys())
      if (!a.patternProperties.has(key))
        out.emit("properties-narrowed", here, `patternProperties \`${key}\` added`, {
          oasdiff: ruleAt(out.flow, context, "pattern-property-added"),
        });
  },
);

family.detector("variants", ["schema"], ["variant-removed", "variant-added"], ({ a, b, context }, out) => {
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const rule = (action: "added" | "removed") => ({
      oasdiff: ruleAt(out.flow, context, `${keyword === "oneOf" ? "one-of" : "any-of"}-${action}`),
    });
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
          rule(y ? "removed" : "added"),
        );
        continue;
      }
      const names = (list: typeof x) =>
        new Map(list.nodes.map((node, index) => [variantName(node.schema, index), node]));
      const [was, now] = [names(x), names(y)];
      for (const [name, node] of was)
        if (!now.has(name))
          out.emit("variant-removed", locationOf(node), `${keyword} variant \`${name}\` removed`, rule("removed"));
      for (const [name, node] of now)
        if (!was.has(name))
          out.emit("variant-added", locationOf(node), `${keyword} variant \`${name}\` added`, rule("added"));
    }
  }
});

/** The merged view already compares what members say; this reports members appearing and disappearing. */
family.detector("allOf", ["schema"], ["allof-member-added", "allof-member-removed"], ({ a, b, here }, out) => {
  for (const [name, member] of b.allOf)
    if (!a.allOf.has(name) && !member.annotationOnly)
      out.emit("allof-member-added", here, `allOf member \`${name}\` added`);
  for (const [name, member] of a.allOf)
    if (!b.allOf.has(name) && !member.annotationOnly)
      out.emit("allof-member-removed", here, `allOf member \`${name}\` removed`);
});

family.detector(
  "conditionals",
  ["schema"],
  ["conditional-changed", "conditional-added", "conditional-removed"],
  ({ a, b, here }, out) => {
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
  },
);

family.detector("annotations", ["schema"], ["discriminator-changed", "content-encoding-changed"], ({ a, b }, out) => {
  const discriminator = keyword(a, b, "discriminator");
  if (discriminator) out.emit("discriminator-changed", discriminator.where, discriminator.text);
  for (const key of ["contentMediaType", "contentEncoding"]) {
    const change = keyword(a, b, key);
    if (change) out.emit("content-encoding-changed", change.where, change.text);
  }
});
