/**
 * fast-check arbitraries from the JSON Schema subset the contract uses: type (with null), enum, const,
 * pattern, format (date, date-time, email, uri), min/maxLength, minimum/maximum, required, properties, items,
 * min/maxItems, maxProperties, if/then inside allOf, dependentSchemas, oneOf / anyOf / allOf, and $ref.
 *
 * `validValue` builds values the schema accepts; `invalidValue` builds values that break one rule of it.
 * Callers filter both through Ajv, so a generator slip shows up as a discarded value, never as a wrong test;
 * a keyword outside this subset throws, so a contract change that needs more is noticed.
 *
 * `partner-api verify` draws its generated requests from here (seeded with `fc.sample`), and the contract tests
 * (test/contract/) use the same generators through test/contract/support/arbitraries.ts.
 */
import fc from "fast-check";
import { followRefs, followRefsFrom } from "../contract/refs.ts";

/** A JSON Schema object of the contract, read loosely: the generator checks the keywords it meets. */
// biome-ignore lint/suspicious/noExplicitAny: a schema is untyped JSON; check() refuses keywords the generator does not know
export type Schema = Record<string, any>;

/** Keywords that only describe: they constrain nothing a generator must honour. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "examples",
  "example",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "discriminator",
  "$comment",
  "externalDocs",
  "xml",
  "contentMediaType",
  "contentEncoding",
]);
const SUPPORTED = new Set([
  "$ref",
  "type",
  "enum",
  "const",
  "pattern",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "required",
  "properties",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "maxProperties",
  "allOf",
  "oneOf",
  "anyOf",
  "if",
  "then",
  "dependentSchemas",
]);
const SUPPORTED_FORMATS = new Set(["date", "date-time", "email", "uri", "double", "float", "int32", "int64"]);

export class UnsupportedSchemaError extends Error {}

function check(schema: Schema, where: string): void {
  for (const key of Object.keys(schema)) {
    if (key.startsWith("x-") || ANNOTATIONS.has(key) || SUPPORTED.has(key)) continue;
    throw new UnsupportedSchemaError(`${where}: the schema generator does not support the keyword "${key}"`);
  }
  if (typeof schema.format === "string" && !SUPPORTED_FORMATS.has(schema.format)) {
    throw new UnsupportedSchemaError(`${where}: the schema generator does not support format "${schema.format}"`);
  }
  if (schema.additionalProperties === false) {
    // Only known properties are generated, so a closed object is fine; noted for the reader.
  }
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  if (schema.properties || schema.required) return ["object"];
  if (schema.items) return ["array"];
  return [];
}

const dateArb = fc
  .date({ min: new Date("1950-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) => d.toISOString());
const label = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);
const FORMATS: Record<string, fc.Arbitrary<string>> = {
  date: dateArb.map((iso) => iso.slice(0, 10)),
  "date-time": dateArb,
  email: fc
    .tuple(fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,10}[a-z0-9]$/), label, fc.constantFrom("com", "io", "example"))
    .map(([local, host, tld]) => `${local.replace(/\.\.+/g, ".")}@${host}.${tld}`),
  uri: fc
    .tuple(
      fc.constantFrom("https", "http"),
      label,
      fc.constantFrom("com", "io", "example"),
      fc.array(label, { maxLength: 3 }),
    )
    .map(([scheme, host, tld, segments]) => `${scheme}://${host}.${tld}/${segments.join("/")}`),
};

/** A string arbitrary for a schema of type string. */
function stringArb(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.pattern === "string") {
    const regex = new RegExp(schema.pattern);
    const arb = fc.stringMatching(regex, { maxLength: schema.maxLength });
    return schema.minLength || schema.maxLength
      ? arb.filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity))
      : arb;
  }
  if (typeof schema.format === "string" && FORMATS[schema.format]) return FORMATS[schema.format]!;
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) });
}

/** Whether `value` meets an if-schema of the kind the contract writes (const properties and required). */
function meetsCondition(condition: Schema, value: Record<string, unknown>): boolean {
  for (const name of (condition.required ?? []) as string[]) if (!(name in value)) return false;
  for (const [name, property] of Object.entries((condition.properties ?? {}) as Record<string, Schema>)) {
    if (!(name in value)) continue;
    if (property.const !== undefined && value[name] !== property.const) return false;
    if (property.enum && !(property.enum as unknown[]).includes(value[name])) return false;
  }
  return true;
}

