/**
 * The mock survives bad input: malformed JSON, a wrong content type, an unknown path and an oversized body
 * each get a 4xx and the mock still answers afterwards; a burst of 2,000 requests at 20 concurrent is all
 * answered. How fast Prism answers is measured in bench/ (the mock benchmark), never asserted here.
 */
import { describe, expect, inject, it } from "vitest";
import { listOperations, loadDocument, type Operation } from "./support/contract.ts";
import { call, explain, TEST_API_KEY } from "./support/http.ts";

const operations = listOperations(loadDocument());
const baseUrl = inject("prismUrl");
const byId = (id: string): Operation => {
  const op = operations.find((o) => o.operationId === id);
  if (!op) throw new Error(`the contract has no operation ${id}`);
  return op;
};
const withBody = operations.filter((op) => op.requestBody);

/** Only so that a request Prism never answers fails naming itself, before the test's own timeout. */
const NO_ANSWER_MS = 20_000;
const BURST_REQUESTS = 2_000;
const BURST_CONCURRENCY = 20;

async function expectStillAnswers(): Promise<void> {
  const result = await call(baseUrl, byId("listCompanies"));
  expect(result.status, explain(result)).toBe(200);
}

function expect4xx(result: Awaited<ReturnType<typeof call>>): void {
  expect(result.status, explain(result)).toBeGreaterThanOrEqual(400);
  expect(result.status, explain(result)).toBeLessThan(500);
}

describe("bad input gets a 4xx, and the mock still answers afterwards", () => {
  // The mock's front answers this one (Prism 5.15.10 to 5.16.0 never do; docs/design/toolchain.md).
  it.each(withBody.map((op) => [op.operationId, op] as const))("malformed JSON to %s", async (_, op) => {
    const result = await call(baseUrl, op, { rawBody: '{"name": "unterminated', timeoutMs: NO_ANSWER_MS });
    expect4xx(result);
    expect(result.status).toBe(400);
    expect(result.mediaType).toBe("application/problem+json");
    expect(result.body).toMatchObject({ status: 400, title: "Malformed JSON" });
    expect((result.body as { detail: string }).detail).toMatch(/^the body is sent as JSON but is not JSON: /);
    await expectStillAnswers();
  });

  it.each(withBody.map((op) => [op.operationId, op] as const))("a wrong content type to %s", async (_, op) => {
    const body = Object.values(op.requestBody!.examples)[0];
    const result = await call(baseUrl, op, {
      rawBody: JSON.stringify(body),
      contentType: "text/plain",
      timeoutMs: NO_ANSWER_MS,
    });
    expect4xx(result);
    // Prism answers with the contract's own 422 where the operation documents one, else its 415.
    expect(result.status).toBe(op.responses.has("422") ? 422 : 415);
    await expectStillAnswers();
  });

  it.each([
    ["GET", "/v1/no-such-resource"],
    ["GET", "/"],
    ["DELETE", "/v1/companies"],
    ["GET", "/v1/cards/01JD8X9N4E2R6T8V0W2Y4Z6A8C/no-such-action"],
  ])("unknown path or method: %s %s", async (method, path) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { "X-API-Key": TEST_API_KEY },
      signal: AbortSignal.timeout(NO_ANSWER_MS),
    });
    await response.text();
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    await expectStillAnswers();
  });

  it("an oversized body (11 MB, over Prism's 10 MB limit) to onboardCompany", async () => {
    const op = byId("onboardCompany");
    const body = { ...(Object.values(op.requestBody!.examples)[0] as object), name: "x".repeat(11 * 1024 * 1024) };
    const result = await call(baseUrl, op, { body, timeoutMs: NO_ANSWER_MS });
    expect4xx(result);
    expect(result.status).toBe(413);
    await expectStillAnswers();
  });

  // At log level info Prism 5.14.2 died on this one (see DEFAULT_PRISM_LOG_LEVEL in devkit/src/prism.ts); the front
  // answers it now (MAX_JSON_DEPTH), and the 4xx is what counts.
  it.each([
    ["arrays", "[".repeat(50_000) + "]".repeat(50_000)],
    ["objects", `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`],
  ])("a body of deeply nested %s (50,000 levels) to createCard", async (_, rawBody) => {
    const result = await call(baseUrl, byId("createCard"), { rawBody, timeoutMs: NO_ANSWER_MS });
    expect4xx(result);
    await expectStillAnswers();
  });
});

describe("load", () => {
  it(`a burst of ${BURST_REQUESTS} requests at ${BURST_CONCURRENCY} concurrent is all answered`, async () => {
    // A mix of reads across the contract, including company-scope ones and one that Prism rejects.
    const mix = [
      () => call(baseUrl, byId("listCompanies")),
      () => call(baseUrl, byId("getTransaction")),
      () => call(baseUrl, byId("listCards"), { query: { page: 2, limit: 10 } }),
      () => call(baseUrl, byId("getPaymentRoute")),
      () => call(baseUrl, byId("listCardBins"), { companyId: null }),
    ];
    const expected = [200, 200, 200, 200, 422];
    const durations: number[] = [];
    const failures: string[] = [];
    let next = 0;
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < BURST_REQUESTS) {
        const index = next++;
        try {
          const result = await mix[index % mix.length]!();
          durations.push(result.ms);
          if (result.status !== expected[index % mix.length]) failures.push(explain(result));
        } catch (error) {
          failures.push((error as Error).message);
        }
      }
    };
    await Promise.all(Array.from({ length: BURST_CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    durations.sort((a, b) => a - b);
    const p = (q: number): number =>
      durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? Number.NaN;
    console.log(
      `[contract] burst: ${durations.length}/${BURST_REQUESTS} answered at ${BURST_CONCURRENCY} concurrent in ${seconds.toFixed(2)} s ` +
        `(${Math.round(durations.length / seconds)} req/s; p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${p(1).toFixed(1)} ms)`,
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(durations).toHaveLength(BURST_REQUESTS);
    await expectStillAnswers();
  }, 90_000);
});
