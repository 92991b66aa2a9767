/**
 * Local `$ref`s in a bundled OpenAPI document (`#/components/schemas/Card`): looking one up and following a
 * chain of them. The one resolver: the contract router (router.ts), the generator, the docs samples, the diff, the
 * benchmarks and the contract tests use it (the Spectral functions, plain JavaScript, keep a small one: see spectral/functions/walk.js).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One key as a JSON-pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`. */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The node a local reference points at; throws naming the reference when it is external or dangling. */
export function lookup(document: unknown, ref: string): Json {
  if (!ref.startsWith("#")) throw new Error(`external $ref "${ref}" in a bundled document: bundle it first`);
  let node = document as Json;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node) && key in node) node = node[Number(key)]!;
    else if (isObject(node) && key in node) node = node[key]!;
    else throw new Error(`$ref "${ref}" does not resolve`);
  }
  return node;
}

/** `value`, or what its `$ref` chain ends at (at most 20 hops); `undefined` stays `undefined`. */
export function followRefs<T = Json>(document: unknown, value: unknown): T {
  return followRefsFrom<T>(document, value, "").value;
}

/**
 * `followRefs`, also telling where the result lives: the last `$ref` of the chain, or `pointer` (where `value`
 * itself sits) when `value` is no reference. Callers that name a schema by pointer (a validator) need both.
 */
export function followRefsFrom<T = Json>(
  document: unknown,
  value: unknown,
  pointer: string,
): { value: T; pointer: string } {
  let current = value;
  let at = pointer;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    if (hops >= 20) throw new Error(`$ref chain too long at "${current.$ref}"`);
    at = current.$ref;
    current = lookup(document, at);
  }
  return { value: current as T, pointer: at };
}
