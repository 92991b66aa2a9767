/**
 * Compares two resolved JSON Schemas (OpenAPI 3.1: type arrays, `const`, `if`/`then`/`else`) and
 * reports each difference with its kind; rules.ts decides the class from the kind and the direction.
 */
import { type Change, ChangeSink } from "./changes.ts";
import {
  BOUND_KEYWORDS,
  type Document,
  HANDLED_KEYWORDS,
  isObject,
  type Json,
  locationOf,
  type SchemaNode,
  type SchemaView,
  variantName,
  viewOf,
} from "./resolve.ts";
import type { Flow } from "./rules.ts";

export interface SchemaComparison {
  base: Document;
  head: Document;
  /** Results of comparing one pair of components in one direction, so each is walked once. */
  memo: Map<string, Change[] | "in progress">;
}

export function newComparison(base: Document, head: Document): SchemaComparison {
  return { base, head, memo: new Map() };
}

const code = (value: Json) => `\`${JSON.stringify(value)}\``;
const stable = (value: Json): string => JSON.stringify(sortKeys(value));
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
  compareTypes(a.types, b.types, flow, here, sink);
  compareKeywords(a, b, flow, sink);
  compareProperties(cmp, a, b, flow, sink, depth);

  if (a.items && b.items) compareSchemas(cmp, a.items, b.items, flow, sink, depth + 1);
  else if (a.items || b.items)
    sink.emit(
      a.items ? "constraint-widened" : "constraint-narrowed",
      flow,
      `${here}[]`,
      `array items schema ${a.items ? "removed" : "added"}`,
    );

  compareAdditional(cmp, a, b, flow, sink, depth);
  compareVariants(cmp, a, b, flow, sink, depth);
  compareConditionals(cmp, a, b, flow, sink, depth);
}

function compareDocs(a: SchemaView, b: SchemaView, flow: Flow, sink: ChangeSink): void {
  const places = new Set([...a.docs.keys(), ...b.docs.keys()]);
  for (const place of places) {
    const before = a.docs.get(place)?.values ?? {};
    const after = b.docs.get(place)?.values ?? {};
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
      (key) => stable(before[key] ?? null) !== stable(after[key] ?? null),
    );
    if (keys.length > 0) sink.emit("documentation-changed", flow, place, `${keys.join(", ")} changed`);
  }
}

/** `integer` is a subset of `number`: number → integer narrows, integer → number widens. */
function covers(types: Set<string>, type: string): boolean {
  return types.has(type) || (type === "integer" && types.has("number"));
}

