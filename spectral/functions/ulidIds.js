// Rule partner-ulid-ids: every identifier the source calls a ULID uses the one shared ULID schema,
// by reference, and nothing else uses it. Runs on the unresolved bundle, where shared schemas are $refs.
import { nodes, resolveLocal } from "./walk.js";

const ID_NAME = /^(id|[a-z][A-Za-z0-9]*Id|X-Company-Id)$/;

export default function ulidIds(document, options) {
  const ulidRef = options?.ulidRef ?? "#/components/schemas/Ulid";
  const ulidSchema = ulidRef.replace(/^#\//, "").split("/");
  const notUlid = new Set(options?.notUlid ?? []);
  const results = [];
  const isUlidRef = (schema) => schema && typeof schema === "object" && schema.$ref === ulidRef;
  const shared = resolveLocal(document, ulidRef);
  const pattern = typeof shared?.pattern === "string" ? shared.pattern : undefined;

  for (const { node, path } of nodes(document)) {
    const here = path.join(".");
    // Properties named like ids.
    if (node.properties && typeof node.properties === "object" && !Array.isArray(node.properties)) {
      for (const [name, schema] of Object.entries(node.properties)) {
        const where = [...path, "properties", name];
        const key = `${ownerName(path)}.${name}`;
        if (ID_NAME.test(name) && !notUlid.has(key) && !notUlid.has(name)) {
          if (!isUlidRef(schema)) {
            results.push({
              message: `"${key}" is an id the source calls a ULID: use \`$ref: '${ulidRef}'\` (or list it in notUlid).`,
              path: where,
            });
          }
        } else if (isUlidRef(schema)) {
          results.push({
            message: `"${key}" is not an id the source calls a ULID, but uses the shared ULID schema.`,
            path: where,
          });
        }
      }
    }
    // Parameters named like ids.
    if (typeof node.in === "string" && typeof node.name === "string" && node.schema) {
      const name = node.name;
      if (ID_NAME.test(name) && !notUlid.has(name)) {
        if (!isUlidRef(node.schema)) {
          results.push({
            message: `Parameter "${name}" is an id the source calls a ULID: its schema must be \`$ref: '${ulidRef}'\`.`,
            path: [...path, "schema"],
          });
        }
      } else if (isUlidRef(node.schema)) {
        results.push({
          message: `Parameter "${name}" is not an id the source calls a ULID, but uses the shared ULID schema.`,
          path: [...path, "schema"],
        });
      }
    }
    // Copies of the ULID pattern outside the shared schema.
    if (pattern && node.pattern === pattern && here !== ulidSchema.join(".")) {
      results.push({
        message: `A copy of the ULID pattern: reference '${ulidRef}' instead.`,
        path: [...path, "pattern"],
      });
    }
  }
  return results;
}

function ownerName(path) {
  const i = path.lastIndexOf("schemas");
  if (path[0] === "components" && i === 1 && typeof path[2] === "string") {
    return [
      path[2],
      ...path.slice(3).filter((segment) => segment !== "properties" && typeof segment === "string"),
    ].join(".");
  }
  return path.filter((segment) => typeof segment === "string").join(".");
}
