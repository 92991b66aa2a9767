// Helpers shared by this API's Spectral functions: walking an unresolved (bundled) OpenAPI document.
//
// Plain JavaScript on purpose: Spectral's ruleset bundler (ours in `npm run lint`, and the stock
// `spectral lint` that editors and the pipeline benchmark load .spectral.yaml with) bundles these files with
// Rollup and cannot load TypeScript, so they cannot import src/http-methods.ts or devkit/src/refs.ts.
// Hence no list of HTTP methods here (an operation is told by its shape, below) and this one small
// `resolveLocal` serves every Spectral function.

/**
 * Every operation of `paths` and `webhooks`: { kind, key, method, pathItem, operation, path }. In a path
 * item the operations are the only members that are plain objects (`summary`, `description` and `$ref` are
 * strings, `parameters` and `servers` arrays), extensions (`x-…`) aside; Spectral's own `oas3-schema` rule
 * reports a key that is not a method.
 */
export function* operations(document) {
  for (const kind of ["paths", "webhooks"]) {
    const items = document?.[kind];
    if (!items || typeof items !== "object") continue;
    for (const [key, pathItem] of Object.entries(items)) {
      if (!pathItem || typeof pathItem !== "object") continue;
      for (const [method, operation] of Object.entries(pathItem)) {
        if (operation && typeof operation === "object" && !Array.isArray(operation) && !method.startsWith("x-")) {
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
