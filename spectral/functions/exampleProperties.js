// Rule partner-example-properties: every example (named or inline; request, response and webhook bodies, and
// parameters) declares only properties its schema declares. Schemas are open (no `additionalProperties: false`:
// the source keeps them so), so a JSON Schema validator accepts a field a rename or a removal left behind in an
// example; review needs to see it. A property is declared when the schema (through `$ref`, `allOf`, `oneOf`,
// `anyOf`, `dependentSchemas`, `if`/`then`/`else`) names it under `properties` or matches a `patternProperties`
// pattern; a schema that says `additionalProperties` (other than false) or declares nothing allows any.
import { operations, resolveLocal } from "./walk.js";

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The schemas that all apply to a value (the schema, its `$ref` target, `allOf` members, `dependentSchemas`,
 * `if`/`then`/`else`), and the `oneOf`/`anyOf` lists among them, of which the value fits one member each.
 */
function conjunction(document, schema, found = { parts: [], choices: [] }, seen = new Set()) {
  if (!isObject(schema) || seen.has(schema)) return found;
  seen.add(schema);
  found.parts.push(schema);
  if (typeof schema.$ref === "string") conjunction(document, resolveLocal(document, schema.$ref), found, seen);
  if (Array.isArray(schema.allOf)) for (const member of schema.allOf) conjunction(document, member, found, seen);
  for (const keyword of ["oneOf", "anyOf"]) if (Array.isArray(schema[keyword])) found.choices.push(schema[keyword]);
  if (isObject(schema.dependentSchemas))
    for (const member of Object.values(schema.dependentSchemas)) conjunction(document, member, found, seen);
  for (const keyword of ["if", "then", "else"]) conjunction(document, schema[keyword], found, seen);
  return found;
}

