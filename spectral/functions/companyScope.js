// Rule partner-company-scope: company-scope operations carry the shared X-Company-Id parameter by
// reference; the operations the source lists without company scope do not; nobody defines the header inline.
import { operations, resolveLocal } from "./walk.js";

export default function companyScope(document, options) {
  const parameterRef = options?.parameterRef ?? "#/components/parameters/CompanyId";
  const headerName = (options?.headerName ?? "X-Company-Id").toLowerCase();
  const unscoped = new Set(options?.unscopedOperations ?? []);
  const results = [];
  if (!resolveLocal(document, parameterRef)) {
    return [{ message: `The shared company parameter '${parameterRef}' does not exist.`, path: ["components"] }];
  }
  for (const { kind, key, method, pathItem, operation, path } of operations(document)) {
    if (kind !== "paths") continue;
    const all = [
      ...(pathItem.parameters ?? []).map((p, i) => ({ p, at: [kind, key, "parameters", i] })),
      ...(operation.parameters ?? []).map((p, i) => ({ p, at: [...path, "parameters", i] })),
    ];
    for (const { p, at } of all) {
      if (p && typeof p.name === "string" && p.name.toLowerCase() === headerName) {
        results.push({
          message: `Define ${options?.headerName ?? "X-Company-Id"} once: use \`$ref: '${parameterRef}'\` instead of an inline parameter.`,
          path: at,
        });
      }
    }
    const hasShared = all.some(({ p }) => p && p.$ref === parameterRef);
    const id = operation.operationId ?? `${method.toUpperCase()} ${key}`;
    if (unscoped.has(operation.operationId) && hasShared) {
      results.push({ message: `"${id}" has no company scope in the source, but carries '${parameterRef}'.`, path });
    } else if (!unscoped.has(operation.operationId) && !hasShared) {
      results.push({
        message: `"${id}" has company scope: add \`$ref: '${parameterRef}'\` to its parameters (or list it in unscopedOperations).`,
        path,
      });
    }
  }
  return results;
}