function objectArb(
  document: unknown,
  schema: Schema,
  where: string,
  depth: number,
): fc.Arbitrary<Record<string, unknown>> {
  if (schema.maxProperties === 0) return fc.constant({});
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    model[name] = validValue(document, property, `${where}/properties/${name}`, depth + 1);
  for (const name of required) model[name] ??= fc.jsonValue({ maxDepth: 1 });
  const conditionals = ((schema.allOf ?? []) as Schema[]).filter((part) => part.if && part.then);
  const dependents = Object.entries((schema.dependentSchemas ?? {}) as Record<string, Schema>);
  const chosen = fc.record(model, { requiredKeys: required });
  if (conditionals.length === 0 && dependents.length === 0) return chosen;
  // `full` has every property, to add what a condition makes required.
  return fc.tuple(chosen, fc.record(model)).map(([value, full]) => {
    const out: Record<string, unknown> = { ...value };
    for (const part of conditionals) {
      if (!meetsCondition(part.if, out)) continue;
      for (const name of (part.then.required ?? []) as string[]) if (!(name in out)) out[name] = full[name];
    }
    for (const [name, dependent] of dependents) {
      if (!(name in out)) continue;
      for (const other of (dependent.required ?? []) as string[]) if (!(other in out)) out[other] = full[other];
    }
    return out;
  });
}

/** Values the schema accepts (filter through the validator: oneOf exclusivity is not modelled). */
export function validValue(document: unknown, raw: Schema, where = "#", depth = 0): fc.Arbitrary<unknown> {
  const { value: schema, pointer } = followRefsFrom<Schema>(document, raw, where);
  const at = raw.$ref ? pointer : where;
  check(schema, at);
  if (depth > 12) throw new UnsupportedSchemaError(`${at}: schema nests too deep for the generator (recursive?)`);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches) {
    const key = schema.oneOf ? "oneOf" : "anyOf";
    return fc.oneof(...branches.map((branch, i) => validValue(document, branch, `${at}/${key}/${i}`, depth + 1)));
  }
  const parts = ((schema.allOf ?? []) as Schema[]).filter((part) => !(part.if && part.then));
  if (parts.length > 0) {
    // allOf of object schemas: merge their properties and required lists.
    const merged: Schema = {
      ...schema,
      allOf: ((schema.allOf ?? []) as Schema[]).filter((part) => part.if && part.then),
    };
    for (const part of parts) {
      const resolved = followRefs<Schema>(document, part);
      merged.type ??= resolved.type;
      merged.properties = { ...(merged.properties ?? {}), ...(resolved.properties ?? {}) };
      merged.required = [...new Set([...(merged.required ?? []), ...(resolved.required ?? [])])];
    }
    return validValue(document, merged, at, depth + 1);
  }
  const types = typesOf(schema);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case "null":
          return fc.constant(null);
        case "boolean":
          return fc.boolean();
        case "integer":
          return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
        case "number":
          return fc.double({
            noNaN: true,
            noDefaultInfinity: true,
            min: schema.minimum ?? -1e9,
            max: schema.maximum ?? 1e9,
          });
        case "string":
          return stringArb(schema);
        case "array":
          return fc.array(
            schema.items ? validValue(document, schema.items, `${at}/items`, depth + 1) : fc.jsonValue({ maxDepth: 1 }),
            {
              minLength: schema.minItems ?? 0,
              maxLength: Math.min(schema.maxItems ?? 4, 4),
            },
          );
        case "object":
          return objectArb(document, schema, at, depth);
        default:
          throw new UnsupportedSchemaError(`${at}: unknown type "${type}"`);
      }
    }),
  );
}

