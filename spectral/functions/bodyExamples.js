// Rule partner-body-examples: every JSON request body, JSON response and webhook body has at least one
// named example (`examples:`), so Prism can serve it with `Prefer: example=<name>`. A body whose shape the
// source does not show (schema `{}`) has nothing to exemplify and is exempt.
import { operations, resolveLocal } from "./walk.js";

const JSON_MEDIA = /^application\/([a-z0-9.+-]*\+)?json$/i;

export default function bodyExamples(document) {
  const results = [];
  const check = (content, at, what) => {
    if (!content || typeof content !== "object") return;
    for (const [mediaType, media] of Object.entries(content)) {
      if (!JSON_MEDIA.test(mediaType) || !media || typeof media !== "object") continue;
      const schema = media.schema?.$ref ? resolveLocal(document, media.schema.$ref) : media.schema;
      if (schema && typeof schema === "object" && Object.keys(schema).length === 0) continue;
      const named = media.examples && typeof media.examples === "object" ? Object.keys(media.examples) : [];
      if (named.length === 0) {
        results.push({
          message: `${what} (${mediaType}) has no named example: add \`examples: { someName: { value: … } }\`.`,
          path: [...at, mediaType],
        });
      }
    }
  };
  for (const { kind, key, method, operation, path } of operations(document)) {
    const id = operation.operationId ?? `${method.toUpperCase()} ${key}`;
    let body = operation.requestBody;
    const bodyAt = [...path, "requestBody"];
    if (body?.$ref) body = resolveLocal(document, body.$ref);
    if (body)
      check(body.content, [...bodyAt, "content"], `The ${kind === "webhooks" ? "webhook" : "request"} body of "${id}"`);
    for (const [status, raw] of Object.entries(operation.responses ?? {})) {
      const response = raw?.$ref ? resolveLocal(document, raw.$ref) : raw;
      const at = raw?.$ref ? raw.$ref.slice(2).split("/") : [...path, "responses", status];
      check(response?.content, [...at, "content"], `The ${status} response of "${id}"`);
    }
  }
  return results;
}
