/**
 * Compares two resolved JSON Schemas (OpenAPI 3.0 and 3.1) and reports each difference with its kind;
 * rules.ts decides the check id and level from the kind and the direction.
 */
import { type Change, ChangeSink } from "./changes.ts";
import {
  type Document,
  isObject,
  type Json,
  locationOf,
  resolveNode,
  type SchemaNode,
  type SchemaView,
  SUBSCHEMA_KEYWORDS,
  type SubschemaKeyword,
  variantName,
  viewOf,
} from "./resolve.ts";
import type { ChangeKind, Flow } from "./rules.ts";

export interface SchemaComparison {
  base: Document;
  head: Document;
  /** Results of comparing one pair of components in one direction, so each is walked once. */
  memo: Map<string, Change[] | "in progress">;
  /** The pairs of schema places on the current descent: meeting one again is a cycle (allOf, oneOf, members). */
  active: Set<string>;
  /** Today (YYYY-MM-DD), for the x-sunset of deprecated properties. */
  today: string;
}

export function newComparison(base: Document, head: Document, today: string): SchemaComparison {
  return { base, head, memo: new Map(), active: new Set(), today };
}

/** Where a schema really sits once `$ref`s are followed; merged allOf members by all of theirs. */
function identity(document: Document, node: SchemaNode): string {
  if (node.members) return node.members.map((member) => identity(document, member)).join(" & ");
  return locationOf(resolveNode(document, node));
}

const code = (value: Json | undefined) => `\`${value === undefined ? "none" : JSON.stringify(value)}\``;
export const stable = (value: Json | undefined): string => JSON.stringify(sortKeys(value ?? null));
function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys(value[key]!)]),
    );
  return value;
}

/** Compares the schema at `before` (in the base document) with `after` (in the head), in direction `flow`. */
export function compareSchemas(
  cmp: SchemaComparison,
  before: SchemaNode,
  after: SchemaNode,
  flow: Flow,
  sink: ChangeSink,
  depth = 0,
): void {
  if (depth > 64) return; // Deeper than any real contract: stop rather than loop on a pathological cycle.
  const place = `${flow}|${identity(cmp.base, before)}|${identity(cmp.head, after)}`;
  if (cmp.active.has(place)) return; // A cycle: the outer visit of this pair reports its changes.
  cmp.active.add(place);
  try {
    comparePair(cmp, before, after, flow, sink, depth);
  } finally {
    cmp.active.delete(place);
  }
}

function comparePair(
  cmp: SchemaComparison,
  before: SchemaNode,
  after: SchemaNode,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const refBefore = pureRef(before.schema);
  const refAfter = pureRef(after.schema);
  if (refBefore && refAfter) {
    const key = `${flow}|${refBefore}|${refAfter}`;
    const known = cmp.memo.get(key);
    if (known === "in progress") return; // A recursive schema: its changes are reported by the outer visit.
    if (known) return sink.addFrom(known);
    cmp.memo.set(key, "in progress");
    const local = new ChangeSink();
    compareViews(cmp, viewOf(cmp.base, before), viewOf(cmp.head, after), flow, local, depth);
    cmp.memo.set(key, local.changes);
    return sink.addFrom(local.changes);
  }
  compareViews(cmp, viewOf(cmp.base, before), viewOf(cmp.head, after), flow, sink, depth);
}

function pureRef(schema: Json): string | undefined {
  return isObject(schema) && typeof schema.$ref === "string" && Object.keys(schema).length === 1
    ? schema.$ref
    : undefined;
}

function compareViews(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const here = locationOf(b.node);
  compareDocs(a, b, flow, sink);
  compareTypes(a, b, flow, here, sink);
  compareEnum(a, b, flow, sink);
  compareKeywords(a, b, flow, sink);
  compareProperties(cmp, a, b, flow, sink, depth);
  for (const keyword of SUBSCHEMA_KEYWORDS) compareSubschema(cmp, keyword, a, b, flow, sink, depth);
  comparePrefixItems(cmp, a, b, flow, sink, depth);
  compareNot(cmp, a, b, flow, sink, depth);
  compareSchemaMaps(cmp, a.patternProperties, b.patternProperties, "patternProperties", here, flow, sink, depth);
  compareSchemaMaps(cmp, a.dependentSchemas, b.dependentSchemas, "dependentSchemas", here, flow, sink, depth);
  compareVariants(cmp, a, b, flow, sink, depth);
  compareAllOf(a, b, flow, here, sink);
  compareConditionals(cmp, a, b, flow, sink, depth);
}

