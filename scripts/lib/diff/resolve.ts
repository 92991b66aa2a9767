/**
 * The normalised view of a schema the comparison works on: `$ref`s followed (through devkit/src/refs.ts),
 * allOf members merged (so a field moved between members is not a change), and the three spellings of
 * "null allowed" (`nullable: true` in 3.0, `type: [X, "null"]`, `oneOf: [{type: "null"}, X]`) made one flag.
 */

import { isObject, type Json, type JsonObject, lookup } from "partner-api-devkit/cli";

export { isObject, type Json, type JsonObject };
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
  const seen = new Set<string>();
  while (isObject(current.schema) && typeof current.schema.$ref === "string") {
    const ref = current.schema.$ref;
    if (seen.has(ref)) return { schema: {}, origin: ref, path: "" }; // A $ref loop with no schema: any value.
    seen.add(ref);
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
  "xml",
]);

/** Keywords that say nothing about valid instances: identifiers and definitions reached only through `$ref`. */
const IGNORED_KEYWORDS = new Set([
  "$schema",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$defs",
  "definitions",
  "$vocabulary",
]);

/** Keywords whose value is a schema that constrains the same instance or its members. */
export const SUBSCHEMA_KEYWORDS = [
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "contains",
  "contentSchema",
  "items",
] as const;
export type SubschemaKeyword = (typeof SUBSCHEMA_KEYWORDS)[number];