/** Values of another JSON type than the schema allows. */
function wrongType(schema: Schema): fc.Arbitrary<unknown> | undefined {
  const types = typesOf(schema);
  if (types.length === 0) return undefined;
  const all: Record<string, fc.Arbitrary<unknown>> = {
    null: fc.constant(null),
    boolean: fc.boolean(),
    number: fc
      .double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
      .filter((n) => !Number.isInteger(n)),
    integer: fc.integer({ min: -1000, max: 1000 }),
    string: fc.string({ maxLength: 12 }),
    array: fc.array(fc.integer(), { maxLength: 3 }),
    object: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.integer(), { maxKeys: 2 }),
  };
  const allowed = new Set(types.flatMap((t) => (t === "number" ? ["number", "integer"] : [t])));
  const others = Object.entries(all)
    .filter(([type]) => !allowed.has(type))
    .map(([, arb]) => arb);
  return others.length > 0 ? fc.oneof(...others) : undefined;
}

/** Values that break one rule of a leaf (non-object) schema: type, enum, const, pattern, format. */
function invalidLeaf(document: unknown, raw: Schema, where: string): fc.Arbitrary<unknown> | undefined {
  const schema = followRefs<Schema>(document, raw);
  const options: fc.Arbitrary<unknown>[] = [];
  const wrong = wrongType(schema);
  if (wrong) options.push(wrong);
  if (schema.enum) options.push(fc.string({ maxLength: 12 }).filter((s) => !(schema.enum as unknown[]).includes(s)));
  if (schema.const !== undefined)
    options.push(fc.constantFrom("not-the-const", 0, false).filter((v) => v !== schema.const));
  if (typeof schema.pattern === "string") {
    const regex = new RegExp(schema.pattern);
    options.push(fc.string({ maxLength: 30 }).filter((s) => !regex.test(s)));
  }
  if (typeof schema.format === "string" && FORMATS[schema.format]) {
    options.push(fc.constantFrom("", "not valid", "2024-13-45", "12:00", "@", "no spaces allowed@x"));
  }
  const items =
    typesOf(schema).includes("array") && schema.items
      ? invalidLeaf(document, schema.items, `${where}/items`)
      : undefined;
  if (items) options.push(fc.array(items, { minLength: 1, maxLength: 2 }));
  return options.length > 0 ? fc.oneof(...options) : undefined;
}

/**
 * Values that break the schema: the wrong type as a whole, a required property missing, one property
 * broken, or a then-required property missing while its condition holds. Undefined when nothing is invalid.
 */
export function invalidValue(document: unknown, raw: Schema, where = "#"): fc.Arbitrary<unknown> | undefined {
  const schema = followRefs<Schema>(document, raw);
  if (!typesOf(schema).includes("object") || schema.oneOf || schema.anyOf) return invalidLeaf(document, schema, where);
  const valid = validValue(document, schema, where) as fc.Arbitrary<Record<string, unknown>>;
  const options: fc.Arbitrary<unknown>[] = [];
  const wrong = wrongType(schema);
  if (wrong) options.push(wrong);
  if (schema.maxProperties === 0)
    options.push(
      fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.jsonValue({ maxDepth: 1 }), { minKeys: 1, maxKeys: 3 }),
    );
  const required = (schema.required ?? []) as string[];
  if (required.length > 0) {
    options.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([value, name]) => {
        const { [name]: _dropped, ...rest } = value;
        return rest;
      }),
    );
  }
  const broken = Object.entries((schema.properties ?? {}) as Record<string, Schema>).flatMap(([name, property]) => {
    const bad = invalidValue(document, property, `${where}/properties/${name}`);
    return bad ? [fc.tuple(valid, bad).map(([value, badValue]) => ({ ...value, [name]: badValue }))] : [];
  });
  options.push(...broken);
  for (const part of ((schema.allOf ?? []) as Schema[]).filter((p) => p.if && p.then)) {
    const trigger = Object.fromEntries(
      Object.entries((part.if.properties ?? {}) as Record<string, Schema>)
        .filter(([, property]) => property.const !== undefined)
        .map(([name, property]) => [name, property.const]),
    );
    const thenRequired = (part.then.required ?? []) as string[];
    if (thenRequired.length === 0) continue;
    options.push(
      fc.tuple(valid, fc.constantFrom(...thenRequired)).map(([value, name]) => {
        const out: Record<string, unknown> = { ...value, ...trigger };
        delete out[name];
        return out;
      }),
    );
  }
  return options.length > 0 ? fc.oneof(...options) : undefined;
}
