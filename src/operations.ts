/** Looks up what the contract says about an operation, by method and path template. */
import { operations } from "../generated/contract.ts";

export type OperationFacts = (typeof operations)[keyof typeof operations];

const byKey: Record<string, OperationFacts | undefined> = operations;

export function operationFor(method: string, schemaPath: string): OperationFacts | undefined {
  return byKey[`${method.toUpperCase()} ${schemaPath}`];
}
