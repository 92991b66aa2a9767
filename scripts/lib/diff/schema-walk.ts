/**
 * Walks two resolved JSON Schemas (OpenAPI 3.0 and 3.1) side by side in one direction, handing each pair of
 * schemas and each pair of properties to the detectors (checks/), then descending into the subschemas both
 * sides have. The walk decides where to go and in which context (a property the reader ignores, the inside of
 * a `not`, a response header's values); the detectors decide what changed.
 */
import { type Change, ChangeSink } from "./changes.ts";
import type { Flow } from "./checks/define.ts";
import { headerValues } from "./checks/parameters.ts";
import { fields } from "./checks/properties.ts";
import { allowsAny, type Document, type PairKind, type PairOf, type Pairs, type SchemaContext } from "./pairs.ts";
import { detectorsFor, findCheck, type Kind } from "./registry.ts";
import {
  isObject,
  type Json,
  locationOf,
  resolveNode,
  type SchemaNode,
  type SchemaView,
  SUBSCHEMA_KEYWORDS,
  variantName,
  viewOf,
} from "./resolve.ts";
import { HEADER_VALUE_KINDS, INVERSE_KINDS } from "./walk-kinds.ts";

/** Hands a pair to every detector that judges its kind, reporting into `sink` in direction `flow`. */
export function judge<K extends PairKind>(kind: K, pair: Pairs[K], flow: Flow, sink: ChangeSink): void {
  const tagged = { ...pair, on: kind } as PairOf<PairKind>;
  for (const detector of detectorsFor(kind)) detector.run(tagged, sink.out(detector, flow));
}

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

/** Where a walk over one message's schema started: a parameter's, a response header's or a body's. */
export type SchemaRoot = Omit<SchemaContext, "top">;

/**
 * Compares the schema at `before` (in the base document) with `after` (in the head), in direction `flow`, for
 * the parameter, header or body at `root` (`depth` 0 is that root's own schema).
 */
export function compareSchemas(
  cmp: SchemaComparison,
  before: SchemaNode,
  after: SchemaNode,
  flow: Flow,
  sink: ChangeSink,
  root: SchemaRoot,
  depth = 0,
): void {
  if (depth > 64) return; // Deeper than any real contract: stop rather than loop on a pathological cycle.
  const context = `${flow}|${root.in}|${root.textual}|${depth === 0}`;
  const place = `${context}|${identity(cmp.base, before)}|${identity(cmp.head, after)}`;
  if (cmp.active.has(place)) return; // A cycle: the outer visit of this pair reports its changes.
  cmp.active.add(place);
  try {
    const refBefore = pureRef(before.schema);
    const refAfter = pureRef(after.schema);
    if (!refBefore || !refAfter) return compareViews(cmp, before, after, flow, sink, root, depth);
    const key = `${context}|${refBefore}|${refAfter}`;
    const known = cmp.memo.get(key);
    if (known === "in progress") return; // A recursive schema: its changes are reported by the outer visit.
    if (known) return sink.addFrom(known);
    cmp.memo.set(key, "in progress");
    const local = new ChangeSink();
    compareViews(cmp, before, after, flow, local, root, depth);
    cmp.memo.set(key, local.changes);
    sink.addFrom(local.changes);
  } finally {
    cmp.active.delete(place);
  }
}

function pureRef(schema: Json): string | undefined {
  return isObject(schema) && typeof schema.$ref === "string" && Object.keys(schema).length === 1
    ? schema.$ref
    : undefined;
}

/** Compares a response header's schema: changes to its range of values are information only. */
export function compareHeaderSchemas(
  cmp: SchemaComparison,
  before: SchemaNode,
  after: SchemaNode,
  flow: Flow,
  sink: ChangeSink,
): void {
  const values = new ChangeSink((change) =>
    HEADER_VALUE_KINDS.has(change.kind as Kind)
      ? ChangeSink.change(
          headerValues,
          change.flow,
          "header-values-changed",
          change.location,
          `${change.message} (response header values: ${change.check})`,
        )
      : change,
  );
  compareSchemas(cmp, before, after, flow, values, { in: "header", textual: true });
  sink.addFrom(values.changes);
}

