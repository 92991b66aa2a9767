/**
 * The two contracts the sandbox serves, read once per process, and the one router over both (it holds no state,
 * so every sandbox of the process shares it). partner-api-devkit/msw builds its router over the same documents,
 * bundled with its code rather than read from files (`routerOver`).
 */
import { readFileSync } from "node:fs";
import { contractJsonPath, sandboxContractJsonPath } from "../paths.ts";
import type { ContractRouter } from "./router.ts";
import { routerOver } from "./router-over.ts";

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
  sharedRouter ??= routerOver(partner, control);
  return sharedRouter;
}

/** The partner contract the sandbox serves, as parsed (shared: never change it). */
export function partnerDocument(): Record<string, unknown> {
  return loadDocuments().partner;
}
