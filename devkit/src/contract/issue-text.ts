/**
 * A validator's error in a reader's words: the value received and what is allowed (an enum's values, a pattern's
 * name and form, a format's shape, a bound), never the validator's own phrases ("must match \"then\" schema") or
 * the validator's internal schema addresses. The router (router.ts) writes every request and response issue so.
 */
import type { ErrorObject } from "ajv";

/** Where the router registers each contract with the validator: never shown (see `rulePointer`). */
export const INTERNAL_SCHEMA_BASE = /^https:\/\/sandbox\.invalid\/[a-z]+\.json/;

/** The rule's place in its contract (`#/components/schemas/Ulid/pattern`), without the validator's internal base. */
export function rulePointer(schemaPath: string): string {
  return schemaPath.replace(INTERNAL_SCHEMA_BASE, "");
}

const MAX_SHOWN = 60;

/** A received value as a reader sees it: JSON, cut to MAX_SHOWN characters. */
export function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;
}

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  date: "a date as YYYY-MM-DD (2026-03-17)",
  "date-time": "a date and time as RFC 3339 (2026-03-17T09:30:00Z)",
  time: "a time as RFC 3339 (09:30:00Z)",
  email: "an email address",
  uri: "an absolute URI (https://example.com/path)",
  "uri-reference": "a URI reference",
  uuid: "a UUID",
  ipv4: "an IPv4 address",
  ipv6: "an IPv6 address",
  hostname: "a host name",
};

function article(word: string): string {
  // "a ULID", "an ISO 4217 currency code", "an integer": by the sound, roughly.
  return /^[aeio]|^u(?![A-Z])/i.test(word) && !/^U[A-Z]/.test(word) ? `an ${word}` : `a ${word}`;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The pattern's name when its schema has one (`title`), and its form: `a ULID (^[0-7]…$)`. */
function patternWords(schema: Record<string, unknown> | undefined, pattern: string): string {
  const title = typeof schema?.title === "string" ? schema.title : undefined;
  return title ? `${article(title)} (the pattern ${pattern})` : `a string of the pattern ${pattern}`;
}

/**
 * Ajv's summary errors that only say "one of the branches failed": the branch's own error is reported beside them
 * (`if`/`then`), or a reader is better told the shapes (`anyOf`/`oneOf`, worded below when alone).
 */
const SUMMARY_KEYWORDS = new Set(["if", "then", "else"]);

/** The condition of the `if` whose `then` an error broke (`unlimited is false`), set by `shownErrors`. */
const conditions = new WeakMap<ErrorObject, string>();

/** An `if` schema's condition in words, when it is a set of properties with a `const` each. */
function conditionWords(schema: unknown): string | undefined {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (!properties || typeof properties !== "object") return undefined;
  const parts = Object.entries(properties as Record<string, unknown>)
    .filter(([, property]) => property !== null && typeof property === "object" && "const" in property)
    .map(([name, property]) => `${name} is ${shown((property as { const: unknown }).const)}`);
  return parts.length > 0 ? parts.join(" and ") : undefined;
}

/** Remembers, for each error under a failed `if`'s `then`, the condition that made it apply. */
function noteConditions(errors: readonly ErrorObject[]): void {
  for (const error of errors) {
    if (error.keyword !== "if" || (error.params as { failingKeyword?: unknown }).failingKeyword !== "then") continue;
    const when = conditionWords((error.parentSchema as { if?: unknown } | undefined)?.if);
    if (!when) continue;
    const branch = `${error.schemaPath.replace(/\/if$/, "")}/then/`;
    for (const other of errors) if (other.schemaPath.startsWith(branch)) conditions.set(other, when);
  }
}

/** What is wrong and what is allowed, after the field's name: `got "begin"; allowed: "start", "submit"`. */
export function issueWords(error: ErrorObject): string | undefined {
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? undefined) as Record<string, unknown> | undefined;
  const got = `got ${shown(error.data)}`;
  switch (error.keyword) {
    case "required": {
      const when = conditions.get(error);
      return `must have the property ${String(params.missingProperty)} (it is required${when ? ` when ${when}` : ""} and was not sent)`;
    }
    case "enum": {
      const allowed = (params.allowedValues as unknown[] | undefined) ?? [];
      return `${got}; allowed: ${allowed.map((value) => shown(value)).join(", ")}`;
    }
    case "const":
      return `${got}; allowed: only ${shown(params.allowedValue)}`;
    case "type": {
      const types = String(params.type).split(",");
      return `${got} (${article(typeOf(error.data))}); allowed: ${types.map(article).join(" or ")}`;
    }
    case "pattern":
      return `${got}; allowed: ${patternWords(schema, String(params.pattern))}`;
    case "format":
      return `${got}; allowed: ${FORMAT_WORDS[String(params.format)] ?? `a string of the format ${String(params.format)}`}`;
    case "minLength":
      return `${got}; allowed: at least ${String(params.limit)} characters`;
    case "maxLength":
      return `${got}; allowed: at most ${String(params.limit)} characters`;
    case "minimum":
      return `${got}; allowed: ${String(params.limit)} or more`;
    case "maximum":
      return `${got}; allowed: ${String(params.limit)} or less`;
    case "exclusiveMinimum":
      return `${got}; allowed: more than ${String(params.limit)}`;
    case "exclusiveMaximum":
      return `${got}; allowed: less than ${String(params.limit)}`;
    case "minItems":
      return `has ${Array.isArray(error.data) ? error.data.length : "too few"} items; allowed: at least ${String(params.limit)}`;
    case "maxItems":
      return `has ${Array.isArray(error.data) ? error.data.length : "too many"} items; allowed: at most ${String(params.limit)}`;
    case "uniqueItems":
      return `repeats an item (items ${String(params.j)} and ${String(params.i)} are the same); allowed: each item once`;
    case "maxProperties":
      return Number(params.limit) === 0
        ? `${got}; allowed: only an empty object {}`
        : `has too many properties; allowed: at most ${String(params.limit)}`;
    case "minProperties":
      return `has too few properties; allowed: at least ${String(params.limit)}`;
    case "additionalProperties": {
      const known = schema && typeof schema.properties === "object" ? Object.keys(schema.properties as object) : [];
      return `has the property ${String(params.additionalProperty)}, which is not allowed${known.length > 0 ? `; allowed: ${known.join(", ")}` : ""}`;
    }
    case "oneOf":
    case "anyOf": {
      // Branches told apart by the fields they require: name them ("exactly one of name or arazzo").
      const branches = Array.isArray(schema?.[error.keyword])
        ? (schema[error.keyword] as Array<Record<string, unknown>>)
        : [];
      const required = branches.map((branch) => (Array.isArray(branch.required) ? branch.required.join(" and ") : ""));
      if (branches.length > 0 && required.every(Boolean))
        return Array.isArray(params.passingSchemas)
          ? `has more than one of ${required.join(", ")}; allowed: exactly one of them`
          : `has none of ${required.join(", ")}; allowed: ${error.keyword === "oneOf" ? "exactly one" : "at least one"} of them`;
      return `${got}; matches none of the shapes allowed here (see the contract at ${rulePointer(error.schemaPath)})`;
    }
    case "not":
      return `${got}; this value is not allowed here`;
    default:
      return SUMMARY_KEYWORDS.has(error.keyword) ? undefined : `${got}; ${error.message ?? "is not allowed"}`;
  }
}

