/**
 * The rules a request body schema states, each turned into one body that breaks it (and only it), starting
 * from a valid body: drop a required field, an unknown enum value, a string that misses a pattern or a format,
 * a wrong type, a then-required field missing while its if-condition holds.
 */
import { followRefs } from "partner-api-devkit/cli";
import type { Schema } from "./contract.ts";

export interface RuleViolation {
  /** What rule the body breaks, e.g. "required: name" or "enum: category". */
  rule: string;
  body: unknown;
}

const BAD_FORMAT: Record<string, string> = {
  email: "not-an-email",
  uri: "not a uri",
  date: "2024-13-45",
  "date-time": "yesterday at noon",
};

/** A string that misses `pattern` (tried in order). */
function stringMissing(pattern: string): string {
  const regex = new RegExp(pattern);
  for (const candidate of ["", "!", "not valid", "ab", "0", "lowercase", "🙂"])
    if (!regex.test(candidate)) return candidate;
  throw new Error(`no sample string misses pattern ${pattern}`);
}

/** Breaks one property schema, or says it cannot be broken by a value of another kind. */
function violationsOfValue(document: unknown, raw: Schema, where: string): { rule: string; value: unknown }[] {
  const schema = followRefs<Schema>(document, raw);
  const out: { rule: string; value: unknown }[] = [];
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (schema.enum) out.push({ rule: `enum: ${where}`, value: "NOT_ONE_OF_THE_ENUM_VALUES" });
  if (schema.const !== undefined)
    out.push({ rule: `const: ${where}`, value: typeof schema.const === "boolean" ? !schema.const : "NOT_THE_CONST" });
  if (typeof schema.pattern === "string") out.push({ rule: `pattern: ${where}`, value: stringMissing(schema.pattern) });
  if (typeof schema.format === "string" && BAD_FORMAT[schema.format])
    out.push({ rule: `format ${schema.format}: ${where}`, value: BAD_FORMAT[schema.format] });
  if (types.length > 0 && !types.includes("object"))
    out.push({ rule: `type ${types.join("|")}: ${where}`, value: { wrong: "type" } });
  else if (types.includes("object")) out.push({ rule: `type object: ${where}`, value: "not an object" });
  if (types.includes("array") && schema.items) {
    for (const inner of violationsOfValue(document, schema.items, `${where}[]`)) {
      if (!inner.rule.startsWith("type")) out.push({ rule: inner.rule, value: [inner.value] });
    }
  }
  return out;
}

/** One violation per rule of an object body schema, each derived from `validBody`. */
export function ruleViolations(
  document: unknown,
  bodySchema: Schema,
  validBody: Record<string, unknown>,
): RuleViolation[] {
  const schema = followRefs<Schema>(document, bodySchema);
  const out: RuleViolation[] = [];
  if (schema.type === "object") out.push({ rule: "type object: (body)", body: ["not", "an", "object"] });
  if (schema.maxProperties === 0) out.push({ rule: "maxProperties 0: (body)", body: { unexpected: true } });
  for (const name of (schema.required ?? []) as string[]) {
    const { [name]: _dropped, ...rest } = validBody;
    out.push({ rule: `required: ${name}`, body: rest });
  }
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    for (const { rule, value } of violationsOfValue(document, property, name))
      out.push({ rule, body: { ...validBody, [name]: value } });
  }
  for (const part of (schema.allOf ?? []) as Schema[]) {
    if (!part.if || !part.then) continue;
    // Make the if-condition hold (its const values), then leave out what `then` requires.
    const trigger: Record<string, unknown> = {};
    for (const [name, property] of Object.entries((part.if.properties ?? {}) as Record<string, Schema>)) {
      if (property.const !== undefined) trigger[name] = property.const;
    }
    for (const name of (part.then.required ?? []) as string[]) {
      const body: Record<string, unknown> = { ...validBody, ...trigger };
      delete body[name];
      const condition = Object.entries(trigger)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(", ");
      out.push({ rule: `if ${condition} then required: ${name}`, body });
    }
  }
  return out;
}