function compareDocs(a: SchemaView, b: SchemaView, flow: Flow, sink: ChangeSink): void {
  const places = new Set([...a.docs.keys(), ...b.docs.keys()]);
  for (const place of places) {
    const before = a.docs.get(place)?.values ?? {};
    const after = b.docs.get(place)?.values ?? {};
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
      (key) => stable(before[key]) !== stable(after[key]),
    );
    if (keys.length > 0) sink.emit("documentation-changed", flow, place, `${keys.join(", ")} changed`);
  }
}

/** `integer` is a subset of `number`: number → integer narrows, integer → number widens. */
function covers(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === "integer" && types.has("number"));
}

function compareTypes(a: SchemaView, b: SchemaView, flow: Flow, here: string, sink: ChangeSink): void {
  if (a.never !== b.never)
    return sink.emit(
      b.never ? "type-narrowed" : "type-widened",
      flow,
      here,
      b.never ? "schema became `false`: no value allowed" : "schema no longer `false`",
    );
  if (a.nullable !== b.nullable) {
    sink.emit(
      b.nullable ? "nullable-added" : "nullable-removed",
      flow,
      here,
      b.nullable ? "null now allowed" : "null no longer allowed",
    );
  }
  const before = a.types;
  const after = b.types;
  const show = (types: Set<string> | undefined) => (types ? [...types].join(" | ") : "any");
  if (!before && !after) return;
  if (!before && after) return sink.emit("type-narrowed", flow, here, `type any → ${show(after)}`);
  if (before && !after) return sink.emit("type-widened", flow, here, `type ${show(before)} → any`);
  const removed = [...before!].filter((t) => !covers(after!, t));
  const added = [...after!].filter((t) => !covers(before!, t));
  if (removed.length > 0 && added.length > 0)
    sink.emit("type-changed", flow, here, `type ${show(before)} → ${show(after)}`);
  else if (removed.length > 0)
    sink.emit(
      "type-narrowed",
      flow,
      here,
      `type ${show(before)} → ${show(after)} (${removed.join(", ")} no longer allowed)`,
    );
  else if (added.length > 0)
    sink.emit("type-widened", flow, here, `type ${show(before)} → ${show(after)} (${added.join(", ")} now allowed)`);
}

function compareEnum(a: SchemaView, b: SchemaView, flow: Flow, sink: ChangeSink): void {
  const from = a.enum;
  const to = b.enum;
  if (!from && !to) return;
  const where = locationOf((to ?? from)!.at);
  if (!from) return sink.emit("enum-added", flow, where, `enum added: ${to!.values.map(code).join(", ")}`);
  if (!to) return sink.emit("enum-removed", flow, where, `enum removed (was ${from.values.map(code).join(", ")})`);
  const before = new Set(from.values.map(stable));
  const after = new Set(to.values.map(stable));
  const removed = from.values.filter((value) => !after.has(stable(value)));
  const added = to.values.filter((value) => !before.has(stable(value)));
  if (removed.length > 0)
    sink.emit("enum-value-removed", flow, where, `enum values removed: ${removed.map(code).join(", ")}`);
  if (added.length > 0) {
    const hint = flow === "toPartner" ? "; partners reading this value may not handle it" : "";
    sink.emit("enum-value-added", flow, where, `enum values added: ${added.map(code).join(", ")}${hint}`);
  }
}

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
const RANGE_KEYWORDS = new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]);
/** int32 values fit in int64, float in double: dropping to the wider format widens. */
const WIDER_FORMAT: Record<string, string> = { int32: "int64", float: "double" };
/** A pattern that accepts any string says nothing. */
const ANY_PATTERN = /^\^?(\.\*|\.\+|\[\\s\\S\]\*)\$?$/;

