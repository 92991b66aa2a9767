/**
 * What the schema-keyword detectors share: the keywords the family judges, a keyword's change between two schema
 * views, and a subschema's presence. The family judges one schema pair per detector, one module per keyword
 * family beside this one: types and formats (types.ts), values (values.ts), constraints (constraints.ts),
 * patterns (patterns.ts), arrays (arrays.ts), object shape (object-shape.ts), annotations (annotations.ts) and
 * composition (composition.ts); each names the oasdiff rule a change is where the rules its check covers differ
 * in level.
 */
import { allowsAny, code, stable } from "../../pairs.ts";
import { locationOf, type SchemaNode, type SchemaView, type SubschemaKeyword } from "../../resolve.ts";

export const LENGTH_BOUNDS = {
  minLength: "min",
  maxLength: "max",
  minItems: "min",
  maxItems: "max",
  minProperties: "min",
  maxProperties: "max",
  minContains: "min",
  maxContains: "max",
} as const;
export const RANGE_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

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

/** The keyword's value on each side and where the head (else the base) declares it. */
export function keyword(a: SchemaView, b: SchemaView, key: string) {
  const before = a.keywords.get(key);
  const after = b.keywords.get(key);
  if (!before && !after) return undefined;
  if (before && after && stable(before.value) === stable(after.value)) return undefined;
  const from = before?.value;
  const to = after?.value;
  return { from, to, where: locationOf((after ?? before)!.at), text: `${key} ${code(from)} → ${code(to)}` };
}

/** One keyword's change between two schema views. */
export type KeywordChange = NonNullable<ReturnType<typeof keyword>>;

/**
 * A subschema appearing, disappearing or becoming `false`: the walk compares it when it is on both sides; this
 * judges its presence. `opened`: it was `false` and is no longer.
 */
export function presence(
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
