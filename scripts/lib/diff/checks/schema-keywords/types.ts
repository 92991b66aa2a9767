/** Types, nullability and formats: how the values a schema allows change by type and format together. */
import { stable } from "../../pairs.ts";
import type { Json, SchemaView } from "../../resolve.ts";
import { defineFamily, flow, ruleAt, rulesFor } from "../define.ts";
import { keyword } from "./keyword.ts";

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
});
export default family;

/** Formats whose values all fit in another format of the same type: going there widens (int32 → int64). */
const WIDER_FORMATS: Readonly<Record<string, readonly string[]>> = {
  int32: ["int64", "bigint"],
  int64: ["bigint"],
  float: ["double"],
};

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
