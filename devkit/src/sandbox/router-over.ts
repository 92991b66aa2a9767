/** The sandbox's one router over its two contracts, wherever the documents come from (a file, a bundle). */
import { ContractRouter } from "../contract/router.ts";

export function routerOver(partner: Record<string, unknown>, control: Record<string, unknown>): ContractRouter {
  return new ContractRouter([
    { api: "control", document: control },
    { api: "partner", document: partner },
  ]);
}