function compareKeywords(a: SchemaView, b: SchemaView, flow: Flow, sink: ChangeSink): void {
  compareRange(a, b, "lower", flow, sink);
  compareRange(a, b, "upper", flow, sink);
  const keys = new Set([...a.keywords.keys(), ...b.keywords.keys()]);
  for (const key of keys) {
    if (RANGE_KEYWORDS.has(key)) continue;
    const before = a.keywords.get(key);
    const after = b.keywords.get(key);
    if (before && after && stable(before.value) === stable(after.value)) continue;
    const where = locationOf((after ?? before)!.at);
    const from = before?.value;
    const to = after?.value;
    const change = `${key} ${code(from)} → ${code(to)}`;
    if (key in LENGTH_BOUNDS) compareBound(LENGTH_BOUNDS[key]!, key, from, to, flow, where, sink);
    else if (key === "const") {
      const kind: ChangeKind =
        from === undefined ? "const-added" : to === undefined ? "const-removed" : "const-changed";
      sink.emit(kind, flow, where, change);
    } else if (key === "pattern") comparePattern(from, to, flow, where, sink);
    else if (key === "format") {
      const kind: ChangeKind =
        from === undefined
          ? "format-added"
          : to === undefined || WIDER_FORMAT[String(from)] === to
            ? "format-removed"
            : "format-changed";
      sink.emit(kind, flow, where, change);
    } else if (key === "multipleOf") compareMultipleOf(from, to, flow, where, sink);
    else if (key === "uniqueItems") {
      if ((from === true) !== (to === true))
        sink.emit(to === true ? "constraint-narrowed" : "constraint-widened", flow, where, change);
    } else if (key === "default") sink.emit("default-changed", flow, where, change);
    else if (key === "discriminator") sink.emit("discriminator-changed", flow, where, change);
    else if (key === "dependentRequired") compareDependentRequired(from, to, flow, where, sink);
    else if (key === "contentMediaType" || key === "contentEncoding")
      sink.emit("content-encoding-changed", flow, where, change);
    else if (key === "x-extensible-enum") compareExtensibleEnum(from, to, flow, where, sink);
    else if (key === "x-stability-level" && from !== undefined && to !== undefined) {
      const order = ["draft", "alpha", "beta", "stable"];
      const [x, y] = [order.indexOf(String(from)), order.indexOf(String(to))];
      const kind: ChangeKind =
        x < 0 || y < 0 ? "stability-invalid" : y < x ? "stability-decreased" : "stability-increased";
      sink.emit(kind, flow, where, change);
    } else if (key.startsWith("x-"))
      sink.emit(
        "extension-changed",
        flow,
        where,
        `${key} ${from === undefined ? "added" : to === undefined ? "removed" : "changed"}`,
      );
    else sink.emit("keyword-changed", flow, where, `${change} (a keyword the gate does not model)`);
  }
  if (a.readOnly !== b.readOnly || a.writeOnly !== b.writeOnly) {
    const flag = (view: SchemaView) => (view.readOnly ? "readOnly" : view.writeOnly ? "writeOnly" : "read-write");
    sink.emit("mutability-changed", flow, locationOf(b.node), `${flag(a)} → ${flag(b)}`);
  }
}

function compareBound(
  side: "min" | "max",
  key: string,
  from: Json | undefined,
  to: Json | undefined,
  flow: Flow,
  where: string,
  sink: ChangeSink,
): void {
  const text = `${key} ${code(from)} → ${code(to)}`;
  if (typeof from !== "number" && typeof to !== "number") return;
  if (typeof from !== "number") return sink.emit("constraint-narrowed", flow, where, text);
  if (typeof to !== "number") return sink.emit("constraint-widened", flow, where, text);
  const narrower = side === "min" ? to > from : to < from;
  sink.emit(narrower ? "constraint-narrowed" : "constraint-widened", flow, where, text);
}

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
  // The tighter of the two wins.
  return bounds.reduce((x, y) => (tighter(side, y, x) ? y : x));
}

function tighter(side: "lower" | "upper", x: Bound, than: Bound): boolean {
  if (x.value === than.value) return x.exclusive && !than.exclusive;
  return side === "lower" ? x.value > than.value : x.value < than.value;
}

