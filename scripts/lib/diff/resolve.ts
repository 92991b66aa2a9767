/**
 * Following local `$ref`s in a bundled document, and the normalised view of a schema the comparison
 * works on (allOf members merged, so a field moved between members is not reported as a change).
 */

import { isObject, type Json, type JsonObject, lookup } from "../refs.ts";

export { isObject, type Json, type JsonObject, lookup };
export type Document = JsonObject;

/** Where a schema sits: `origin` is a component pointer or an operation-level place; `path` the field path in it. */
export interface SchemaNode {
  schema: Json;
  origin: string;
  path: string;
  /**
   * Set when allOf members declare the same property more than once (a generic `payload: object`
   * in a shared envelope, narrowed by the event): the property is all of these together.
   */
  members?: SchemaNode[];
}

export function locationOf(node: Pick<SchemaNode, "origin" | "path">): string {
  return node.path ? `${node.origin} ${node.path}` : node.origin;
}

export function child(node: SchemaNode, schema: Json, step: string): SchemaNode {
  return { schema, origin: node.origin, path: `${node.path}${step}` };
}

/** Follows `$ref` chains; a referenced component becomes the new origin, so changes in it are located there. */
export function resolveNode(document: Document, node: SchemaNode): SchemaNode {
  let current = node;
  for (let hops = 0; isObject(current.schema) && typeof current.schema.$ref === "string"; hops++) {
    if (hops > 32) throw new Error(`$ref cycle without a schema at ${locationOf(node)}`);
    const ref = current.schema.$ref;
    current = { schema: lookup(document, ref), origin: ref, path: "" };
  }
  return current;
}

/** Keywords that carry documentation only. */
export const DOC_KEYWORDS = new Set([
  "description",
  "summary",
  "title",
  "examples",
  "example",
  "externalDocs",
  "deprecated",
  "$comment",
]);

const MIN_KEYWORDS = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"] as const;
const MAX_KEYWORDS = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"] as const;
export const BOUND_KEYWORDS = { min: MIN_KEYWORDS, max: MAX_KEYWORDS };

/** Keywords the schema comparison understands; any other keyword is compared as a whole. */
export const HANDLED_KEYWORDS = new Set([
  "$ref",
  "type",
  "properties",
  "required",
  "enum",
  "const",
  "pattern",
  "format",
  "multipleOf",
  "uniqueItems",
  "items",
  "additionalProperties",
  "oneOf",
  "anyOf",
  "allOf",
  "if",
  "then",
  "else",
  "default",
  ...MIN_KEYWORDS,
  ...MAX_KEYWORDS,
  ...DOC_KEYWORDS,
]);

export interface Conditional {
  if?: SchemaNode;
  then?: SchemaNode;
  else?: SchemaNode;
  at: SchemaNode;
}

/** A schema with its allOf members folded in. Each part keeps the node it came from, for locations. */
export interface SchemaView {
  node: SchemaNode;
  /** Undefined means any type. */
  types?: Set<string>;
  properties: Map<string, SchemaNode>;
  required: Set<string>;
  /** Keyword → the node (schema object) declaring it, for constraint-like keywords. */
  keywords: Map<string, { value: Json; at: SchemaNode }>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode;
  variants: { keyword: "oneOf" | "anyOf"; nodes: SchemaNode[]; at: SchemaNode }[];
  conditionals: Conditional[];
  /** Per declaring location, the documentation keywords found there. */
  docs: Map<string, { values: JsonObject; at: SchemaNode }>;
}

/** Builds the view of a schema node (resolving `$ref`s, its own and its allOf members'). */
export function viewOf(document: Document, input: SchemaNode): SchemaView {
  const node = input.members ? input : resolveNode(document, input);
  const view: SchemaView = {
    node,
    properties: new Map(),
    required: new Set(),
    keywords: new Map(),
    variants: [],
    conditionals: [],
    docs: new Map(),
  };
  fold(document, node, view, 0);
  return view;
}

function fold(document: Document, node: SchemaNode, view: SchemaView, depth: number): void {
  if (depth > 16) throw new Error(`allOf nested too deep at ${locationOf(node)}`);
  if (node.members) {
    for (const member of node.members) fold(document, resolveNode(document, member), view, depth + 1);
    return;
  }
  const schema = node.schema;
  if (!isObject(schema)) {
    // `true`/`false` schemas: keep them comparable as a keyword.
    view.keywords.set("(boolean schema)", { value: schema, at: node });
    return;
  }
  const docs: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DOC_KEYWORDS.has(key)) docs[key] = value;
  }
  if (Object.keys(docs).length > 0) view.docs.set(locationOf(node), { values: docs, at: node });

  if (schema.type !== undefined) {
    const types = new Set(Array.isArray(schema.type) ? schema.type.map(String) : [String(schema.type)]);
    view.types = view.types ? new Set([...view.types].filter((t) => types.has(t))) : types;
  }
  if (isObject(schema.properties)) {
    for (const [name, property] of Object.entries(schema.properties)) {
      const incoming = child(node, property, `.${name}`);
      const seen = view.properties.get(name);
      view.properties.set(
        name,
        seen
          ? { schema: null, origin: seen.origin, path: seen.path, members: [...(seen.members ?? [seen]), incoming] }
          : incoming,
      );
    }
  }
  if (Array.isArray(schema.required)) for (const name of schema.required) view.required.add(String(name));
  if (schema.items !== undefined && !view.items) view.items = child(node, schema.items, "[]");
  if (schema.additionalProperties !== undefined && !view.additionalProperties) {
    view.additionalProperties = child(node, schema.additionalProperties, ".*");
  }
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const list = schema[keyword];
    if (Array.isArray(list)) {
      view.variants.push({
        keyword,
        at: node,
        nodes: list.map((variant, i) => child(node, variant, `<${keyword} ${variantName(variant, i)}>`)),
      });
    }
  }
  if (schema.if !== undefined || schema.then !== undefined || schema.else !== undefined) {
    const at = child(node, schema, "");
    view.conditionals.push({
      at,
      if: schema.if === undefined ? undefined : child(node, schema.if, ".if"),
      then: schema.then === undefined ? undefined : child(node, schema.then, ".then"),
      else: schema.else === undefined ? undefined : child(node, schema.else, ".else"),
    });
  }
  for (const [key, value] of Object.entries(schema)) {
    if (
      [
        "type",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "oneOf",
        "anyOf",
        "allOf",
        "if",
        "then",
        "else",
        "$ref",
      ].includes(key)
    )
      continue;
    if (DOC_KEYWORDS.has(key)) continue;
    if (!view.keywords.has(key)) view.keywords.set(key, { value, at: node });
  }
  if (Array.isArray(schema.allOf)) {
    schema.allOf.forEach((member, i) => {
      fold(document, resolveNode(document, child(node, member, `<allOf ${i}>`)), view, depth + 1);
    });
  }
}

/** A variant is named by the component it references, so reordering variants is not a change. */
export function variantName(variant: Json, index: number): string {
  if (isObject(variant) && typeof variant.$ref === "string") return variant.$ref.split("/").pop()!;
  return String(index);
}