function compareViews(
  cmp: SchemaComparison,
  before: SchemaNode,
  after: SchemaNode,
  flow: Flow,
  sink: ChangeSink,
  root: SchemaRoot,
  depth: number,
): void {
  const a = viewOf(cmp.base, before);
  const b = viewOf(cmp.head, after);
  const next = (x: SchemaNode, y: SchemaNode, into: ChangeSink = sink) =>
    compareSchemas(cmp, x, y, flow, into, root, depth + 1);
  judge(
    "schema",
    {
      a,
      b,
      context: { ...root, top: depth === 0 },
      here: locationOf(b.node),
      differs: (x, y) => {
        const local = new ChangeSink();
        next(x, y, local);
        return local.changes.some((change) => !change.documentation);
      },
    },
    flow,
    sink,
  );
  compareProperties(cmp, a, b, flow, sink, next);
  for (const keyword of SUBSCHEMA_KEYWORDS) {
    const x = a.subschemas.get(keyword);
    const y = b.subschemas.get(keyword);
    if (x && y && !allowsAny(x) && !allowsAny(y) && x.schema !== false && y.schema !== false) next(x, y);
  }
  const tupleBefore = a.prefixItems?.nodes ?? [];
  const tupleAfter = b.prefixItems?.nodes ?? [];
  for (let i = 0; i < Math.min(tupleBefore.length, tupleAfter.length); i++) next(tupleBefore[i]!, tupleAfter[i]!);
  // What `not` excludes grows when its schema widens: its changes count the other way round.
  if (a.not && b.not) {
    // oasdiff compares `not` like any subschema, without inverting: its rules do not say this (null).
    const inverted = new ChangeSink((change) => {
      const inverse = INVERSE_KINDS.get(change.kind as Kind);
      if (!inverse) return change;
      const { detector } = findCheck(change.check)!;
      const message = `${change.message} (inside \`not\`)`;
      return ChangeSink.change(detector, change.flow, inverse, change.location, message, null);
    });
    next(a.not, b.not, inverted);
    sink.addFrom(inverted.changes);
  }
  for (const [x, y] of [
    [a.patternProperties, b.patternProperties],
    [a.dependentSchemas, b.dependentSchemas],
  ] as const)
    for (const [key, node] of x) {
      const match = y.get(key);
      if (match) next(node, match);
    }
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const listsBefore = a.variants.filter((v) => v.keyword === keyword);
    const listsAfter = b.variants.filter((v) => v.keyword === keyword);
    for (let i = 0; i < Math.min(listsBefore.length, listsAfter.length); i++) {
      const named = new Map(listsAfter[i]!.nodes.map((node, index) => [variantName(node.schema, index), node]));
      listsBefore[i]!.nodes.forEach((node, index) => {
        const match = named.get(variantName(node.schema, index));
        if (match) next(node, match);
      });
    }
  }
  for (let i = 0; i < Math.min(a.conditionals.length, b.conditionals.length); i++)
    for (const part of ["then", "else"] as const) {
      const x = a.conditionals[i]![part];
      const y = b.conditionals[i]![part];
      if (x && y) next(x, y);
    }
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
 * ones in responses (the service never sends them). Changes inside it are reported at level info.
 */
function ignoredBy(flow: Flow, ...views: (SchemaView | undefined)[]): string | undefined {
  if (flow === "toService" && views.some((view) => view?.readOnly)) return "read-only, ignored in requests";
  if (flow === "toPartner" && views.some((view) => view?.writeOnly)) return "write-only, never sent in responses";
  return undefined;
}

function compareProperties(
  cmp: SchemaComparison,
  a: SchemaView,
  b: SchemaView,
  flow: Flow,
  sink: ChangeSink,
  next: (x: SchemaNode, y: SchemaNode, into?: ChangeSink) => void,
): void {
  for (const name of new Set([...a.properties.keys(), ...b.properties.keys()])) {
    const before = a.properties.get(name);
    const after = b.properties.get(name);
    const viewBefore = before && viewOf(cmp.base, before);
    const viewAfter = after && viewOf(cmp.head, after);
    const ignored = ignoredBy(flow, viewBefore, viewAfter);
    const until = before && !after ? deprecatedUntil(cmp.base, before) : undefined;
    const mayGo = until !== undefined && until <= cmp.today;
    judge("property", { name, a, b, before, after, viewBefore, viewAfter, ignored, mayGo }, flow, sink);
    if (!before || !after) continue;
    if (!ignored) {
      next(before, after);
      continue;
    }
    const quiet = new ChangeSink((change) =>
      ["documentation-changed", "mutability-changed", "ignored-field-changed"].includes(change.kind)
        ? change
        : ChangeSink.change(
            fields,
            change.flow,
            "ignored-field-changed",
            change.location,
            `${change.message} (${ignored})`,
          ),
    );
    next(before, after, quiet);
    sink.addFrom(quiet.changes);
  }
}
