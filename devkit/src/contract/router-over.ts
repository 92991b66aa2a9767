/** The sandbox's one router over its two contracts, wherever the documents come from (a file, a bundle). */
import { isObject } from "./refs.ts";
import { ContractRouter } from "./router.ts";

export function routerOver(partner: Record<string, unknown>, control: Record<string, unknown>): ContractRouter {
  return new ContractRouter([
    { api: "control", document: control },
    { api: "partner", document: partner },
  ]);
}

const ulidNames = new WeakMap<ContractRouter, ReadonlySet<string>>();

/**
 * The names of the parameters (path and header, in the router's contracts) whose schema is the shared ULID schema.
 * The ULID standard reads either letter case and the contract takes both; the sandbox keeps ids as it makes them,
 * upper case, so it reads such a parameter upper-cased (server.ts).
 */
export function ulidParameterNames(router: ContractRouter): ReadonlySet<string> {
  const known = ulidNames.get(router);
  if (known) return known;
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) walk(item);
    if (!isObject(node)) return;
    if (typeof node.name === "string" && typeof node.in === "string" && isObject(node.schema)) {
      const schema = node.schema;
      if (typeof schema.$ref === "string" && /\/Ulid$/.test(schema.$ref)) names.add(node.name);
    }
    for (const [key, value] of Object.entries(node)) if (key !== "examples" && key !== "example") walk(value);
  };
  for (const document of router.documents.values()) walk(document);
  ulidNames.set(router, names);
  return names;
}
