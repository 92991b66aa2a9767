/**
 * Equivalent ways of writing one constraint, brought to one form before two documents are compared, so a rewrite
 * that changes no instance's validity reports nothing.
 *
 * A subschema applied to the same instance as its object (a `dependentSchemas` entry, `then`, `else`) does not
 * declare fields partners read: the object does. Its `properties` only constrain the object's own fields, so:
 *
 * - `not: { required: [p], properties: { p: S } }` (p present and matching S is refused) is
 *   `properties: { p: { not: S } }` (p, when present, must not match S);
 * - a field's constraint there is read together with the object's own declaration of the field: with the object
 *   saying `type: [string, "null"]`, `{ not: { type: "null" } }` and `{ type: string }` both say "a string".
 *
 * Anything else is left as written (and compared as written).
 */
import { isObject, type Json, type JsonObject } from "./resolve.ts";

const TYPE_ONLY = (schema: JsonObject): boolean =>
  Object.keys(schema).every((key) => key === "type" || key === "description");

/** The list of types a schema written as `{ type }` (plus a description) allows, or undefined. */
function typesOf(schema: Json | undefined): string[] | undefined {
  if (!isObject(schema) || !TYPE_ONLY(schema)) return undefined;
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type) && type.every((entry) => typeof entry === "string")) return type as string[];
  return undefined;
}

/** `not: { required: [p], properties: { p: S } }` → `properties: { p: { not: S } }`, in place. */
function liftNot(subschema: JsonObject): void {
  const not = subschema.not;
  if (!isObject(not)) return;
  if (!Object.keys(not).every((key) => key === "required" || key === "properties" || key === "description")) return;
  const required = not.required;
  const properties = not.properties;
  if (!Array.isArray(required) || required.length !== 1 || typeof required[0] !== "string") return;
  if (!isObject(properties) || Object.keys(properties).length !== 1) return;
  const name = required[0];
  const inner = properties[name];
  if (inner === undefined) return;
  const own = isObject(subschema.properties) ? subschema.properties : {};
  if (own[name] !== undefined) return;
  delete subschema.not;
  subschema.properties = { ...own, [name]: { not: inner } };
}

/** A field's constraint in a subschema, read with the object's own `type` list for it: the types it leaves. */
function narrowed(constraint: Json, declared: string[]): string[] | undefined {
  const allowed = typesOf(constraint);
  if (allowed)
    return declared.filter((type) => allowed.includes(type) || (type === "integer" && allowed.includes("number")));
  if (isObject(constraint) && Object.keys(constraint).length === 1 && constraint.not !== undefined) {
    const refused = typesOf(constraint.not);
    if (refused)
      return declared.filter((type) => !refused.includes(type) && !(type === "integer" && refused.includes("number")));
  }
  return undefined;
}

function rewriteApplied(subschema: Json | undefined, object: JsonObject): void {
  if (!isObject(subschema)) return;
  liftNot(subschema);
  const own = subschema.properties;
  const declared = object.properties;
  if (!isObject(own) || !isObject(declared)) return;
  for (const [name, constraint] of Object.entries(own)) {
    const types = typesOf(declared[name]);
    if (!types) continue;
    const left = narrowed(constraint, types);
    if (left === undefined || left.length === 0) continue;
    const description =
      isObject(constraint) && typeof constraint.description === "string" ? constraint.description : undefined;
    own[name] = {
      type: left.length === 1 ? (left[0] as string) : left,
      ...(description === undefined ? {} : { description }),
    };
  }
}

function visit(value: Json, seen: Set<JsonObject>): void {
  if (Array.isArray(value)) {
    for (const entry of value) visit(entry, seen);
    return;
  }
  if (!isObject(value) || seen.has(value)) return;
  seen.add(value);
  if (isObject(value.properties)) {
    if (isObject(value.dependentSchemas))
      for (const entry of Object.values(value.dependentSchemas)) rewriteApplied(entry, value);
    rewriteApplied(value.then, value);
    rewriteApplied(value.else, value);
  }
  for (const entry of Object.values(value)) visit(entry, seen);
}

/** A copy of the document with equivalent constraint forms brought to one (the input is left as it was). */
export function withEquivalentsFolded<D extends JsonObject>(document: D): D {
  const copy = structuredClone(document);
  visit(copy, new Set());
  return copy;
}