function compareRange(a: SchemaView, b: SchemaView, side: "lower" | "upper", flow: Flow, sink: ChangeSink): void {
  const before = rangeBound(a, side);
  const after = rangeBound(b, side);
  if (!before && !after) return;
  const where = locationOf((after ?? before)!.at);
  const text = `${before?.text ?? `no ${side} bound`} → ${after?.text ?? `no ${side} bound`}`;
  if (!before) return sink.emit("constraint-narrowed", flow, where, text);
  if (!after) return sink.emit("constraint-widened", flow, where, text);
  if (tighter(side, after, before)) sink.emit("constraint-narrowed", flow, where, text);
  else if (tighter(side, before, after)) sink.emit("constraint-widened", flow, where, text);
}

function comparePattern(
  from: Json | undefined,
  to: Json | undefined,
  flow: Flow,
  where: string,
  sink: ChangeSink,
): void {
  const text = `pattern ${code(from)} → ${code(to)}`;
  const anyBefore = from === undefined || ANY_PATTERN.test(String(from));
  const anyAfter = to === undefined || ANY_PATTERN.test(String(to));
  if (anyBefore && anyAfter) return;
  if (anyAfter) return sink.emit("pattern-removed", flow, where, text);
  if (anyBefore) return sink.emit("pattern-added", flow, where, text);
  sink.emit("pattern-changed", flow, where, text);
}

function compareMultipleOf(
  from: Json | undefined,
  to: Json | undefined,
  flow: Flow,
  where: string,
  sink: ChangeSink,
): void {
  const text = `multipleOf ${code(from)} → ${code(to)}`;
  if (typeof from !== "number") return sink.emit("constraint-narrowed", flow, where, text);
  if (typeof to !== "number") return sink.emit("constraint-widened", flow, where, text);
  const divides = (x: number, y: number) => Number.isInteger(y / x);
  if (divides(to, from)) sink.emit("constraint-widened", flow, where, text);
  else if (divides(from, to)) sink.emit("constraint-narrowed", flow, where, text);
  else sink.emit("constraint-changed", flow, where, text);
}

function compareDependentRequired(
  from: Json | undefined,
  to: Json | undefined,
  flow: Flow,
  where: string,
  sink: ChangeSink,
): void {
  const a = isObject(from) ? from : {};
  const b = isObject(to) ? to : {};
  const list = (value: Json | undefined) => new Set(Array.isArray(value) ? value.map(String) : []);
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const before = list(a[key]);
    const after = list(b[key]);
    const text = `dependentRequired \`${key}\`: ${code(a[key])} → ${code(b[key])}`;
    const grew = [...after].some((name) => !before.has(name));
    const shrank = [...before].some((name) => !after.has(name));
    if (grew && shrank) sink.emit("constraint-changed", flow, where, text);
    else if (grew) sink.emit("constraint-narrowed", flow, where, text);
    else if (shrank) sink.emit("constraint-widened", flow, where, text);
  }
}

function compareExtensibleEnum(
  from: Json | undefined,
  to: Json | undefined,
  flow: Flow,
  where: string,
  sink: ChangeSink,
): void {
  const before = Array.isArray(from) ? from : [];
  const after = Array.isArray(to) ? to : [];
  const removed = before.filter((value) => !after.some((other) => stable(other) === stable(value)));
  const added = after.filter((value) => !before.some((other) => stable(other) === stable(value)));
  if (removed.length > 0)
    sink.emit(
      "extensible-enum-value-removed",
      flow,
      where,
      `x-extensible-enum values removed: ${removed.map(code).join(", ")}`,
    );
  if (added.length > 0)
    sink.emit(
      "extensible-enum-value-added",
      flow,
      where,
      `x-extensible-enum values added: ${added.map(code).join(", ")}`,
    );
}

/**
 * For a deprecated property: the day it may go (its `x-sunset`, or "" when it has none); undefined when it is
 * not deprecated. A sunset that is not a date keeps it (far future).
 */
