/**
 * Boundary values of a JSON Schema, after Schemathesis's coverage phase
 * (src/schemathesis/specs/openapi/coverage/_schema.py): for each keyword, the values at its edge that the schema
 * accepts (positive) and the values just past it that it refuses (negative). A string at minLength and maxLength
 * (and one inside), one shorter and one longer; a number at minimum and maximum (inclusive or exclusive), and one
 * past; each enum value and one that is not; a format's and a pattern's valid and invalid values; an object with
 * only its required properties, with each property at each of its boundaries, with each required property
 * missing; a value of the wrong type.
 *
 * Deterministic: the same seed gives the same values (strings and samples are drawn with `fc.sample` and the
 * seed); no clock, no Math.random. `isValid`, when given, filters the root values (a positive one the validator
 * refuses is dropped, and so is a negative one it accepts), so what the caller sends is what the label says.
 */
import fc from "fast-check";
import { followRefs } from "../contract/refs.ts";
import type { Schema } from "./arbitraries.ts";

/** Why a value was produced: Schemathesis's CoverageScenario names where one fits (generation/meta.py). */
export type Scenario =
  | "enum_value"
  | "const_value"
  | "valid_value"
  | "boolean_value"
  | "null_value"
  | "minimum_length_string"
  | "maximum_length_string"
  | "near_boundary_length_string"
  | "minimum_value"
  | "maximum_value"
  | "near_boundary_number"
  | "minimum_items_array"
  | "maximum_items_array"
  | "object_only_required"
  | "string_below_min_length"
  | "string_above_max_length"
  | "value_below_minimum"
  | "value_above_maximum"
  | "array_below_min_items"
  | "array_above_max_items"
  | "object_above_max_properties"
  | "object_unexpected_properties"
  | "object_missing_required_property"
  | "invalid_enum_value"
  | "invalid_const"
  | "invalid_format"
  | "invalid_pattern"
  | "incorrect_type";

export interface Boundary {
  value: unknown;
  /** True when the schema accepts the value (a positive case), false when it refuses it (negative). */
  positive: boolean;
  scenario: Scenario;
  /** For a person: "name: string at maxLength 12". */
  description: string;
  /** Where in the value the boundary is, as a JSON pointer ("" for the value itself, "/name" for a property). */
  at: string;
}

export interface BoundaryOptions {
  seed: number;
  /** Filters the root values: positives it refuses and negatives it accepts are dropped. */
  isValid?: (value: unknown) => boolean;
  /** The object to vary (e.g. the contract's example); one is built from the schema when omitted. */
  base?: unknown;
  /** Properties of the root object not to vary in positive cases (values chased from answers: ids, BINs). */
  fixed?: ReadonlySet<string>;
}

/** No string longer than this is built: a maxLength past it gets no "longer than maxLength" case. */
export const MAX_BOUNDARY_STRING = 4096;
/** Objects nested deeper than this are kept as their base value. */
const MAX_DEPTH = 4;
/** Enum values listed one by one up to this many; past it, the first ones. */
const MAX_ENUM_VALUES = 16;

const LETTERS = "abcdefghijklmnopqrstuvwxyz".split("");

/** A value each format accepts, and values it refuses (checked against ajv-formats by the unit test). */
const FORMAT_VALUES: Record<string, { valid: string; invalid: string }> = {
  date: { valid: "2024-02-29", invalid: "2024-02-30" },
  "date-time": { valid: "2024-02-29T12:34:56Z", invalid: "2024-13-45T25:61:00Z" },
  time: { valid: "12:34:56Z", invalid: "25:61:00" },
  email: { valid: "someone@example.com", invalid: "not-an-email" },
  uri: { valid: "https://example.com/path", invalid: "not a uri" },
  "uri-reference": { valid: "/path", invalid: "\\\\not a reference" },
  uuid: { valid: "3f2504e0-4f89-41d3-9a0c-0305e82c3301", invalid: "3f2504e0-4f89-41d3-9a0c" },
  hostname: { valid: "example.com", invalid: "-not-a-host-.example" },
  ipv4: { valid: "192.0.2.1", invalid: "256.0.2.1" },
  ipv6: { valid: "2001:db8::1", invalid: "2001:db8:::1" },
};

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  if (schema.properties || schema.required) return ["object"];
  if (schema.items) return ["array"];
  if (typeof schema.minLength === "number" || typeof schema.maxLength === "number" || schema.pattern) return ["string"];
  if (typeof schema.minimum === "number" || typeof schema.maximum === "number") return ["number"];
  return [];
}

