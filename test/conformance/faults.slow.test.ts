/**
 * verify against deliberately broken implementations: the real sandbox behind a server that breaks one thing
 * (support/faulty.ts), one fixture or more per check id (support/fixtures.ts). Each must make its check fire on the
 * right operation (or webhook event type); the sandbox itself, and implementations that keep to the contract where
 * the sandbox picks otherwise, keep every check quiet; an account with nothing reachable cannot pass.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECKS, VERIFY_CHECK_IDS } from "../../devkit/src/conformance/checks.ts";
import { describeVerdict, passed } from "../../devkit/src/conformance/report.ts";
import { type VerifyOptions, type VerifyReport, verify } from "../../devkit/src/conformance/verify.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { type Fault, pathOf, startFaulty } from "./support/faulty.ts";
import { FIXTURES, GOOD, TRUNCATED_CARD_HOLDER } from "./support/fixtures.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 3 });
});
afterAll(async () => {
  await sandbox.stop();
});

let accounts = 0;
/** verify through a fault on accounts of its own (`-a`, and `-b` when the options name another account). */
async function verifyThrough(
  fault: (self: () => string) => Fault,
  options: Partial<VerifyOptions> = {},
): Promise<VerifyReport> {
  let url = "";
  const faulty = await startFaulty(
    sandbox.url,
    fault(() => url),
  );
  url = faulty.url;
  accounts++;
  try {
    return await verify({
      baseUrl: faulty.url,
      apiKey: `fault-${accounts}-a`,
      generated: 0,
      webhookWaitMs: 3_000,
      ...options,
      ...(options.otherApiKey !== undefined ? { otherApiKey: `fault-${accounts}-b` } : {}),
    });
  } finally {
    await faulty.close();
  }
}

describe("every check of verify is proven to fire", () => {
  it("each check id has a fixture, and --checks knows only verify's ids", () => {
    expect(CHECKS.map((check) => check.id)).toEqual([...VERIFY_CHECK_IDS]);
    for (const id of VERIFY_CHECK_IDS) expect(FIXTURES[id]?.length ?? 0, id).toBeGreaterThan(0);
    expect(VERIFY_CHECK_IDS).not.toContain("request_conformance");
  });

  const cases = VERIFY_CHECK_IDS.flatMap((id) => FIXTURES[id].map((fixture) => [id, fixture.name, fixture] as const));
  it.each(cases)("%s: %s", async (id, _name, fixture) => {
    const checks = new Set<string>([id, ...(fixture.also ?? [])]);
    // The examples phase alone unless the fixture asks for coverage: each fixture proves its check, and the
    // coverage phase is proven by its own fixture (and kept quiet on the good implementations below).
    const report = await verifyThrough(fixture.fault, { phases: new Set(["examples"]), ...fixture.options, checks });
    const level = CHECKS.find((check) => check.id === id)!.level;
    const found = (level === "error" ? report.failures : report.warnings).filter((failure) => failure.check === id);
    expect(found.length, JSON.stringify(report.skipped)).toBeGreaterThan(0);
    const where = new Set(found.map((failure) => failure.operationId));
    for (const operationId of fixture.fires) expect(where, operationId).toContain(operationId);
    if (!fixture.among) expect([...where].sort()).toEqual([...fixture.fires].sort());
    if (fixture.message) expect(found.some((failure) => fixture.message!.test(failure.message))).toBe(true);
    if (level === "error" && !fixture.also) expect(report.failures.every((failure) => failure.check === id)).toBe(true);
  });
});

describe("what keeps to the contract passes; what cannot be checked does not", () => {
  it.each(GOOD.map((good) => [good.name, good.fault] as const))("%s: every check quiet", async (_name, fault) => {
    const report = await verifyThrough(() => fault, { allowWrites: true, otherApiKey: "" });
    expect(report.failures).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.couldNotCheck, JSON.stringify(report.notExercised)).toBe(false);
    expect(passed(report)).toBe(true);
  });

  it("the coverage phase is what catches an id cut to its length: without it (--phases examples) the run passes", async () => {
    const report = await verifyThrough(TRUNCATED_CARD_HOLDER.fault, {
      ...TRUNCATED_CARD_HOLDER.options,
      checks: new Set(["negative_data_rejection"]),
      phases: new Set(["examples"]),
    });
    expect(report.phases).toEqual(["examples"]);
    expect(report.failures).toEqual([]);
    expect(Object.values(report.matrix).reduce((sum, row) => sum + (row.negative ?? 0), 0)).toBeGreaterThan(20);
  });

  it("a broken list is judged, not a set-up failure: the rest of the run goes on and says what it could not do", async () => {
    const report = await verifyThrough(() => ({
      response(request, response) {
        if (request.method === "GET" && pathOf(request) === "/v1/companies" && response.status === 200) {
          const body = JSON.parse(response.body);
          for (const company of body.companies) company.id = "not-a-ulid";
          response.body = JSON.stringify(body);
        }
      },
    }));
    expect(report.failures.length).toBeGreaterThan(0);
    expect(new Set(report.failures.map((failure) => `${failure.check} ${failure.operationId}`))).toEqual(
      new Set(["response_schema_conformance listCompanies"]),
    );
    expect(report.couldNotCheck).toBe(true);
    expect(report.notExercised.map((skip) => skip.what)).toContain("listCards");
    expect(report.notExercised.find((skip) => skip.what === "listCards")!.reason).toMatch(/no company to act for/);
    // The workflow that lists companies stops there, after its answer was judged, and says why.
    expect(report.skipped).toContainEqual({
      what: "workflow ledger-entry-as-transaction (sandbox.arazzo.yaml)",
      reason: expect.stringMatching(
        /^stopped: workflow ledger-entry-as-transaction, step firstCompany: GET .*\/v1\/companies failed: its answer \(200\) breaks the contract \(reported under listCompanies\).*what it would have done next was not checked$/,
      ),
    });
  });

  it("an account with nothing reachable (no company listed, onboarding refused) could not be checked: exit 1", async () => {
    const report = await verifyThrough(
      () => ({
        response(request, response) {
          if (request.method === "GET" && pathOf(request) === "/v1/companies" && response.status === 200) {
            const body = JSON.parse(response.body);
            body.companies = [];
            body.pagination = { ...body.pagination, totalPages: 0 };
            response.body = JSON.stringify(body);
          }
          if (request.method === "POST" && pathOf(request) === "/v1/companies") {
            response.status = 409;
            response.headers["content-type"] = "application/problem+json";
            response.body = '{"title":"onboarding is closed for this account"}';
          }
        },
      }),
      { allowWrites: true },
    );
    expect(report.failures).toEqual([]);
    expect(report.couldNotCheck).toBe(true);
    expect(passed(report)).toBe(false);
    // Each workflow that onboards stops at that step, with the status and the target's own words.
    expect(report.skipped).toContainEqual({
      what: "workflow onboard-company (partner-api.arazzo.yaml)",
      reason: expect.stringMatching(
        /^stopped: workflow onboard-company, step onboard failed: \$statusCode == 201 — it answered 409: .*onboarding is closed for this account.*what it would have done next was not checked$/,
      ),
    });
    expect(report.exercised.operations).toBeLessThanOrEqual(2);
    expect(describeVerdict(report, false)).toMatch(
      /^could not check: .*listCards.* never got a request that should succeed/,
    );
  });
});