function deprecatedUntil(document: Document, node: SchemaNode): string | undefined {
  if (node.members) return undefined;
  const schema = resolveNode(document, node).schema;
  if (!isObject(schema) || schema.deprecated !== true) return undefined;
  const sunset = schema["x-sunset"];
  if (sunset === undefined) return "";
  const match = typeof sunset === "string" ? /^\d{4}-\d{2}-\d{2}/.exec(sunset.trim()) : null;
  return match ? match[0] : "9999-12-31";
}

/**
 * A property the reader ignores: read-only ones in requests (the service does not read them) and write-only
 * ones in responses (the service never sends them). Changes to it are reported, at level info.
 */
function ignoredBy(flow: Flow, ...views: SchemaView[]): string | undefined {
  if (flow === "toService" && views.some((view) => view.readOnly)) return "read-only, ignored in requests";
  if (flow === "toPartner" && views.some((view) => view.writeOnly)) return "write-only, never sent in responses";
  return undefined;
}

function compareProperties(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const viewCache = new Map<SchemaNode, SchemaView>();
  const propertyView = (document: Document, node: SchemaNode) => {
    const known = viewCache.get(node);
    if (known) return known;
    const view = viewOf(document, node);
    viewCache.set(node, view);
    return view;
  };
  const ignored = (name: string) => {
    const views: SchemaView[] = [];
    const x = a.properties.get(name);
    const y = b.properties.get(name);
    if (x) views.push(propertyView(cmp.base, x));
    if (y) views.push(propertyView(cmp.head, y));
    return ignoredBy(flow, ...views);
  };
  const emit = (name: string, kind: ChangeKind, where: string, message: string) => {
    const why = ignored(name);
    if (why) sink.emit("ignored-field-changed", flow, where, `${message} (${why})`);
    else sink.emit(kind, flow, where, message);
  };

  for (const [name, property] of a.properties) {
    if (b.properties.has(name)) continue;
    const required = a.required.has(name);
    const text = `${required ? "required" : "optional"} field \`${name}\` removed`;
    const deprecated = deprecatedUntil(cmp.base, property);
    if (deprecated !== undefined && deprecated <= cmp.today)
      sink.emit("field-removed-after-deprecation", flow, locationOf(property), `${text} (was deprecated)`);
    else emit(name, required ? "required-field-removed" : "optional-field-removed", locationOf(property), text);
  }
  for (const [name, property] of b.properties) {
    const old = a.properties.get(name);
    if (!old) {
      const required = b.required.has(name);
      emit(
        name,
        required ? "field-added-required" : "field-added-optional",
        locationOf(property),
        `${required ? "required" : "optional"} field \`${name}\` added`,
      );
      continue;
    }
    const why = ignored(name);
    if (!why) {
      compareSchemas(cmp, old, property, flow, sink, depth + 1);
      continue;
    }
    if (
      flow === "toPartner" &&
      b.required.has(name) &&
      propertyView(cmp.base, old).writeOnly &&
      !propertyView(cmp.head, property).writeOnly
    )
      sink.emit(
        "required-field-no-longer-write-only",
        flow,
        locationOf(property),
        `required field \`${name}\` is no longer write-only`,
      );
    const local = new ChangeSink();
    compareSchemas(cmp, old, property, flow, local, depth + 1);
    for (const change of local.changes) {
      if (change.kind === "documentation-changed" || change.kind === "mutability-changed") sink.changes.push(change);
      else sink.emit("ignored-field-changed", flow, change.location, `${change.message} (${why})`);
    }
  }
  const place = (name: string) =>
    locationOf(
      b.properties.get(name) ?? a.properties.get(name) ?? { origin: b.node.origin, path: `${b.node.path}.${name}` },
    );
  for (const name of b.required) {
    const isNewProperty = b.properties.has(name) && !a.properties.has(name);
    // Requiring a property the schema does not declare is a no-op oasdiff also ignores.
    if (!a.required.has(name) && !isNewProperty && b.properties.has(name))
      emit(name, "field-became-required", place(name), `field \`${name}\` became required`);
  }
  for (const name of a.required) {
    const wasRemoved = a.properties.has(name) && !b.properties.has(name);
    if (!b.required.has(name) && !wasRemoved && a.properties.has(name))
      emit(name, "field-became-optional", place(name), `field \`${name}\` became optional`);
  }
}