/** The schema with its $refs followed and its allOf parts (not if/then) merged into one. */
function resolve(document: unknown, raw: Schema, depth = 0): Schema {
  const schema = followRefs<Schema>(document, raw);
  const parts = ((schema.allOf ?? []) as Schema[]).filter((part) => !(part.if && part.then));
  // An allOf that refers to itself is merged this deep and no deeper.
  if (parts.length === 0 || depth > MAX_DEPTH) return schema;
  const merged: Schema = {
    ...schema,
    allOf: ((schema.allOf ?? []) as Schema[]).filter((part) => part.if && part.then),
  };
  for (const part of parts) {
    const resolved = resolve(document, part, depth + 1);
    for (const [key, value] of Object.entries(resolved)) {
      if (key === "properties") merged.properties = { ...(merged.properties ?? {}), ...(value as object) };
      else if (key === "required")
        merged.required = [...new Set([...((merged.required ?? []) as string[]), ...(value as string[])])];
      else merged[key] ??= value;
    }
  }
  return merged;
}

/** The next double after `x`, up or down. */
function nextAfter(x: number, up: boolean): number {
  if (x === 0) return up ? Number.MIN_VALUE : -Number.MIN_VALUE;
  const buffer = new Float64Array([x]);
  const bits = new BigInt64Array(buffer.buffer);
  bits[0] = bits[0]! + (x > 0 === up ? 1n : -1n);
  return buffer[0]!;
}

class Generator {
  private draws = 0;
  private readonly document: unknown;
  private readonly seed: number;
  constructor(document: unknown, seed: number) {
    this.document = document;
    this.seed = seed;
  }

  /** One value of an arbitrary, the same for the same seed and call order. */
  private sample<T>(arbitrary: fc.Arbitrary<T>, count = 1): T[] {
    this.draws++;
    return fc.sample(arbitrary, { seed: (this.seed + this.draws * 7919) % 2 ** 31, numRuns: count });
  }

  /** Strings matching a pattern (200, seeded); none when the pattern is one fast-check cannot generate from. */
  private matching(source: string): string[] {
    const pattern = regExpOf(source);
    if (pattern === undefined) return [];
    try {
      return this.sample(fc.stringMatching(pattern), 200);
    } catch {
      // A feature stringMatching does not support (lookarounds, back-references): no value rather than a crash.
      return [];
    }
  }

  /** A string the schema's pattern and format accept, of exactly `length` characters; undefined when none is found. */
  stringOfLength(schema: Schema, length: number): string | undefined {
    if (length < 0 || length > MAX_BOUNDARY_STRING) return undefined;
    if (typeof schema.pattern === "string") {
      return this.matching(schema.pattern).find((value) => [...value].length === length);
    }
    const format = typeof schema.format === "string" ? FORMAT_VALUES[schema.format] : undefined;
    if (format) return [...format.valid].length === length ? format.valid : undefined;
    return this.sample(fc.array(fc.constantFrom(...LETTERS), { minLength: length, maxLength: length }))[0]?.join("");
  }

  /** A string the schema accepts (within its length bounds), or undefined. */
  validString(schema: Schema): string | undefined {
    const min = typeof schema.minLength === "number" ? schema.minLength : 0;
    const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
    if (typeof schema.pattern === "string") {
      return this.matching(schema.pattern).find((value) => {
        const length = [...value].length;
        return length >= min && length <= max;
      });
    }
    const format = typeof schema.format === "string" ? FORMAT_VALUES[schema.format] : undefined;
    if (format) return format.valid;
    return this.stringOfLength(schema, Math.max(min, Math.min(max, 8)));
  }

