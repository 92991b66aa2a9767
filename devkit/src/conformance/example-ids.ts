/**
 * The ids the contract's examples name. The sandbox seeds every new account with the records they name
 * (devkit/src/sandbox/flows/examples.ts), so that the reference's samples run as displayed; an example id is
 * therefore every sandbox account's own, and proves nothing about isolation. The isolation checks of verify and
 * the proxy leave these ids out (a real server holds none of them, so nothing is lost there).
 */
import { followRefs, isObject } from "../contract/refs.ts";
import { isObjectId } from "./links.ts";

const cache = new WeakMap<object, ReadonlySet<string>>();

/** Each string example of an id parameter (`cardId`, `X-Company-Id`) and each `id`/`…Id` value inside an example. */
export function contractExampleIds(document: Record<string, unknown>): ReadonlySet<string> {
  const known = cache.get(document);
  if (known) return known;
  const ids = new Set<string>();
  const isIdName = (name: string) => name === "id" || isObjectId(name) || name.toLowerCase() === "x-company-id";
  /** The string values of id fields in an example value, at any depth. */
  const fromValue = (value: unknown, depth = 0): void => {
    if (depth > 32) return;
    if (Array.isArray(value)) for (const item of value) fromValue(item, depth + 1);
    else if (isObject(value))
      for (const [key, inner] of Object.entries(value)) {
        if (typeof inner === "string" && isIdName(key)) ids.add(inner);
        else fromValue(inner, depth + 1);
      }
  };
  /** Every example (`example`, `examples.*.value`) anywhere in the document, with the parameter name it is for. */
  const walk = (node: unknown, depth = 0): void => {
    if (depth > 64) return;
    if (Array.isArray(node)) for (const item of node) walk(item, depth + 1);
    if (!isObject(node)) return;
    if (typeof node.name === "string" && typeof node.in === "string" && isIdName(node.name)) {
      const values = [
        node.example,
        ...Object.values(isObject(node.examples) ? node.examples : {}).map((raw) => {
          const example = followRefs(document, raw);
          return isObject(example) ? example.value : undefined;
        }),
      ];
      for (const value of values) if (typeof value === "string") ids.add(value);
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "example") fromValue(value);
      else if (key === "examples" && isObject(value))
        for (const raw of Object.values(value)) {
          const example = followRefs(document, raw);
          if (isObject(example)) fromValue(example.value);
        }
      walk(value, depth + 1);
    }
  };
  walk(document);
  cache.set(document, ids);
  return ids;
}