/** `true`, `{}` and a missing keyword all allow anything. */
const allowsAny = (node?: SchemaNode) =>
  !node || node.schema === true || (isObject(node.schema) && Object.keys(node.schema).length === 0);

const SUBSCHEMA_KINDS: Record<SubschemaKeyword, [ChangeKind, ChangeKind]> = {
  additionalProperties: ["properties-narrowed", "properties-widened"],
  unevaluatedProperties: ["properties-narrowed", "properties-widened"],
  propertyNames: ["properties-narrowed", "properties-widened"],
  unevaluatedItems: ["items-narrowed", "items-widened"],
  contains: ["items-narrowed", "items-widened"],
  items: ["items-narrowed", "items-widened"],
  contentSchema: ["constraint-narrowed", "constraint-widened"],
};

function compareSubschema(
  cmp: SchemaComparison,
  keyword: SubschemaKeyword,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const before = a.subschemas.get(keyword);
  const after = b.subschemas.get(keyword);
  if (allowsAny(before) && allowsAny(after)) return;
  const [narrowed, widened] = SUBSCHEMA_KINDS[keyword];
  const where = locationOf(after ?? before ?? b.node);
  if (after?.schema === false && before?.schema !== false)
    return sink.emit(narrowed, flow, where, `${keyword}: false (nothing allowed there now)`);
  if (before?.schema === false && after?.schema !== false) {
    // Undeclared properties may now appear: like an optional field added, readers ignore what they do not know.
    if (keyword === "additionalProperties" || keyword === "unevaluatedProperties")
      return sink.emit("closed-object-opened", flow, where, `${keyword} no longer false`);
    return sink.emit(widened, flow, where, `${keyword} no longer false`);
  }
  if (allowsAny(before)) return sink.emit(narrowed, flow, where, `${keyword} schema added`);
  if (allowsAny(after)) return sink.emit(widened, flow, where, `${keyword} schema removed`);
  compareSchemas(cmp, before!, after!, flow, sink, depth + 1);
}

/** What `not` excludes grows when its schema widens: its changes are judged in the opposite direction. */
function compareNot(cmp: SchemaComparison, a: SchemaView, b: SchemaView, flow: Flow, sink: ChangeSink, depth: number) {
  if (!a.not && !b.not) return;
  const where = locationOf(b.not ?? a.not!);
  if (!a.not) return sink.emit("constraint-narrowed", flow, where, "`not` added");
  if (!b.not) return sink.emit("constraint-widened", flow, where, "`not` removed");
  compareSchemas(cmp, a.not, b.not, flow === "toService" ? "toPartner" : "toService", sink, depth + 1);
}

function comparePrefixItems(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const before = a.prefixItems?.nodes ?? [];
  const after = b.prefixItems?.nodes ?? [];
  const count = Math.max(before.length, after.length);
  for (let i = 0; i < count; i++) {
    const x = before[i];
    const y = after[i];
    if (x && y) compareSchemas(cmp, x, y, flow, sink, depth + 1);
    // A position without a tuple entry is governed by `items`: an entry added or removed changes the position
    // only where it differs from `items`. Which way it goes depends on both, so it counts both ways (oasdiff
    // rates prefix-items-added/removed a warning on both sides, and ignores an entry repeating `items`).
    else if (y && differs(cmp, a.subschemas.get("items") ?? { ...y, schema: {} }, y, flow, depth))
      sink.emit("prefix-items-changed", flow, locationOf(y), `prefixItems entry ${i} added`);
    else if (x && differs(cmp, x, b.subschemas.get("items") ?? { ...x, schema: {} }, flow, depth))
      sink.emit("prefix-items-changed", flow, locationOf(x), `prefixItems entry ${i} removed`);
  }
}

/** Whether two schemas differ in anything but documentation. */
function differs(cmp: SchemaComparison, before: SchemaNode, after: SchemaNode, flow: Flow, depth: number): boolean {
  const local = new ChangeSink();
  compareSchemas(cmp, before, after, flow, local, depth + 1);
  return local.changes.some((change) => !change.documentation);
}