/** Keys folded into the view's structure; anything else is compared as a keyword. */
const STRUCTURAL = new Set<string>([
  "$ref",
  "type",
  "nullable",
  "properties",
  "required",
  "prefixItems",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "if",
  "then",
  "else",
  "readOnly",
  "writeOnly",
  "enum",
  "not",
  ...SUBSCHEMA_KEYWORDS,
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
  /** Undefined means any type. Never holds "null": see `nullable`. */
  types?: Set<string>;
  nullable: boolean;
  /** The `false` schema: no value is valid. */
  never: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  properties: Map<string, SchemaNode>;
  required: Set<string>;
  /** Enum values other than null, with the node declaring the enum. */
  enum?: { values: Json[]; at: SchemaNode };
  /** Keyword → the node (schema object) declaring it, for constraint-like keywords. */
  keywords: Map<string, { value: Json; at: SchemaNode }>;
  subschemas: Map<SubschemaKeyword, SchemaNode>;
  /** `not`: what instances must not match (compared in the opposite direction). */
  not?: SchemaNode;
  prefixItems?: { nodes: SchemaNode[]; at: SchemaNode };
  patternProperties: Map<string, SchemaNode>;
  dependentSchemas: Map<string, SchemaNode>;
  variants: { keyword: "oneOf" | "anyOf"; nodes: SchemaNode[]; at: SchemaNode }[];
  /** The allOf members written on the schema itself (not nested ones), by name, for member added/removed. */
  allOf: Map<string, { node: SchemaNode; annotationOnly: boolean }>;
  conditionals: Conditional[];
  /** Per declaring location, the documentation keywords found there. */
  docs: Map<string, { values: JsonObject; at: SchemaNode }>;
}

/** Builds the view of a schema node (resolving `$ref`s, its own and its allOf members'). */
export function viewOf(document: Document, input: SchemaNode): SchemaView {
  const node = input.members ? input : resolveNode(document, input);
  const view: SchemaView = {
    node,
    nullable: false,
    never: false,
    readOnly: false,
    writeOnly: false,
    properties: new Map(),
    required: new Set(),
    keywords: new Map(),
    subschemas: new Map(),
    patternProperties: new Map(),
    dependentSchemas: new Map(),
    variants: [],
    allOf: new Map(),
    conditionals: [],
    docs: new Map(),
  };
  fold(document, node, view, new Set(node.origin.startsWith("#/") && !node.path ? [node.origin] : []), true);
  if (view.types?.has("null")) {
    view.nullable = true;
    view.types.delete("null");
    if (view.types.size === 0) view.types = new Set(["null"]);
  }
  return view;
}

/** Keeps the types both `view` and `types` allow (`type` again, or an allOf member's): integer is a number. */
function allowTypes(view: SchemaView, types: Set<string>): void {
  if (!view.types) {
    view.types = types;
    return;
  }
  const both = new Set([...view.types].filter((t) => types.has(t) || (t === "integer" && types.has("number"))));
  for (const t of types) if (t === "integer" && view.types.has("number")) both.add(t);
  view.types = both;
}

/** The one type a schema names when it says nothing else (documentation aside), else undefined. */
function bareType(value: Json): string | undefined {
  if (!isObject(value) || typeof value.type !== "string") return undefined;
  return Object.keys(value).every((key) => key === "type" || DOC_KEYWORDS.has(key)) ? value.type : undefined;
}

const isNullSchema = (value: Json): boolean =>
  isObject(value) &&
  (value.type === "null" || (Array.isArray(value.type) && value.type.length === 1 && value.type[0] === "null")) &&
  Object.keys(value).every((key) => key === "type" || DOC_KEYWORDS.has(key));

/** A member adds no constraint when it holds only documentation and extensions. */
function annotationOnly(value: Json): boolean {
  return isObject(value) && Object.keys(value).every((key) => DOC_KEYWORDS.has(key) || key.startsWith("x-"));
}

/** An allOf member's name: the component it references, else its position among the inline members. */
function memberName(value: Json, inlineIndex: number): string {
  if (isObject(value) && typeof value.$ref === "string") return value.$ref.split("/").pop()!;
  return `inline ${inlineIndex}`;
}

/**
 * Folds `node` into `view`. `visiting` holds the components on the current allOf chain: a member that refers
 * back to one of them (a self-referencing allOf) adds nothing new and is skipped instead of looping.
 */
function fold(document: Document, node: SchemaNode, view: SchemaView, visiting: Set<string>, top: boolean): void {
  if (node.members) {
    for (const member of node.members) foldMember(document, member, view, visiting);
    return;
  }
  const schema = node.schema;
  if (!isObject(schema)) {
    // `true` allows anything (as `{}`); `false` allows nothing.
    if (schema === false) view.never = true;
    return;
  }
  const docs: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DOC_KEYWORDS.has(key)) docs[key] = value;
  }
  if (Object.keys(docs).length > 0) view.docs.set(locationOf(node), { values: docs, at: node });

  if (schema.type !== undefined)
    allowTypes(view, new Set(Array.isArray(schema.type) ? schema.type.map(String) : [String(schema.type)]));
  if (schema.nullable === true) view.nullable = true;
  if (schema.readOnly === true) view.readOnly = true;
  if (schema.writeOnly === true) view.writeOnly = true;
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
  if (Array.isArray(schema.enum) && !view.enum) {
    if (schema.enum.includes(null)) view.nullable = true;
    view.enum = { values: schema.enum.filter((value) => value !== null), at: node };
  }
  for (const keyword of SUBSCHEMA_KEYWORDS) {
    const value = schema[keyword];
    if (value === undefined || view.subschemas.has(keyword)) continue;
    // OpenAPI 3.0 and draft 4 tuples (`items: [...]`) are prefixItems in 2020-12.
    if (keyword === "items" && Array.isArray(value)) {
      if (!view.prefixItems)
        view.prefixItems = { nodes: value.map((item, i) => child(node, item, `[${i}]`)), at: node };
      continue;
    }
    view.subschemas.set(keyword, child(node, value, keyword === "items" ? "[]" : `<${keyword}>`));
  }
  if (schema.not !== undefined && !view.not) view.not = child(node, schema.not, "<not>");
  if (Array.isArray(schema.prefixItems) && !view.prefixItems) {
    view.prefixItems = { nodes: schema.prefixItems.map((item, i) => child(node, item, `[${i}]`)), at: node };
  }
  for (const [keyword, target] of [
    ["patternProperties", view.patternProperties],
    ["dependentSchemas", view.dependentSchemas],
  ] as const) {
    const map = schema[keyword];
    if (!isObject(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      if (!target.has(key)) target.set(key, child(node, value, `<${keyword} ${key}>`));
    }
  }
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    const nonNull = list.filter((variant) => !isNullSchema(variant));
    if (nonNull.length < list.length) view.nullable = true;
    // `oneOf: [{type: "null"}, X]` is X with null allowed: fold X in, so nothing inside X looks changed.
    if (nonNull.length === 1 && nonNull.length < list.length) {
      foldMember(document, child(node, nonNull[0]!, ""), view, visiting);
      continue;
    }
    // Variants that only name a type are a list of types (`oneOf: [{type: string}, {type: integer}]` is
    // `type: [string, integer]`), for oneOf as long as no value matches two of them (integer is a number).
    const bare = nonNull.map(bareType);
    if (bare.length > 1 && bare.every((type) => type !== undefined)) {
      const types = new Set(bare as string[]);
      const overlapping = types.has("integer") && types.has("number");
      if (types.size === bare.length && (keyword === "anyOf" || !overlapping)) {
        allowTypes(view, types);
        continue;
      }
    }
    view.variants.push({
      keyword,
      at: node,
      nodes: nonNull.map((variant, i) => child(node, variant, `<${keyword} ${variantName(variant, i)}>`)),
    });
  }
  if (schema.if !== undefined || schema.then !== undefined || schema.else !== undefined) {
    view.conditionals.push({
      at: child(node, schema, ""),
      if: schema.if === undefined ? undefined : child(node, schema.if, ".if"),
      then: schema.then === undefined ? undefined : child(node, schema.then, ".then"),
      else: schema.else === undefined ? undefined : child(node, schema.else, ".else"),
    });
  }
  for (const [key, value] of Object.entries(schema)) {
    if (STRUCTURAL.has(key) || DOC_KEYWORDS.has(key) || IGNORED_KEYWORDS.has(key)) continue;
    if (!view.keywords.has(key)) view.keywords.set(key, { value, at: node });
  }
  if (Array.isArray(schema.allOf)) {
    let inline = 0;
    schema.allOf.forEach((member, i) => {
      const name = memberName(member, isObject(member) && typeof member.$ref === "string" ? 0 : inline++);
      const memberNode = child(node, member, `<allOf ${i}>`);
      if (top) view.allOf.set(name, { node: memberNode, annotationOnly: annotationOnly(member) });
      foldMember(document, memberNode, view, visiting);
    });
  }
}

function foldMember(document: Document, member: SchemaNode, view: SchemaView, visiting: Set<string>): void {
  const ref = isObject(member.schema) && typeof member.schema.$ref === "string" ? member.schema.$ref : undefined;
  if (ref && visiting.has(ref)) return;
  const next = ref ? new Set([...visiting, ref]) : visiting;
  fold(document, member.members ? member : resolveNode(document, member), view, next, false);
}

/** A variant is named by the component it references, so reordering variants is not a change. */
export function variantName(variant: Json, index: number): string {
  if (isObject(variant) && typeof variant.$ref === "string") return variant.$ref.split("/").pop()!;
  return String(index);
}
