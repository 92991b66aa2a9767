/**
 * Property-based tests in the manner of Schemathesis's default checks, with fast-check and a fixed seed:
 * for every operation with input, generated valid requests get a documented 2xx whose content type and body
 * conform to the contract, and generated invalid ones (one part broken) get a 4xx; none gets a 5xx or no answer.
 */
import fc from "fast-check";
import { describe, expect, inject, it } from "vitest";
import { createValidator, listOperations, loadDocument } from "./support/contract.ts";
import { call, conformanceProblems, explain } from "./support/http.ts";
import { hasInput, invalidRequest, validRequest } from "./support/requests.ts";

const SEED = Number(process.env.CONTRACT_SEED ?? 20_261_122);
const RUNS = Number(process.env.CONTRACT_RUNS ?? 40);

const document = loadDocument();
const validator = createValidator(document);
const operations = listOperations(document).filter(hasInput);
const baseUrl = inject("prismUrl");

console.log(
  `[contract] fast-check seed ${SEED}, ${RUNS} valid and ${RUNS} invalid requests for each of ${operations.length} operations with input (CONTRACT_SEED / CONTRACT_RUNS override)`,
);

describe.each(operations.map((op) => [op.operationId, op] as const))("%s", (_, op) => {
  it(`${RUNS} generated valid requests get a conforming 2xx`, async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(validRequest(document, validator, op), async ({ input }) => {
        const result = await call(baseUrl, op, input);
        answered++;
        expect(result.status, explain(result)).toBeGreaterThanOrEqual(200);
        expect(result.status, explain(result)).toBeLessThan(300);
        expect(conformanceProblems(validator, op, result), explain(result)).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(answered).toBe(RUNS);
  });

  const invalid = invalidRequest(document, validator, op);
  it.runIf(invalid !== undefined)(`${RUNS} generated invalid requests get a 4xx, never a 5xx`, async () => {
    const broken = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(invalid!, async (request) => {
        const result = await call(baseUrl, op, request.input);
        broken.set(request.broken, (broken.get(request.broken) ?? 0) + 1);
        expect(result.status, `${request.broken} broken: ${explain(result)}`).toBeGreaterThanOrEqual(400);
        expect(result.status, `${request.broken} broken: ${explain(result)}`).toBeLessThan(500);
        // Where the contract documents the status, the answer must conform to it too.
        if (op.responses.has(String(result.status)))
          expect(conformanceProblems(validator, op, result), explain(result)).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(
      `[contract] ${op.operationId} invalid requests by broken part: ${[...broken].map(([part, n]) => `${part} ${n}`).join(", ")}`,
    );
    expect([...broken.values()].reduce((a, b) => a + b, 0)).toBe(RUNS);
  });
});
