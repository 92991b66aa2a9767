/**
 * `page` and `limit` written as numbers JSON cannot carry or the sandbox cannot hold exactly (`Infinity`,
 * `1e400`, 9007199254740993): a 422 naming the parameter, never a 200 with `perPage: null` or another number
 * than the one sent. A property over any text for either: every answer is contract-valid (`request` checks it
 * against the contract), a 200 serves safe whole numbers, a 4xx names the parameter it refused.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { clientFor, request, seededCompany } from "./support.ts";

let sandbox: Sandbox;
let companyId: string;
const apiKey = "page-numbers";
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 9, frozen: true, startTime: "2030-01-01T00:00:00Z" });
  ({ companyId } = await seededCompany(clientFor(sandbox.url, apiKey)));
});
afterAll(() => sandbox.stop());

const list = (query: string) => request(sandbox.url, "GET", `/v1/cards?${query}`, { apiKey, companyId });

describe("page and limit", () => {
  it.each([
    ["limit", "Infinity"],
    ["limit", "-Infinity"],
    ["limit", "1e400"],
    ["page", "9007199254740993"],
    ["page", "9007199254740992"],
    ["limit", "-9007199254740993"],
  ])("%s=%s is refused naming the parameter", async (name, value) => {
    const answer = await list(`${name}=${encodeURIComponent(value)}`);
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toContain(`query parameter ${name}`);
    expect(answer.body.detail).toContain(value);
  });

  it("the largest safe page is served as itself", async () => {
    const answer = await list("page=9007199254740991&limit=9007199254740991");
    expect(answer.status).toBe(200);
    expect(answer.body.pagination).toMatchObject({ currentPage: 9007199254740991, perPage: 9007199254740991 });
  });

  it("any text for either: a contract-valid answer, 200 with safe whole numbers or 4xx naming the parameter", async () => {
    const numberText = fc.oneof(
      fc.integer().map(String),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.double().map(String),
      fc.constantFrom("Infinity", "-Infinity", "NaN", "1e400", "0x10", "1_000", " 1", "", "-0", "0", "1e3"),
      fc.string({ maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.option(numberText), fc.option(numberText), async (page, limit) => {
        const query = new URLSearchParams();
        if (page !== null) query.set("page", page);
        if (limit !== null) query.set("limit", limit);
        const answer = await list(query.toString());
        if (answer.status === 200) {
          const { currentPage, perPage, totalPages } = answer.body.pagination;
          for (const value of [currentPage, perPage, totalPages]) expect(Number.isSafeInteger(value)).toBe(true);
          if (page !== null && Number.isSafeInteger(Number(page)) && Number(page) >= 1)
            expect(currentPage).toBe(Number(page));
        } else {
          expect(answer.status).toBeGreaterThanOrEqual(400);
          expect(answer.status).toBeLessThan(500);
          expect(answer.body.detail).toMatch(/query parameter (page|limit)/);
        }
      }),
      { numRuns: 150, seed: 41 },
    );
  });
});