  /** A value the schema accepts, built from its first positive boundary; undefined when there is none. */
  validValue(raw: Schema, depth: number): unknown {
    if (depth > 2 * MAX_DEPTH) return null;
    const schema = resolve(this.document, raw);
    if (schema.const !== undefined) return schema.const;
    if (Array.isArray(schema.enum)) return schema.enum[0];
    const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (branches?.length) return this.validValue(branches[0]!, depth + 1);
    const type = typesOf(schema)[0];
    switch (type) {
      case "string":
        return this.validString(schema);
      case "integer":
      case "number": {
        const low = schema.minimum ?? (typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 0);
        const high =
          schema.maximum ?? (typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - 1 : low);
        const value = Math.min(Math.max(low, 1), high);
        return type === "integer" ? Math.ceil(value) : value;
      }
      case "boolean":
        return true;
      case "null":
        return null;
      case "array": {
        const count = schema.minItems ?? 0;
        const item = schema.items && count > 0 ? this.validValue(schema.items, depth + 1) : undefined;
        return Array.from({ length: count }, () => item);
      }
      case "object":
        return this.baseObject(schema, depth);
      default:
        return null;
    }
  }

  /** An object with its required properties (and those a condition then requires), each at a valid value. */
  baseObject(schema: Schema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (depth > MAX_DEPTH) return out;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[])
      out[name] = properties[name] ? this.validValue(properties[name], depth + 1) : "value";
    return out;
  }

  /** A value of another JSON type than the schema allows, or undefined when it allows every type. */
  wrongType(schema: Schema): unknown {
    const types = new Set(typesOf(schema));
    if (types.size === 0) return undefined;
    if (types.has("number")) types.add("integer");
    const candidates: [string, unknown][] = [
      ["string", 12345],
      ["integer", "text"],
      ["number", "text"],
      ["boolean", "true"],
      ["object", ["an", "array"]],
      ["array", { an: "object" }],
    ];
    for (const [type, value] of candidates) if (types.has(type)) return schemaAllows(types, value) ? undefined : value;
    return "text";
  }

  /** The boundaries of a schema, with `at` relative to the value. */
  boundaries(raw: Schema, depth: number, base?: unknown, fixed?: ReadonlySet<string>): Boundary[] {
    // A schema that refers to itself (through oneOf, items…) ends here.
    if (depth > 2 * MAX_DEPTH) return [];
    const schema = resolve(this.document, raw);
    const out: Boundary[] = [];
    const push = (positive: boolean, scenario: Scenario, value: unknown, description: string, at = "") => {
      if (value !== undefined) out.push({ value, positive, scenario, description, at });
    };
    const types = typesOf(schema);
    if (schema.const !== undefined) {
      push(true, "const_value", schema.const, `the const ${JSON.stringify(schema.const)}`);
      push(false, "invalid_const", notOneOf([schema.const]), "a value other than the const");
    } else if (Array.isArray(schema.enum)) {
      for (const value of schema.enum.slice(0, MAX_ENUM_VALUES))
        push(true, "enum_value", value, `enum value ${JSON.stringify(value)}`);
      push(false, "invalid_enum_value", notOneOf(schema.enum), "a value not in the enum");
    } else if (schema.oneOf || schema.anyOf) {
      const key = schema.oneOf ? "oneOf" : "anyOf";
      for (const [index, branch] of ((schema[key] ?? []) as Schema[]).entries())
        for (const boundary of this.boundaries(branch, depth + 1).filter((item) => item.positive))
          out.push({ ...boundary, description: `${key} branch ${index}: ${boundary.description}` });
    } else {
      for (const type of types) {
        if (type === "string") this.stringBoundaries(schema, push, base);
        else if (type === "integer" || type === "number") numberBoundaries(schema, type === "integer", push);
        else if (type === "boolean") {
          push(true, "boolean_value", true, "true");
          push(true, "boolean_value", false, "false");
        } else if (type === "null") push(true, "null_value", null, "null");
        else if (type === "array") this.arrayBoundaries(schema, depth, push);
        else if (type === "object" && depth <= MAX_DEPTH)
          out.push(...this.objectBoundaries(schema, depth, base, fixed));
      }
    }
    if (!schema.oneOf && !schema.anyOf)
      push(
        false,
        "incorrect_type",
        this.wrongType(schema),
        `a value of the wrong type (${types.join(" or ")} expected)`,
      );
    return out;
  }

  private stringBoundaries(
    schema: Schema,
    push: (positive: boolean, scenario: Scenario, value: unknown, description: string) => void,
    base?: unknown,
  ): void {
    const min = typeof schema.minLength === "number" ? schema.minLength : undefined;
    const max = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
    const lengths = new Set<number>();
    const at = (length: number, scenario: Scenario, description: string) => {
      if (lengths.has(length) || length > MAX_BOUNDARY_STRING) return;
      lengths.add(length);
      push(true, scenario, this.stringOfLength(schema, length), description);
    };
    if (min !== undefined) {
      at(min, "minimum_length_string", `a string at minLength ${min}`);
      if (max === undefined || min + 1 <= max)
        at(min + 1, "near_boundary_length_string", `a string of minLength + 1 (${min + 1})`);
    }
    if (max !== undefined) {
      at(max, "maximum_length_string", `a string at maxLength ${max}`);
      if (max - 1 > 0 && (min === undefined || max - 1 >= min))
        at(max - 1, "near_boundary_length_string", `a string of maxLength - 1 (${max - 1})`);
    }
    const valid = this.validString(schema);
    if (lengths.size === 0) push(true, "valid_value", valid, describeValid(schema));
    // One character short of or past a bound is made from the value in place when it is valid (an id the run
    // found, the example's text): a server that truncates or pads what it gets accepts exactly these.
    const from = typeof base === "string" && fitsString(schema, base) ? base : valid;
    if (min !== undefined && min > 0) {
      const shorter =
        from !== undefined && [...from].length >= min - 1
          ? [...from].slice(0, min - 1).join("")
          : min - 1 <= MAX_BOUNDARY_STRING
            ? "a".repeat(min - 1)
            : undefined;
      push(false, "string_below_min_length", shorter, `a string of ${min - 1}, under minLength ${min}`);
    }
    if (max !== undefined && max + 1 <= MAX_BOUNDARY_STRING) {
      const chars = [...(from ?? "a")];
      const last = chars[chars.length - 1] ?? "a";
      const longer = [...chars, ...Array.from({ length: Math.max(0, max + 1 - chars.length) }, () => last)]
        .slice(0, max + 1)
        .join("");
      push(false, "string_above_max_length", longer, `a string of ${max + 1}, over maxLength ${max}`);
    }
    if (typeof schema.pattern === "string") {
      const pattern = regExpOf(schema.pattern);
      const length = Math.max(min ?? 1, Math.min(max ?? 12, 12));
      const invalid = ["!".repeat(length), "-".repeat(length), " ".repeat(length), "!"].find(
        (candidate) => pattern !== undefined && !pattern.test(candidate),
      );
      push(false, "invalid_pattern", invalid, `a string not matching ${schema.pattern}`);
    }
    const format = typeof schema.format === "string" ? FORMAT_VALUES[schema.format] : undefined;
    if (format) {
      if (lengths.size > 0) push(true, "valid_value", format.valid, `a valid ${schema.format}`);
      push(false, "invalid_format", format.invalid, `an invalid ${schema.format} (${JSON.stringify(format.invalid)})`);
    }
  }

  private arrayBoundaries(
    schema: Schema,
    depth: number,
    push: (positive: boolean, scenario: Scenario, value: unknown, description: string, at?: string) => void,
  ): void {
    const min = typeof schema.minItems === "number" ? schema.minItems : undefined;
    const max = typeof schema.maxItems === "number" ? schema.maxItems : undefined;
    const item = schema.items ? this.validValue(schema.items, depth + 1) : "item";
    const of = (length: number) => Array.from({ length }, () => item);
    if (min !== undefined) {
      push(true, "minimum_items_array", of(min), `an array at minItems ${min}`);
      if (min > 0) push(false, "array_below_min_items", of(min - 1), `an array of ${min - 1}, under minItems ${min}`);
    }
    if (max !== undefined && max <= 64) {
      if (max !== min) push(true, "maximum_items_array", of(max), `an array at maxItems ${max}`);
      push(false, "array_above_max_items", of(max + 1), `an array of ${max + 1}, over maxItems ${max}`);
    }
    if (!schema.items || depth > MAX_DEPTH) return;
    // Each boundary of the items, as the array's one item (next to the items the minimum needs).
    const filler = of(Math.max(0, (min ?? 1) - 1));
    if (max !== undefined && filler.length + 1 > max) return;
    for (const boundary of this.boundaries(schema.items, depth + 1))
      push(
        boundary.positive,
        boundary.scenario,
        [...filler, boundary.value],
        `item: ${boundary.description}`,
        `/${filler.length}${boundary.at}`,
      );
  }

  objectBoundaries(schema: Schema, depth: number, given?: unknown, fixed?: ReadonlySet<string>): Boundary[] {
    const out: Boundary[] = [];
    const base =
      given !== null && typeof given === "object" && !Array.isArray(given)
        ? (given as Record<string, unknown>)
        : this.baseObject(schema, depth);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = (schema.required ?? []) as string[];
    const onlyRequired = Object.fromEntries(Object.entries(base).filter(([name]) => required.includes(name)));
    if (Object.keys(onlyRequired).length < Object.keys(base).length)
      out.push({
        value: onlyRequired,
        positive: true,
        scenario: "object_only_required",
        description: "only the required properties",
        at: "",
      });
    for (const [name, property] of Object.entries(properties)) {
      const nested = base[name];
      for (const boundary of this.boundaries(property, depth + 1, nested)) {
        if (boundary.positive && fixed?.has(name)) continue;
        out.push({
          ...boundary,
          value: { ...base, [name]: boundary.value },
          description: `${name}: ${boundary.description}`,
          at: `/${escapePointer(name)}${boundary.at}`,
        });
      }
    }
    for (const name of required)
      if (name in base) {
        const { [name]: _dropped, ...rest } = base;
        out.push({
          value: rest,
          positive: false,
          scenario: "object_missing_required_property",
          description: `without the required ${name}`,
          at: `/${escapePointer(name)}`,
        });
      }
    if (schema.additionalProperties === false) {
      let extra = "unexpected";
      while (extra in properties) extra += "_";
      out.push({
        value: { ...base, [extra]: "value" },
        positive: false,
        scenario: "object_unexpected_properties",
        description: `with a property the schema does not allow (${extra})`,
        at: `/${extra}`,
      });
    }
    if (typeof schema.maxProperties === "number" && schema.maxProperties < 64) {
      const over: Record<string, unknown> = { ...base };
      for (let index = 0; Object.keys(over).length <= schema.maxProperties; index++) over[`extra${index}`] = index;
      out.push({
        value: over,
        positive: false,
        scenario: "object_above_max_properties",
        description: `${Object.keys(over).length} properties, over maxProperties ${schema.maxProperties}`,
        at: "",
      });
    }
    return out;
  }
}

