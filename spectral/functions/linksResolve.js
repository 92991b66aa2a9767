// Rule partner-links-resolve: every OpenAPI link of a response resolves. Its target operation exists
// (`operationId`, or an `operationRef` into this document); each parameter it sets is one the target takes
// (`header.X-Company-Id`, `path.cardId`, `query.page`, or a bare name that is unique); each value that is a runtime
// expression reads something the source operation has: `$response.body#/…` a property of the response's schema
// (through $ref, items, allOf/anyOf/oneOf), `$request.path|query|header.x` one of its parameters, `$request.body#/…`
// its request body. And its `description` cites the API description (a quoted passage), since a link says what
// the description says flows from one answer into another request.
import { operations, resolveLocal } from "./walk.js";

/** The schema a JSON pointer reaches inside `schema` (following $ref and combinators), or undefined. */
function schemaAt(document, schema, tokens, depth = 0) {
  if (depth > 40 || !schema || typeof schema !== "object") return undefined;
  if (typeof schema.$ref === "string")
    return schemaAt(document, resolveLocal(document, schema.$ref), tokens, depth + 1);
  if (tokens.length === 0) return schema;
  for (const combinator of ["allOf", "anyOf", "oneOf"]) {
    for (const branch of Array.isArray(schema[combinator]) ? schema[combinator] : []) {
      const found = schemaAt(document, branch, tokens, depth + 1);
      if (found) return found;
    }
  }
  const [token, ...rest] = tokens;
  if (/^(0|[1-9]\d*)$/.test(token) && schema.items) return schemaAt(document, schema.items, rest, depth + 1);
  const properties = schema.properties;
  if (properties && typeof properties === "object" && Object.hasOwn(properties, token))
    return schemaAt(document, properties[token], rest, depth + 1);
  return undefined;
}

function pointerTokens(pointer) {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The parameters an operation takes (its path item's and its own), $refs followed. */
function parametersOf(document, pathItem, operation) {
  return [...(pathItem?.parameters ?? []), ...(operation?.parameters ?? [])]
    .map((parameter) => (parameter?.$ref ? resolveLocal(document, parameter.$ref) : parameter))
    .filter((parameter) => parameter && typeof parameter.name === "string");
}

function jsonSchemaOf(content) {
  if (!content || typeof content !== "object") return undefined;
  const mediaType = Object.keys(content).find((type) => /json/i.test(type)) ?? Object.keys(content)[0];
  return mediaType ? content[mediaType]?.schema : undefined;
}

export default function linksResolve(document) {
  const results = [];
  const byId = new Map();
  for (const found of operations(document))
    if (found.kind === "paths" && typeof found.operation.operationId === "string")
      byId.set(found.operation.operationId, found);
  for (const source of operations(document)) {
    if (source.kind !== "paths") continue;
    for (const [status, rawResponse] of Object.entries(source.operation.responses ?? {})) {
      const response = rawResponse?.$ref ? resolveLocal(document, rawResponse.$ref) : rawResponse;
      for (const [name, rawLink] of Object.entries(response?.links ?? {})) {
        const at = [...source.path, "responses", status, "links", name];
        const link = rawLink?.$ref ? resolveLocal(document, rawLink.$ref) : rawLink;
        const fail = (message, where = at) =>
          results.push({
            message: `Link "${name}" of ${source.operation.operationId} ${status}: ${message}`,
            path: where,
          });
        if (!link || typeof link !== "object") {
          fail(`${rawLink?.$ref} does not resolve`);
          continue;
        }
        let target;
        if (typeof link.operationId === "string") {
          target = byId.get(link.operationId);
          if (!target)
            fail(`operationId "${link.operationId}" is no operation of this document.`, [...at, "operationId"]);
        } else if (typeof link.operationRef === "string") {
          const operation = resolveLocal(document, link.operationRef);
          target = [...byId.values()].find((candidate) => candidate.operation === operation);
          if (!target)
            fail(`operationRef "${link.operationRef}" points at no operation of this document.`, [
              ...at,
              "operationRef",
            ]);
        } else fail("it names no operationId or operationRef.");
        const description = typeof link.description === "string" ? link.description : "";
        if (!/"[^"]{12,}"/.test(description))
          fail('its description must cite the API description: a quoted passage ("…") saying the value flows there.', [
            ...at,
            "description",
          ]);
        const targetParameters = target ? parametersOf(document, target.pathItem, target.operation) : undefined;
        const sourceParameters = parametersOf(document, source.pathItem, source.operation);
        for (const [key, value] of Object.entries(link.parameters ?? {})) {
          const where = [...at, "parameters", key];
          const qualified = /^(path|query|header|cookie)\.(.+)$/.exec(key);
          const matching = (targetParameters ?? []).filter((parameter) =>
            qualified
              ? parameter.in === qualified[1] &&
                (qualified[1] === "header"
                  ? parameter.name.toLowerCase() === qualified[2].toLowerCase()
                  : parameter.name === qualified[2])
              : parameter.name === key,
          );
          // Without a target (reported above) only the values are checked.
          if (target && matching.length === 0)
            fail(`${target.operation.operationId} takes no parameter ${key}.`, where);
          else if (target && matching.length > 1)
            fail(
              `${key} names ${matching.length} parameters of ${target.operation.operationId}: qualify it (path.${key}, query.${key}…).`,
              where,
            );
          if (typeof value !== "string" || !value.startsWith("$")) continue;
          const expression =
            /^\$(response|request)\.(body)(?:#(.*))?$|^\$(response|request)\.(header|path|query)\.(.+)$|^\$(url|method|statusCode)$/.exec(
              value,
            );
          if (!expression) {
            fail(`"${value}" is not a runtime expression a link can use.`, where);
            continue;
          }
          if (expression[2] === "body") {
            const schema =
              expression[1] === "response"
                ? jsonSchemaOf(response.content)
                : jsonSchemaOf(
                    document,
                    (source.operation.requestBody?.$ref
                      ? resolveLocal(document, source.operation.requestBody.$ref)
                      : source.operation.requestBody
                    )?.content,
                  );
            const pointer = expression[3] ?? "";
            if (!schema)
              fail(
                `"${value}": ${source.operation.operationId} ${expression[1] === "response" ? `answers ${status} without a JSON body` : "takes no JSON body"}.`,
                where,
              );
            else if (!/^(\/[^/]*)*$/.test(pointer) || !schemaAt(document, schema, pointerTokens(pointer)))
              fail(`"${value}": the ${expression[1]} body's schema has nothing at ${pointer || "(its root)"}.`, where);
          } else if (expression[4] === "request") {
            const [kind, parameterName] = [expression[5], expression[6]];
            const found = sourceParameters.some(
              (parameter) =>
                parameter.in === kind &&
                (kind === "header"
                  ? parameter.name.toLowerCase() === parameterName.toLowerCase()
                  : parameter.name === parameterName),
            );
            if (!found)
              fail(`"${value}": ${source.operation.operationId} takes no ${kind} parameter ${parameterName}.`, where);
          } else if (expression[4] === "response" && expression[5] === "header") {
            const headers = response.headers ?? {};
            if (!Object.keys(headers).some((header) => header.toLowerCase() === expression[6].toLowerCase()))
              fail(`"${value}": the ${status} answer declares no header ${expression[6]}.`, where);
          } else if (expression[4] === "response")
            fail(`"${value}": an answer has no ${expression[5]} parameters.`, where);
        }
      }
    }
  }
  return results;
}
