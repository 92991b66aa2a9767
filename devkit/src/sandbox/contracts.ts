/**
 * The two contracts the sandbox serves, read once per process, and the one router over both (it holds no state,
 * so every sandbox of the process shares it).
 */
import { readFileSync } from "node:fs";
import { isObject } from "../contract/refs.ts";
import { ContractRouter } from "../contract/router.ts";
import { contractJsonPath, sandboxContractJsonPath } from "../paths.ts";

let documents: { partner: Record<string, unknown>; control: Record<string, unknown> } | undefined;

function loadDocuments() {
  documents ??= {
    partner: JSON.parse(readFileSync(contractJsonPath, "utf8")),
    control: JSON.parse(readFileSync(sandboxContractJsonPath, "utf8")),
  };
  return documents;
}

let sharedRouter: ContractRouter | undefined;

/** One router for both contracts, shared by every sandbox of the process. */
export function sandboxRouter(): ContractRouter {
  const { partner, control } = loadDocuments();
  sharedRouter ??= new ContractRouter([
    { api: "control", document: control },
    { api: "partner", document: partner },
  ]);
  return sharedRouter;
}

/** The partner contract the sandbox serves, as parsed (shared: never change it). */
export function partnerDocument(): Record<string, unknown> {
  return loadDocuments().partner;
}

let ulidNames: ReadonlySet<string> | undefined;

/**
 * The names of the parameters (path and header, in both contracts) whose schema is the shared ULID schema. The
 * ULID standard reads either letter case and the contract takes both; the sandbox keeps ids as it makes them,
 * upper case, so it reads such a parameter upper-cased (server.ts).
 */
export function ulidParameterNames(): ReadonlySet<string> {
  if (ulidNames) return ulidNames;
  const names = new Set<string>();
  const walk = (document: Record<string, unknown>, node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) walk(document, item);
    if (!isObject(node)) return;
    if (typeof node.name === "string" && typeof node.in === "string" && isObject(node.schema)) {
      const schema = node.schema;
      if (typeof schema.$ref === "string" && /\/Ulid$/.test(schema.$ref)) names.add(node.name);
    }
    for (const [key, value] of Object.entries(node)) if (key !== "examples" && key !== "example") walk(document, value);
  };
  const { partner, control } = loadDocuments();
  walk(partner, partner);
  walk(control, control);
  ulidNames = names;
  return names;
}
