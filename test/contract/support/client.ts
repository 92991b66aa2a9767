/**
 * The success path of an operation. Until the typed client lands in src/, a plain fetch call.
 */
import type { Operation } from "./contract.ts";
import { call, type CallResult } from "./http.ts";

export async function successCall(baseUrl: string, op: Operation, body: unknown): Promise<CallResult> {
  return call(baseUrl, op, { body });
}
