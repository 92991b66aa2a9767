// Rule partner-parameter-examples: every required parameter (path, query, header, cookie) has an example, on the
// parameter (`example`, `examples`) or its schema (`example`, `examples`): the docs' code samples send it, and a
// sample without it cannot be written.
import { operations, resolveLocal } from "./walk.js";

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function hasExample(document, parameter) {
  if (parameter.example !== undefined) return true;
  if (isObject(parameter.examples) && Object.keys(parameter.examples).length > 0) return true;
  const schema =
    isObject(parameter.schema) && typeof parameter.schema.$ref === "string"
      ? resolveLocal(document, parameter.schema.$ref)
      : parameter.schema;
  if (!isObject(schema)) return false;
  return schema.example !== undefined || (Array.isArray(schema.examples) && schema.examples.length > 0);
}

export default function parameterExamples(document) {
  const results = [];
  const seen = new Set();
  for (const { kind, key, method, operation, path } of operations(document)) {
    const id = operation.operationId ?? `${method.toUpperCase()} ${key}`;
    const shared = Array.isArray(document[kind][key].parameters)
      ? document[kind][key].parameters.map((raw, index) => [raw, [kind, key, "parameters", index]])
      : [];
    const own = Array.isArray(operation.parameters)
      ? operation.parameters.map((raw, index) => [raw, [...path, "parameters", index]])
      : [];
    for (const [raw, at] of [...shared, ...own]) {
      const ref = isObject(raw) && typeof raw.$ref === "string" ? raw.$ref : undefined;
      const parameter = ref ? resolveLocal(document, ref) : raw;
      if (!isObject(parameter) || parameter.required !== true || hasExample(document, parameter)) continue;
      const where = ref ? ref.slice(2).split("/") : at;
      const key2 = where.join("/");
      if (seen.has(key2)) continue;
      seen.add(key2);
      results.push({
        message: `required ${parameter.in} parameter "${parameter.name}" (of "${id}") has no example: add \`example:\` to it (the docs' code samples send it).`,
        path: where,
      });
    }
  }
  return results;
}