/** Whether a string meets the schema's length bounds and pattern. */
function fitsString(schema: Schema, value: string): boolean {
  const length = [...value].length;
  if (typeof schema.minLength === "number" && length < schema.minLength) return false;
  if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
  return typeof schema.pattern !== "string" || regExpOf(schema.pattern)?.test(value) === true;
}

/** A schema's pattern as a RegExp (unicode, as Ajv reads it, else without the flag); undefined when neither compiles. */
function regExpOf(source: string): RegExp | undefined {
  for (const flags of ["u", ""])
    try {
      return new RegExp(source, flags);
    } catch {
      // the next reading
    }
  return undefined;
}

function describeValid(schema: Schema): string {
  if (typeof schema.pattern === "string") return `a string matching ${schema.pattern}`;
  if (typeof schema.format === "string") return `a valid ${schema.format}`;
  return "a valid string";
}

function numberBoundaries(
  schema: Schema,
  integer: boolean,
  push: (positive: boolean, scenario: Scenario, value: unknown, description: string) => void,
): void {
  const step = (value: number, up: boolean) =>
    integer ? (up ? Math.floor(value) + 1 : Math.ceil(value) - 1) : nextAfter(value, up);
  let bounded = false;
  if (typeof schema.minimum === "number") {
    bounded = true;
    push(true, "minimum_value", integer ? Math.ceil(schema.minimum) : schema.minimum, `minimum ${schema.minimum}`);
    // Schemathesis: `value - 1` for the value just under the minimum.
    push(false, "value_below_minimum", schema.minimum - 1, `under minimum ${schema.minimum}`);
  }
  if (typeof schema.exclusiveMinimum === "number") {
    bounded = true;
    push(
      true,
      "near_boundary_number",
      step(schema.exclusiveMinimum, true),
      `just over exclusiveMinimum ${schema.exclusiveMinimum}`,
    );
    push(false, "value_below_minimum", schema.exclusiveMinimum, `at exclusiveMinimum ${schema.exclusiveMinimum}`);
  }
  if (typeof schema.maximum === "number") {
    bounded = true;
    push(true, "maximum_value", integer ? Math.floor(schema.maximum) : schema.maximum, `maximum ${schema.maximum}`);
    push(false, "value_above_maximum", schema.maximum + 1, `over maximum ${schema.maximum}`);
  }
  if (typeof schema.exclusiveMaximum === "number") {
    bounded = true;
    push(
      true,
      "near_boundary_number",
      step(schema.exclusiveMaximum, false),
      `just under exclusiveMaximum ${schema.exclusiveMaximum}`,
    );
    push(false, "value_above_maximum", schema.exclusiveMaximum, `at exclusiveMaximum ${schema.exclusiveMaximum}`);
  }
  if (!bounded) push(true, "valid_value", integer ? 1 : 1.5, `a valid ${integer ? "integer" : "number"}`);
  if (integer) push(false, "incorrect_type", 1.5, "a number that is not an integer");
}

