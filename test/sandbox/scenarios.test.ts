/**
 * Scenarios: each shipped one brings an account to the state it names; a posted one chains calls with
 * references to earlier answers; files given at start run before the first call; the same seed, start time
 * and frozen clock give the same ids every run; every way a scenario can be wrong is refused naming it.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a scenario refers to earlier answers as ${name.path}, in plain strings
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { clientFor, ONBOARD_BODY } from "./support.ts";

let sandbox: Sandbox;
let folder: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 51 });
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-scenarios-"));
});
afterAll(async () => {
  await sandbox.stop();
  await rm(folder, { recursive: true, force: true });
});

const SHIPPED = ["approved-company", "card-issued", "company-with-onramp-and-deposits"];

describe("the shipped scenarios", () => {
  it("are listed with their steps", async () => {
    const { data } = await sandbox.controlFor(undefined, { throwOnError: true }).GET("/_sandbox/scenarios");
    expect(data.scenarios.map((scenario) => scenario.name)).toEqual(SHIPPED);
    for (const scenario of data.scenarios) {
      expect(scenario.description).toBeTruthy();
      expect(scenario.steps.length).toBeGreaterThan(0);
    }
  });

  it("approved-company: a Swap company with verification approved and terms accepted", async () => {
    const client = clientFor(sandbox.url, "scenario-approved");
    const run = await client.post("/_sandbox/scenarios", { name: "approved-company" });
    expect(run.status).toBe(200);
    expect(run.body.scenario).toBe("approved-company");
    const companyId = run.body.steps[0].body.company.id;
    const company = (await client.get("/v1/companies")).body.companies.find((c: { id: string }) => c.id === companyId);
    expect(company.swap).toMatchObject({ kycStatus: "approved", tosAccepted: true });
    const events = (await client.get("/_sandbox/events")).body.events.map((e: { type: string }) => e.type);
    expect(events).toEqual(["company.kyc_status_changed", "company.kyc_link.issued"]);
  });

  it("company-with-onramp-and-deposits: an active on-ramp route with three deposits, each readable", async () => {
    const client = clientFor(sandbox.url, "scenario-onramp");
    const run = await client.post("/_sandbox/scenarios", { name: "company-with-onramp-and-deposits" });
    expect(run.status).toBe(200);
    const steps = new Map(run.body.steps.map((step: { name?: string; body: unknown }) => [step.name, step.body]));
    const companyId = (steps.get("company") as any).company.id;
    const routeId = (steps.get("route") as any).paymentRoute.id;
    const route = await client.get(`/v1/payment-routes/${routeId}`, { companyId });
    expect(route.body.paymentRoute).toMatchObject({ type: "onramp", status: "active" });
    const deposits = ["firstDeposit", "secondDeposit", "thirdDeposit"].map(
      (name) => (steps.get(name) as any).transaction,
    );
    expect(deposits.map((t: { amount: number }) => t.amount)).toEqual([100, 250, 1000]);
    for (const deposit of deposits)
      expect((await client.get(`/transactions/${deposit.id}`)).body.transaction).toEqual(deposit);
    const events = (await client.get("/_sandbox/events")).body.events.map((e: { type: string }) => e.type);
    expect(events.filter((type: string) => type === "payment_route.transaction.created")).toHaveLength(3);
  });

  it("card-issued: a card on the seeded company, Active", async () => {
    const client = clientFor(sandbox.url, "scenario-card");
    const run = await client.post("/_sandbox/scenarios", { name: "card-issued" });
    expect(run.status).toBe(200);
    const cardId = run.body.steps.find((step: { name?: string }) => step.name === "card").body.card.id;
    const companyId = run.body.steps[0].body.companies[0].id;
    const cards = (await client.get("/v1/cards", { companyId })).body.cards;
    expect(cards).toEqual([expect.objectContaining({ id: cardId, status: "Active", name: "Team travel" })]);
  });

  it("give the same ids every run for the same seed and start time (started frozen), others for another seed", async () => {
    const idsOf = async (seed: number) => {
      const started = await startSandbox({
        port: 0,
        seed,
        startTime: "2030-05-01T12:00:00Z",
        frozen: true,
        scenarios: ["company-with-onramp-and-deposits"],
        scenarioApiKey: "repeatable",
      });
      try {
        const client = clientFor(started.url, "repeatable");
        const companies = (await client.get("/v1/companies")).body.companies.map((c: { id: string }) => c.id);
        const events = (await client.get("/_sandbox/events")).body.events.map((e: { id: string }) => e.id);
        return { companies, events };
      } finally {
        await started.stop();
      }
    };
    const first = await idsOf(8);
    expect(first.companies).toHaveLength(2);
    expect(first.events.length).toBeGreaterThan(4);
    expect(await idsOf(8)).toEqual(first);
    const other = await idsOf(9);
    expect(other.companies).not.toEqual(first.companies);
  });
});

describe("a posted scenario", () => {
  it("chains calls: references fill paths, bodies and headers; a whole reference keeps its type", async () => {
    const client = clientFor(sandbox.url, "scenario-posted");
    const run = await client.post("/_sandbox/scenarios", {
      scenario: {
        steps: [
          { include: "approved-company" },
          {
            name: "route",
            operationId: "createPaymentRoute",
            params: { companyId: "${company.id}" },
            body: { type: "offramp" },
          },
          {
            name: "fee",
            operationId: "getPaymentRoute",
            companyId: "${company.id}",
            params: { routeId: "${route.id}" },
          },
          {
            name: "topUp",
            operationId: "createSpendingAccountEntry",
            params: { companyId: "${company.company.id}" },
            body: {
              type: "Account",
              direction: "Credit",
              amount: "${fee.paymentRoute.feePercent}",
              description: "fee of ${route.id}",
            },
          },
          {
            operationId: "listSpendingAccountTransactions",
            companyId: "${company.id}",
            params: { type: "Credit", limit: 1 },
          },
        ],
      },
    });
    expect(run.status, run.text).toBe(200);
    expect(run.body.scenario).toBe("(posted)");
    const byName = new Map(run.body.steps.map((step: { name?: string }) => [step.name, step]));
    const route = (byName.get("route") as any).body.paymentRoute;
    const topUp = (byName.get("topUp") as any).body.entry;
    expect(topUp.transaction).toMatchObject({ amount: "0.50", description: `fee of ${route.id}` });
    const last = run.body.steps.at(-1);
    expect(last).toMatchObject({
      operationId: "listSpendingAccountTransactions",
      method: "GET",
      path: "/v1/card-spending-account/transactions",
      status: 200,
    });
    expect(last.body.transactions[0].transaction.id).toBe(topUp.transaction.id);
    // The steps went through the front like any call, logged under the scenario's name.
    const logged = await client.get("/_sandbox/requests?operationId=getPaymentRoute");
    expect(logged.body.requests[0]).toMatchObject({ scenario: "(posted)", status: 200 });
  });

  it("runs with the clock held frozen, and lets it run again after", async () => {
    const client = clientFor(sandbox.url, "scenario-clock");
    const run = await client.post("/_sandbox/scenarios", {
      scenario: {
        steps: [
          { name: "before", operationId: "getClock" },
          { operationId: "onboardCompany", body: { ...onboardBody("Frozen Co") } },
          { name: "after", operationId: "getClock" },
        ],
      },
    });
    expect(run.status).toBe(200);
    const [before, , after] = run.body.steps;
    expect(before.body.frozen).toBe(true);
    expect(after.body.now).toBe(before.body.now);
    expect((await client.get("/_sandbox/clock")).body.frozen).toBe(false);
  });

  it.each([
    [{ name: "no-such-scenario" }, 404, /no shipped scenario is called "no-such-scenario" \(approved-company, /],
    [{ scenario: { steps: [] } }, 422, /steps must NOT have fewer than 1 items/],
    [{ name: "approved-company", scenario: { steps: [{ operationId: "listCompanies" }] } }, 422, /oneOf/],
    [
      { scenario: { steps: [{ operationId: "makeMoney" }] } },
      422,
      /step 1: operationId "makeMoney" is not an operation/,
    ],
    [
      { scenario: { steps: [{ operationId: "runScenario" }] } },
      422,
      /step 1: operationId "runScenario" is not allowed in a scenario/,
    ],
    [{ scenario: { steps: [{ include: "nothing" }] } }, 422, /step 1: include "nothing" is not a shipped scenario/],
    [
      {
        scenario: { steps: [{ operationId: "getPaymentRoute", companyId: "${nobody.id}", params: { routeId: "x" } }] },
      },
      422,
      /step 1 \(getPaymentRoute\): \$\{nobody\.id\} names no earlier step "nobody" \(named so far: none\)/,
    ],
    [
      {
        scenario: {
          steps: [
            { name: "c", operationId: "listCompanies" },
            { operationId: "listWallets", params: { companyId: "${c.companies.7.id}" } },
          ],
        },
      },
      422,
      /step 2 \(listWallets\): \$\{c\.companies\.7\.id\}: the answer of "c" has no 7 there/,
    ],
    [
      { scenario: { steps: [{ operationId: "listWallets" }] } },
      422,
      /step 1 \(listWallets\): params\.companyId is required/,
    ],
    [
      { scenario: { steps: [{ operationId: "listCompanies", params: { colour: "red" } }] } },
      422,
      /params\.colour is not a path or query parameter of listCompanies/,
    ],
    [
      {
        scenario: {
          steps: [
            { operationId: "listCompanies" },
            { operationId: "getCardHolder", params: { cardHolderId: "01JD8X4M6Q2V7R9T3W5Y0Z1A2B" } },
          ],
        },
      },
      422,
      /step 2 \(getCardHolder\) answered 422: .*X-Company-Id/,
    ],
    [
      { scenario: { steps: [{ operationId: "listCompanies", expect: 404 }] } },
      422,
      /step 1 \(listCompanies\) answered 200 \(expected 404\)/,
    ],
  ])("refuses %j (%i), naming what is wrong", async (body, status, message) => {
    const answer = await clientFor(sandbox.url, "scenario-refused").post("/_sandbox/scenarios", body);
    expect(answer.status).toBe(status);
    expect(answer.body.detail).toMatch(message);
  });

  it("needs an account for account-scoped steps", async () => {
    const answer = await fetch(`${sandbox.url}/_sandbox/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "approved-company" }),
    });
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { detail: string }).detail).toMatch(
      /needs an account: call runScenario with X-API-Key/,
    );
  });
});

describe("scenario files at start", () => {
  it("run a YAML file as the scenario's apiKey, before the first call", async () => {
    const file = path.join(folder, "two-companies.yaml");
    await writeFile(
      file,
      [
        "name: two-companies",
        "apiKey: from-file",
        "steps:",
        "  - operationId: onboardCompany",
        `    body: ${JSON.stringify(onboardBody("First File Co"))}`,
        "  - operationId: onboardCompany",
        `    body: ${JSON.stringify(onboardBody("Second File Co"))}`,
      ].join("\n"),
    );
    const started = await startSandbox({ port: 0, scenarios: [file], scenarioApiKey: "ignored-for-this-file" });
    try {
      // The start key is the run's account, so it wins over the file's own apiKey.
      const names = (await clientFor(started.url, "ignored-for-this-file").get("/v1/companies")).body.companies.map(
        (c: { name: string }) => c.name,
      );
      expect(names).toEqual(["Sandbox Demo Company", "First File Co", "Second File Co"]);
    } finally {
      await started.stop();
    }
  });

  it("a file that is not a scenario, or a step that fails, stops the start naming it", async () => {
    const bad = path.join(folder, "bad.yaml");
    await writeFile(bad, "steps:\n  - name: 7\n");
    await expect(startSandbox({ port: 0, scenarios: [bad] })).rejects.toThrow(
      /the scenario .*bad\.yaml is not a scenario: .*name must be string/,
    );
    await expect(startSandbox({ port: 0, scenarios: [path.join(folder, "missing.yaml")] })).rejects.toThrow(
      /cannot read the scenario .*missing\.yaml: ENOENT/,
    );
    const failing = path.join(folder, "failing.json");
    await writeFile(failing, JSON.stringify({ steps: [{ operationId: "listCompanies", expect: 201 }] }));
    await expect(startSandbox({ port: 0, scenarios: [failing] })).rejects.toThrow(
      /step 1 \(listCompanies\) answered 200 \(expected 201\)/,
    );
  });
});

function onboardBody(name: string) {
  return { ...ONBOARD_BODY, name };
}