/** The fields each branch of an `anyOf`/`oneOf` requires ("name", "arazzo"), when every branch says; else undefined. */
function requiredBranches(error: ErrorObject): string[] | undefined {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const branches = Array.isArray(schema[error.keyword])
    ? (schema[error.keyword] as Array<Record<string, unknown>>)
    : [];
  const required = branches.map((branch) => (Array.isArray(branch.required) ? branch.required.join(" and ") : ""));
  return branches.length > 0 && required.every(Boolean) ? required : undefined;
}

const isBranching = (error: ErrorObject) => error.keyword === "anyOf" || error.keyword === "oneOf";

/**
 * The errors of one validation worth showing: the summaries of `if`/`then` dropped (their branch's own error
 * stands beside them, and says the `if`'s condition where it is a set of consts); an `anyOf`/`oneOf` told apart
 * by required fields shown in their words, its branches' errors dropped; any other `anyOf`/`oneOf` summary
 * dropped when a branch's more precise error is there.
 */
export function shownErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  noteConditions(errors);
  const precise = errors.filter((error) => !SUMMARY_KEYWORDS.has(error.keyword));
  const worded = precise.filter((error) => isBranching(error) && requiredBranches(error) !== undefined);
  return precise.filter((error) => {
    if (worded.some((summary) => summary !== error && error.schemaPath.startsWith(`${summary.schemaPath}/`)))
      return false;
    if (!isBranching(error) || worded.includes(error)) return true;
    // More than one branch matched: that is the error itself, no branch's says it.
    if (Array.isArray((error.params as { passingSchemas?: unknown }).passingSchemas)) return true;
    return !precise.some((other) => !isBranching(other) && other.instancePath.startsWith(error.instancePath));
  });
}

/**
 * The request-level refusals the sandbox and the mock's front share, each naming what was received and what is
 * allowed: a missing API key, a path or method no operation has, a body's media type the operation does not take.
 */
export const requestWords = {
  missingKey: (operationId: string, received: string | undefined, whichKeys: string) =>
    `${operationId} needs the X-API-Key header, got ${shown(received)}; allowed: ${whichKeys}`,
  noPath: (pathname: string, paths: readonly string[]) =>
    `no operation has the path ${shown(pathname)}; allowed: ${[...new Set(paths)].sort().join(", ")}`,
  noMethod: (path: string, method: string, methods: readonly string[]) =>
    `${path} has no ${method} operation; allowed: ${methods.join(", ")}`,
  mediaType: (received: string, allowed: readonly string[]) =>
    `the Content-Type header got ${shown(received || undefined)}; allowed: ${allowed.join(", ")}`,
};