const pointerToken = (name) => name.replace(/~/g, "~0").replace(/\//g, "~1");

/** The properties of `value` (an example, at `at`) that no schema of `parts` declares: [pointer, name] each. */
function undeclared(document, parts, choices, value, at, depth) {
  if (depth > 64) return [];
  if (choices.length > 0) {
    // The value fits one member of each list: judged with the member that leaves the fewest undeclared.
    const [first, ...rest] = choices;
    let best;
    for (const member of first) {
      const extra = conjunction(document, member);
      const found = undeclared(document, [...parts, ...extra.parts], [...rest, ...extra.choices], value, at, depth + 1);
      if (!best || found.length < best.length) best = found;
      if (found.length === 0) break;
    }
    return best ?? [];
  }
  const problems = [];
  if (Array.isArray(value)) {
    const items = parts.map((part) => part.items).filter(isObject);
    value.forEach((entry, index) => {
      for (const item of items) problems.push(...undeclaredIn(document, item, entry, `${at}/${index}`, depth + 1));
    });
    return problems;
  }
  if (!isObject(value)) return problems;
  for (const [name, entry] of Object.entries(value)) {
    const schemas = [];
    let open = true;
    let declared = false;
    for (const part of parts) {
      if (isObject(part.properties)) {
        open = false;
        if (name in part.properties) {
          declared = true;
          schemas.push(part.properties[name]);
        }
      }
      if (isObject(part.patternProperties)) {
        open = false;
        for (const [pattern, schema] of Object.entries(part.patternProperties))
          if (new RegExp(pattern, "u").test(name)) {
            declared = true;
            schemas.push(schema);
          }
      }
      if (part.additionalProperties !== undefined && part.additionalProperties !== false) {
        declared = true;
        if (isObject(part.additionalProperties)) schemas.push(part.additionalProperties);
      }
    }
    if (!declared && !open) {
      problems.push([`${at}/${pointerToken(name)}`, name]);
      continue;
    }
    for (const child of schemas)
      problems.push(...undeclaredIn(document, child, entry, `${at}/${pointerToken(name)}`, depth + 1));
  }
  return problems;
}

function undeclaredIn(document, schema, value, at = "", depth = 0) {
  if (!isObject(schema)) return [];
  const { parts, choices } = conjunction(document, schema);
  return undeclared(document, parts, choices, value, at, depth);
}

function check(document, schema, value, at, report) {
  for (const [pointer, name] of undeclaredIn(document, schema, value, at)) report(pointer, name);
}

/** The examples of a media type or parameter: [label, value, path of the value]. */
function* examplesOf(document, holder, at) {
  if (holder.example !== undefined) yield ["the inline example", holder.example, [...at, "example"]];
  if (isObject(holder.examples))
    for (const [name, raw] of Object.entries(holder.examples)) {
      const example = isObject(raw) && typeof raw.$ref === "string" ? resolveLocal(document, raw.$ref) : raw;
      if (!isObject(example) || example.value === undefined) continue;
      const where =
        isObject(raw) && typeof raw.$ref === "string"
          ? [...raw.$ref.slice(2).split("/"), "value"]
          : [...at, "examples", name, "value"];
      yield [`example "${name}"`, example.value, where];
    }
}

export default function exampleProperties(document) {
  const results = [];
  const seen = new Set();
  const checkHolder = (holder, schema, at, what) => {
    if (!isObject(holder) || !isObject(schema)) return;
    for (const [label, value, where] of examplesOf(document, holder, at)) {
      check(document, schema, value, "", (pointer, name) => {
        const key = `${where.join("/")}|${pointer}`;
        if (seen.has(key)) return;
        seen.add(key);
        results.push({
          message: `${label} of ${what} has property \`${name}\` (at ${pointer || "/"}) that its schema does not declare: remove it from the example, or declare it in the schema.`,
          path: where,
        });
      });
    }
  };
  for (const { kind, key, method, operation, path } of operations(document)) {
    const id = operation.operationId ?? `${method.toUpperCase()} ${key}`;
    const body =
      isObject(operation.requestBody) && typeof operation.requestBody.$ref === "string"
        ? resolveLocal(document, operation.requestBody.$ref)
        : operation.requestBody;
    const bodyAt = [...path, "requestBody", "content"];
    if (isObject(body?.content))
      for (const [media, content] of Object.entries(body.content))
        checkHolder(
          content,
          content?.schema,
          [...bodyAt, media],
          `the ${kind === "webhooks" ? "webhook" : "request"} body of "${id}" (${media})`,
        );
    for (const [status, raw] of Object.entries(operation.responses ?? {})) {
      const response = isObject(raw) && typeof raw.$ref === "string" ? resolveLocal(document, raw.$ref) : raw;
      if (!isObject(response?.content)) continue;
      for (const [media, content] of Object.entries(response.content))
        checkHolder(
          content,
          content?.schema,
          [...path, "responses", status, "content", media],
          `the ${status} response of "${id}" (${media})`,
        );
    }
    const parameters = [
      ...(Array.isArray(document[kind][key].parameters) ? document[kind][key].parameters : []),
      ...(Array.isArray(operation.parameters) ? operation.parameters : []),
    ];
    parameters.forEach((raw, index) => {
      const parameter = isObject(raw) && typeof raw.$ref === "string" ? resolveLocal(document, raw.$ref) : raw;
      if (!isObject(parameter)) return;
      const at =
        isObject(raw) && typeof raw.$ref === "string" ? raw.$ref.slice(2).split("/") : [...path, "parameters", index];
      checkHolder(parameter, parameter.schema, at, `parameter "${parameter.name}" of "${id}"`);
    });
  }
  // Named schemas' own examples (`example`, `examples: [...]`) too.
  for (const [name, schema] of Object.entries(document?.components?.schemas ?? {})) {
    if (!isObject(schema)) continue;
    const at = ["components", "schemas", name];
    const report = (where, label) => (pointer, property) =>
      results.push({
        message: `${label} of schema "${name}" has property \`${property}\` (at ${pointer || "/"}) that the schema does not declare: remove it from the example, or declare it in the schema.`,
        path: where,
      });
    if (schema.example !== undefined)
      check(document, schema, schema.example, "", report([...at, "example"], "the example"));
    if (Array.isArray(schema.examples))
      schema.examples.forEach((value, index) => {
        check(document, schema, value, "", report([...at, "examples", index], `example ${index + 1}`));
      });
  }
  return results;
}