function compareTypes(
  before: Set<string> | undefined,
  after: Set<string> | undefined,
  flow: Flow,
  here: string,
  sink: ChangeSink,
): void {
  const show = (types: Set<string> | undefined) => (types ? [...types].join(" | ") : "any");
  if (!before && !after) return;
  const removed = before ? [...before].filter((t) => !after || !covers(after, t)) : ["any"];
  const added = after ? [...after].filter((t) => !before || !covers(before, t)) : ["any"];
  if (!before && after) return sink.emit("type-narrowed", flow, here, `type any → ${show(after)}`);
  if (before && !after) return sink.emit("type-widened", flow, here, `type ${show(before)} → any`);
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

function compareKeywords(a: SchemaView, b: SchemaView, flow: Flow, sink: ChangeSink): void {
  const keys = new Set([...a.keywords.keys(), ...b.keywords.keys()]);
  for (const key of keys) {
    const before = a.keywords.get(key);
    const after = b.keywords.get(key);
    if (before && after && stable(before.value) === stable(after.value)) continue;
    const where = locationOf((after ?? before)!.at);
    const from = before?.value;
    const to = after?.value;
    if (key === "enum") compareEnum(from, to, flow, where, sink);
    else if (key === "const") {
      if (from !== undefined && to !== undefined)
        sink.emit("const-changed", flow, where, `const ${code(from)} → ${code(to)}`);
      else
        sink.emit(
          to !== undefined ? "constraint-narrowed" : "constraint-widened",
          flow,
          where,
          to !== undefined ? `const ${code(to)} added` : `const ${code(from!)} removed`,
        );
    } else if (
      (BOUND_KEYWORDS.min as readonly string[]).includes(key) ||
      (BOUND_KEYWORDS.max as readonly string[]).includes(key)
    ) {
      compareBound(key, from, to, flow, where, sink);
    } else if (key === "pattern" || key === "format" || key === "multipleOf") {
      if (from !== undefined && to !== undefined)
        sink.emit("constraint-changed", flow, where, `${key} ${code(from)} → ${code(to)}`);
      else
        sink.emit(
          to !== undefined ? "constraint-narrowed" : "constraint-widened",
          flow,
          where,
          to !== undefined ? `${key} ${code(to)} added` : `${key} ${code(from!)} removed`,
        );
    } else if (key === "uniqueItems") {
      sink.emit(
        to === true ? "constraint-narrowed" : "constraint-widened",
        flow,
        where,
        `uniqueItems ${code(from ?? false)} → ${code(to ?? false)}`,
      );
    } else if (key === "default") {
      sink.emit(
        "default-changed",
        flow,
        where,
        `default ${from === undefined ? "none" : code(from)} → ${to === undefined ? "none" : code(to)}`,
      );
    } else if (key.startsWith("x-")) {
      sink.emit(
        "extension-changed",
        flow,
        where,
        `${key} ${from === undefined ? "added" : to === undefined ? "removed" : "changed"}`,
      );
    } else {
      const kindOfKeyword = HANDLED_KEYWORDS.has(key) ? "handled" : "unrecognised";
      sink.emit(
        "keyword-changed",
        flow,
        where,
        `${key} changed (${kindOfKeyword} keyword: ${from === undefined ? "none" : code(from)} → ${to === undefined ? "none" : code(to)})`,
      );
    }
  }
}

function compareEnum(from: Json | undefined, to: Json | undefined, flow: Flow, where: string, sink: ChangeSink): void {
  if (!Array.isArray(from) || !Array.isArray(to)) {
    if (Array.isArray(to)) sink.emit("constraint-narrowed", flow, where, `enum added: ${to.map(code).join(", ")}`);
    else if (Array.isArray(from))
      sink.emit("constraint-widened", flow, where, `enum removed (was ${from.map(code).join(", ")})`);
    return;
  }
  const before = new Set(from.map(stable));
  const after = new Set(to.map(stable));
  const removed = from.filter((value) => !after.has(stable(value)));
  const added = to.filter((value) => !before.has(stable(value)));
  if (removed.length > 0)
    sink.emit("enum-value-removed", flow, where, `enum values removed: ${removed.map(code).join(", ")}`);
  if (added.length > 0) {
    const hint = flow === "toPartner" ? "; partners reading this value may not handle it" : "";
    sink.emit("enum-value-added", flow, where, `enum values added: ${added.map(code).join(", ")}${hint}`);
  }
}

function compareBound(
  key: string,
  from: Json | undefined,
  to: Json | undefined,
  flow: Flow,
  where: string,
  sink: ChangeSink,
): void {
  const isMin = (BOUND_KEYWORDS.min as readonly string[]).includes(key);
  const text = `${key} ${from === undefined ? "none" : code(from)} → ${to === undefined ? "none" : code(to)}`;
  if (from === undefined) return sink.emit("constraint-narrowed", flow, where, text);
  if (to === undefined) return sink.emit("constraint-widened", flow, where, text);
  if (typeof from !== "number" || typeof to !== "number") return sink.emit("constraint-changed", flow, where, text);
  const narrower = isMin ? to > from : to < from;
  sink.emit(narrower ? "constraint-narrowed" : "constraint-widened", flow, where, text);
}

function compareProperties(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  for (const [name, property] of a.properties) {
    if (!b.properties.has(name)) sink.emit("field-removed", flow, locationOf(property), `field \`${name}\` removed`);
  }
  for (const [name, property] of b.properties) {
    const old = a.properties.get(name);
    if (!old) {
      const required = b.required.has(name);
      sink.emit(
        required ? "field-added-required" : "field-added-optional",
        flow,
        locationOf(property),
        `${required ? "required" : "optional"} field \`${name}\` added`,
      );
    } else {
      compareSchemas(cmp, old, property, flow, sink, depth + 1);
    }
  }
  const place = (name: string) =>
    locationOf(
      b.properties.get(name) ?? a.properties.get(name) ?? { origin: b.node.origin, path: `${b.node.path}.${name}` },
    );
  for (const name of b.required) {
    const isNewProperty = b.properties.has(name) && !a.properties.has(name);
    if (!a.required.has(name) && !isNewProperty)
      sink.emit("field-became-required", flow, place(name), `field \`${name}\` became required`);
  }
  for (const name of a.required) {
    const wasRemoved = a.properties.has(name) && !b.properties.has(name);
    if (!b.required.has(name) && !wasRemoved)
      sink.emit("field-became-optional", flow, place(name), `field \`${name}\` became optional`);
  }
}

function compareAdditional(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  depth: number,
): void {
  const before = a.additionalProperties;
  const after = b.additionalProperties;
  if (!before && !after) return;
  const allowsAny = (node?: SchemaNode) => !node || node.schema === true;
  const where = locationOf(after ?? before!);
  if (allowsAny(before) && allowsAny(after)) return;
  if (after?.schema === false && before?.schema !== false)
    return sink.emit("constraint-narrowed", flow, where, "additional properties no longer allowed");
  if (before?.schema === false && after?.schema !== false)
    return sink.emit("constraint-widened", flow, where, "additional properties now allowed");
  if (before && after) return compareSchemas(cmp, before, after, flow, sink, depth + 1);
  sink.emit(
    after ? "constraint-narrowed" : "constraint-widened",
    flow,
    where,
    `additionalProperties schema ${after ? "added" : "removed"}`,
  );
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
    const conditionChanged = stable(before.if?.schema ?? null) !== stable(after.if?.schema ?? null);
    if (conditionChanged) {
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
          `\`${part}\` ${y ? "added" : "removed"}`,
        );
    }
  }
}
