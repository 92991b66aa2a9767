// Helpers shared by this API's Spectral functions: walking an unresolved (bundled) OpenAPI document.

export const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every operation of `paths` and `webhooks`: { kind, key, method, pathItem, operation, path }. */
export function* operations(document) {
  for (const kind of ["paths", "webhooks"]) {
    const items = document?.[kind];
    if (!items || typeof items !== "object") continue;
    for (const [key, pathItem] of Object.entries(items)) {
      if (!pathItem || typeof pathItem !== "object") continue;
      for (const method of METHODS) {
        const operation = pathItem[method];
        if (operation && typeof operation === "object") {
          yield { kind, key, method, pathItem, operation, path: [kind, key, method] };
        }
      }
    }
  }
}

/** Resolves a local `#/...` reference against the document; returns undefined when it does not resolve. */
export function resolveLocal(document, ref) {
  if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined;
  let node = document;
  for (const raw of ref.slice(2).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!node || typeof node !== "object" || !(segment in node)) return undefined;
    node = node[segment];
  }
  return node;
}

/** Visits every object node under `node` with its path (arrays included), depth first. */
export function* nodes(node, path = []) {
  if (!node || typeof node !== "object") return;
  yield { node, path };
  for (const [key, child] of Object.entries(node)) {
    yield* nodes(child, [...path, Array.isArray(node) ? Number(key) : key]);
  }
}