/** A value that is none of `values`: a string when they are strings, otherwise a number past them. */
function notOneOf(values: readonly unknown[]): unknown {
  if (values.every((value) => typeof value === "number")) return Math.max(...(values as number[])) + 1;
  let candidate = "not-one-of-the-values";
  while (values.includes(candidate)) candidate += "_";
  return candidate;
}

function schemaAllows(types: ReadonlySet<string>, value: unknown): boolean {
  if (value === null) return types.has("null");
  if (Array.isArray(value)) return types.has("array");
  if (typeof value === "number") return types.has(Number.isInteger(value) ? "integer" : "number");
  return types.has(typeof value);
}

function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Every boundary of a schema, positive and negative, each once (by value and sign), in a stable order; filtered
 * through `isValid` when given.
 */
export function schemaBoundaries(document: unknown, schema: Schema, options: BoundaryOptions): Boundary[] {
  const generator = new Generator(document, options.seed);
  const seen = new Set<string>();
  return generator.boundaries(schema, 0, options.base, options.fixed).filter((boundary) => {
    const key = `${boundary.positive}:${JSON.stringify(boundary.value)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return options.isValid === undefined || options.isValid(boundary.value) === boundary.positive;
  });
}

/**
 * At most `limit` boundaries, chosen so that every scenario is represented before any has a second value
 * (round robin over the scenarios, in their first appearance's order).
 */
export function pickBoundaries(boundaries: readonly Boundary[], limit: number): Boundary[] {
  const groups = new Map<string, Boundary[]>();
  for (const boundary of boundaries) {
    const key = `${boundary.positive}:${boundary.scenario}`;
    groups.set(key, [...(groups.get(key) ?? []), boundary]);
  }
  const out: Boundary[] = [];
  for (let round = 0; out.length < limit; round++) {
    let added = false;
    for (const group of groups.values()) {
      const boundary = group[round];
      if (boundary === undefined) continue;
      added = true;
      out.push(boundary);
      if (out.length >= limit) break;
    }
    if (!added) break;
  }
  return out;
}
