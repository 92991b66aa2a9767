/**
 * An operation the contract has and no flow handles yet is answered from the contract's own examples rather than
 * refused: a contract change made in `openapi/` alone (a new operation) leaves the sandbox running, and the answer
 * says where it came from. The answer is the operation's lowest success status with its first named example (or
 * its inline one), marked by the `x-sandbox-answer` header, which the request log shows with the response's other
 * headers. `test/sandbox/units.test.ts` lists the operations without a handler and fails while there is one.
 */

import { followRefs } from "../contract/refs.ts";
import type { Operation } from "../contract/router.ts";
import type { AnyReply } from "./flows/flow.ts";

/** The header marking an answer made from the contract's examples: `contract-example; example=<name>`. */
export const EXAMPLE_ANSWER_HEADER = "x-sandbox-answer";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The example an operation answers with: its lowest 2xx status, the example's name and value (none: no body). */
export function exampleAnswerOf(
  document: unknown,
  operation: Pick<Operation, "path" | "method" | "operationId">,
): { status: number; example?: string; body?: unknown } {
  const paths = isObject(document) ? followRefs<unknown>(document, document.paths) : undefined;
  const item = isObject(paths) ? followRefs<unknown>(document, paths[operation.path]) : undefined;
  const declared = isObject(item) ? item[operation.method.toLowerCase()] : undefined;
  const responses = isObject(declared) ? declared.responses : undefined;
  const statuses = isObject(responses)
    ? Object.keys(responses)
        .filter((status) => /^2\d\d$/.test(status))
        .sort()
    : [];
  const status = statuses[0];
  if (status === undefined)
    throw new Error(
      `${operation.operationId} declares no success status: the sandbox cannot answer it from the contract`,
    );
  const response = followRefs<unknown>(document, (responses as Json)[status]);
  const content = isObject(response) && isObject(response.content) ? response.content : {};
  const json = Object.keys(content).find((type) => /json/i.test(type)) ?? Object.keys(content)[0];
  if (json === undefined) return { status: Number(status) };
  const media = content[json];
  if (isObject(media) && isObject(media.examples))
    for (const [name, raw] of Object.entries(media.examples)) {
      const example = followRefs<unknown>(document, raw);
      if (isObject(example) && example.value !== undefined)
        return { status: Number(status), example: name, body: example.value };
    }
  if (isObject(media) && media.example !== undefined)
    return { status: Number(status), example: "inline", body: media.example };
  throw new Error(
    `${operation.operationId}'s ${status} response has no example: the sandbox cannot answer it from the contract (npm run lint requires one)`,
  );
}

/** A handler answering `operation` from the contract's example, marked as such. */
export function exampleHandler(
  document: unknown,
  operation: Pick<Operation, "path" | "method" | "operationId">,
): () => AnyReply {
  const answer = exampleAnswerOf(document, operation);
  const mark = `contract-example${answer.example ? `; example=${answer.example}` : ""}`;
  return () => ({
    status: answer.status,
    ...(answer.body === undefined ? {} : { body: structuredClone(answer.body) }),
    headers: { [EXAMPLE_ANSWER_HEADER]: mark },
  });
}

/** The operations of `operations` that `handlers` (per API) has no handler for. */
export function operationsWithoutHandler(
  operations: readonly Operation[],
  handlers: Record<Operation["api"], object>,
): Operation[] {
  return operations.filter((operation) => !Object.hasOwn(handlers[operation.api], operation.operationId));
}