function compareSchemaMaps(
  cmp: SchemaComparison,
  a: Map<string, SchemaNode>,
  b: Map<string, SchemaNode>,
  keyword: "patternProperties" | "dependentSchemas",
  here: string,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const [added, removed]: [ChangeKind, ChangeKind] =
    keyword === "patternProperties"
      ? ["properties-narrowed", "properties-widened"]
      : ["conditional-added", "conditional-removed"];
  for (const [key, node] of a) {
    const match = b.get(key);
    if (match) compareSchemas(cmp, node, match, flow, sink, depth + 1);
    else sink.emit(removed, flow, here, `${keyword} \`${key}\` removed`);
  }
  for (const key of b.keys()) if (!a.has(key)) sink.emit(added, flow, here, `${keyword} \`${key}\` added`);
}

function compareVariants(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const before = a.variants.filter((v) => v.keyword === keyword);
    const after = b.variants.filter((v) => v.keyword === keyword);
    const count = Math.max(before.length, after.length);
    for (let i = 0; i < count; i++) {
      const listBefore = before[i];
      const listAfter = after[i];
      if (!listBefore || !listAfter) {
        const where = locationOf((listAfter ?? listBefore)!.at);
        sink.emit(
          listAfter ? "variant-removed" : "variant-added",
          flow,
          where,
          `${keyword} ${listAfter ? "added (narrows to its variants)" : "removed"}`,
        );
        continue;
      }
      const name = (node: SchemaNode, index: number) => variantName(node.schema, index);
      const byNameBefore = new Map(listBefore.nodes.map((node, index) => [name(node, index), node]));
      const byNameAfter = new Map(listAfter.nodes.map((node, index) => [name(node, index), node]));
      for (const [variant, node] of byNameBefore) {
        const match = byNameAfter.get(variant);
        if (match) compareSchemas(cmp, node, match, flow, sink, depth + 1);
        else sink.emit("variant-removed", flow, locationOf(node), `${keyword} variant \`${variant}\` removed`);
      }
      for (const [variant, node] of byNameAfter) {
        if (!byNameBefore.has(variant))
          sink.emit("variant-added", flow, locationOf(node), `${keyword} variant \`${variant}\` added`);
      }
    }
  }
}

/** The merged view already compares what members say; this reports members appearing and disappearing. */
function compareAllOf(a: SchemaView, b: SchemaView, flow: Flow, here: string, sink: ChangeSink): void {
  for (const [name, member] of b.allOf) {
    if (a.allOf.has(name)) continue;
    sink.emit(
      member.annotationOnly ? "documentation-changed" : "allof-member-added",
      flow,
      here,
      `allOf member \`${name}\` added`,
    );
  }
  for (const [name, member] of a.allOf) {
    if (b.allOf.has(name)) continue;
    sink.emit(
      member.annotationOnly ? "documentation-changed" : "allof-member-removed",
      flow,
      here,
      `allOf member \`${name}\` removed`,
    );
  }
}

function compareConditionals(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const count = Math.max(a.conditionals.length, b.conditionals.length);
  for (let i = 0; i < count; i++) {
    const before = a.conditionals[i];
    const after = b.conditionals[i];
    if (!before || !after) {
      const where = locationOf((after ?? before)!.at);
      sink.emit(
        after ? "conditional-added" : "conditional-removed",
        flow,
        where,
        `if/then/else rule ${after ? "added" : "removed"}`,
      );
      continue;
    }
    // Any change to the condition changes which instances a rule applies to: not classifiable by direction.
    if (stable(before.if?.schema) !== stable(after.if?.schema)) {
      sink.emit("conditional-changed", flow, locationOf(after.if ?? after.at), "the `if` condition changed");
    }
    for (const part of ["then", "else"] as const) {
      const x = before[part];
      const y = after[part];
      if (x && y) compareSchemas(cmp, x, y, flow, sink, depth + 1);
      else if (x || y)
        sink.emit(
          y ? "conditional-added" : "conditional-removed",
          flow,
          locationOf((y ?? x)!),
          `\`${part}\` branch ${y ? "added" : "removed"}`,
        );
    }
  }
}
