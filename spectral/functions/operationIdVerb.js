// Rule partner-operation-id-verb: operationIds are camelCase and start with a verb that fits the method.
import { operations } from "./walk.js";

const CAMEL_CASE = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$/;

export default function operationIdVerb(document, options) {
  const results = [];
  for (const { kind, key, method, operation, path } of operations(document)) {
    const id = operation.operationId;
    if (typeof id !== "string") continue; // the missing id is reported by operation-operationId
    const verbs = (kind === "webhooks" ? options?.webhookVerbs : options?.verbs)?.[method] ?? [];
    const verb = id.match(/^[a-z]+/)?.[0] ?? "";
    if (!CAMEL_CASE.test(id)) {
      results.push({ message: `operationId "${id}" is not camelCase.`, path: [...path, "operationId"] });
    } else if (!verbs.includes(verb)) {
      const allowed = verbs.length > 0 ? verbs.join(", ") : "(none configured)";
      results.push({
        message: `operationId "${id}" starts with "${verb}", which does not fit ${method.toUpperCase()} ${kind === "webhooks" ? `webhook ${key}` : key}: use one of ${allowed}.`,
        path: [...path, "operationId"],
      });
    }
  }
  return results;
}
