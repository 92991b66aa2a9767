/** Constraints: lengths, ranges, counts, `multipleOf`, `uniqueItems`, `dependentRequired`, `contentSchema`, `not`. */
import { code, type SchemaContext } from "../../pairs.ts";
import { isObject, type Json, locationOf, type SchemaNode, type SchemaView } from "../../resolve.ts";
import { defineFamily, flow, type Out, ruleAt, rulesBothWays, rulesFor } from "../define.ts";
import { type KeywordChange, keyword, LENGTH_BOUNDS, presence } from "./keyword.ts";

const family = defineFamily("schema keywords", import.meta.url, {
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
});
export default family;

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
  change: KeywordChange,
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

function multipleOf(change: KeywordChange, out: Out<ConstraintKind>): void {
  const { from, to, where, text } = change;
  const none = { oasdiff: null }; // oasdiff has no rule for multipleOf
  if (typeof from !== "number") return out.emit("constraint-narrowed", where, text, none);
  if (typeof to !== "number") return out.emit("constraint-widened", where, text, none);
  const divides = (x: number, y: number) => Number.isInteger(y / x);
  if (divides(to, from)) out.emit("constraint-widened", where, text, none);
  else if (divides(from, to)) out.emit("constraint-narrowed", where, text, none);
  else out.emit("constraint-changed", where, text, none);
}

function dependentRequired(change: KeywordChange, context: SchemaContext, out: Out<ConstraintKind>): void {
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
