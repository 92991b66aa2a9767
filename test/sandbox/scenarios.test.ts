/**
 * Scenarios are Arazzo workflows run in-process: each shipped one (openapi/workflows/) brings an account to the
 * state it names; a posted document chains calls through runtime expressions; files given at start run before the
 * first call; the same seed, start time and frozen clock give the same ids every run; every way a document can be
 * wrong is refused naming it, before any call; a run's answers are bounded in bytes and calls.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shippedWorkflows } from "../../devkit/src/arazzo/document.ts";
import { type Sandbox, sandboxRouter, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { arazzoDocument, type Json, workflow } from "../helpers/arazzo.ts";
import { REFUSED_SCENARIOS } from "./scenario-refusals.ts";
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

const SHIPPED = [...shippedWorkflows(sandboxRouter()).keys()];

type Step = { workflowId: string; stepId: string; body?: any; status: number };
const stepOf = (run: { steps: Step[] }, stepId: string) => run.steps.find((step) => step.stepId === stepId)!;

describe("the shipped scenarios: listed and run", () => {
  it("are the workflows of openapi/workflows, listed with their steps and outputs", async () => {
    expect(SHIPPED).toEqual(
      expect.arrayContaining(["approved-company", "card-issued", "company-with-onramp-and-deposits"]),
    );
    const { data } = await sandbox.controlFor(undefined, { throwOnError: true }).GET("/_sandbox/scenarios");
    expect(data.scenarios.map((scenario) => scenario.name)).toEqual(SHIPPED);
    for (const scenario of data.scenarios) {
      expect(scenario.summary).toBeTruthy();
      expect(scenario.document).toMatch(/\.arazzo\.yaml$/);
      expect(scenario.steps.length).toBeGreaterThan(0);
      expect(scenario.outputs.length).toBeGreaterThan(0);
    }
  });

  it.each(SHIPPED)("%s runs to its end on a new account, its outputs named", async (name) => {
    const run = await sandbox.runWorkflow({ workflowId: name, apiKey: `every-${name}` });
    const mine = run.workflows.at(-1)!;
    expect(mine.workflowId).toBe(name);
    const declared = Object.keys(shippedWorkflows(sandboxRouter()).get(name)!.workflow.outputs ?? {});
    expect(Object.keys(mine.outputs).sort()).toEqual(declared.sort());
  });

  it("approved-company: a Swap company with verification approved and terms accepted", async () => {
    const client = clientFor(sandbox.url, "scenario-approved");
    const run = await client.post("/_sandbox/scenarios", { name: "approved-company" });
    expect(run.status, run.text).toBe(200);
    expect(run.body.scenario).toBe("approved-company");
    const { companyId } = run.body.workflows.at(-1).outputs;
    const company = (await client.get("/v1/companies")).body.companies.find((c: { id: string }) => c.id === companyId);
    expect(company.swap).toMatchObject({ kycStatus: "approved", tosAccepted: true });
    const events = (await client.get("/_sandbox/events")).body.events.map((e: { type: string }) => e.type);
    expect(events).toEqual(["company.kyc_status_changed", "company.kyc_link.issued"]);
  });

  it("company-with-onramp-and-deposits: an active on-ramp route with three deposits, each readable", async () => {
    const client = clientFor(sandbox.url, "scenario-onramp");
    const run = await client.post("/_sandbox/scenarios", { name: "company-with-onramp-and-deposits" });
    expect(run.status, run.text).toBe(200);
    const { companyId, routeId, transactionId } = run.body.workflows.at(-1).outputs;
    const route = await client.get(`/v1/payment-routes/${routeId}`, { companyId });
    expect(route.body.paymentRoute).toMatchObject({ type: "onramp", status: "active" });
    const deposits = ["firstDeposit", "secondDeposit", "thirdDeposit"].map(
      (id) => stepOf(run.body, id).body.transaction,
    );
    expect(deposits.map((t: { amount: number }) => t.amount)).toEqual([100, 250, 1000]);
    expect(deposits[0].id).toBe(transactionId);
    for (const deposit of deposits)
      expect((await client.get(`/transactions/${deposit.id}`)).body.transaction).toEqual(deposit);
    const events = (await client.get("/_sandbox/events")).body.events.map((e: { type: string }) => e.type);
    expect(events.filter((type: string) => type === "payment_route.transaction.created")).toHaveLength(3);
  });

  it("card-issued: a new company's card, Creating when made, then Active", async () => {
    const client = clientFor(sandbox.url, "scenario-card");
    const run = await client.post("/_sandbox/scenarios", { name: "card-issued" });
    expect(run.status, run.text).toBe(200);
    expect(stepOf(run.body, "createCard").body.card.status).toBe("Creating");
    const { companyId, cardId } = run.body.workflows.at(-1).outputs;
    const cards = (await client.get("/v1/cards", { companyId })).body.cards;
    expect(cards).toEqual([expect.objectContaining({ id: cardId, status: "Active", name: "Team travel" })]);
  });
});

describe("the shipped scenarios: their companies and ids", () => {
  it("onboard companies of their own names: no two scenarios (neither built on the other) share one", async () => {
    const workflows = shippedWorkflows(sandboxRouter());
    /** The workflows a workflow runs, itself included, through its steps' workflowIds. */
    const runs = (id: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(id)) return seen;
      seen.add(id);
      for (const step of workflows.get(id)?.workflow.steps ?? [])
        if (step.workflowId) runs(step.workflowId.split(".").at(-1)!, seen);
      return seen;
    };
    const names = new Map<string, Set<string>>();
    for (const name of SHIPPED) {
      const client = clientFor(sandbox.url, `scenario-names-${name}`);
      const seeded = new Set(
        ((await client.get("/v1/companies")).body.companies as { name: string }[]).map((c) => c.name),
      );
      expect((await client.post("/_sandbox/scenarios", { name })).status).toBe(200);
      const companies = (await client.get("/v1/companies")).body.companies as { name: string }[];
      names.set(name, new Set(companies.map((c) => c.name).filter((n) => !seeded.has(n))));
    }
    const shared: string[] = [];
    for (const first of SHIPPED)
      for (const second of SHIPPED) {
        if (first >= second || runs(first).has(second) || runs(second).has(first)) continue;
        for (const company of names.get(first)!)
          if (names.get(second)!.has(company)) shared.push(`${first} and ${second} both onboard ${company}`);
      }
    expect(shared).toEqual([]);
    expect(new Set([...names.values()].flatMap((set) => [...set])).size).toBeGreaterThanOrEqual(5);
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

const ROUTE_STEPS: Json[] = [
  {
    stepId: "approved",
    workflowId: "$sourceDescriptions.shipped.approved-company",
    parameters: [{ name: "apiKey", value: "$inputs.apiKey" }],
    outputs: { companyId: "$outputs.companyId" },
  },
  {
    stepId: "route",
    operationId: "$sourceDescriptions.sandbox.createPaymentRoute",
    parameters: [{ name: "companyId", in: "path", value: "$steps.approved.outputs.companyId" }],
    requestBody: { contentType: "application/json", payload: { type: "offramp" } },
    successCriteria: [{ condition: "$statusCode == 201" }],
    outputs: { routeId: "$response.body#/paymentRoute/id" },
  },
  {
    stepId: "fee",
    operationId: "$sourceDescriptions.partner.getPaymentRoute",
    parameters: [
      { name: "routeId", in: "path", value: "$steps.route.outputs.routeId" },
      { name: "X-Company-Id", in: "header", value: "$steps.approved.outputs.companyId" },
    ],
    successCriteria: [{ condition: "$statusCode == 200 && $response.body#/paymentRoute/type == 'OFFRAMP'" }],
    outputs: { feePercent: "$response.body#/paymentRoute/feePercent" },
  },
  {
    stepId: "topUp",
    operationId: "$sourceDescriptions.sandbox.createSpendingAccountEntry",
    parameters: [{ name: "companyId", in: "path", value: "$steps.approved.outputs.companyId" }],
    requestBody: {
      contentType: "application/json",
      payload: { type: "Account", direction: "Credit", amount: "$steps.fee.outputs.feePercent", description: "x" },
      replacements: [{ target: "/description", value: "fee of {$steps.route.outputs.routeId}" }],
    },
    successCriteria: [{ condition: "$statusCode == 201" }],
    outputs: { transactionId: "$response.body#/entry/transaction/id" },
  },
  {
    stepId: "credits",
    operationId: "$sourceDescriptions.partner.listSpendingAccountTransactions",
    parameters: [
      { name: "X-Company-Id", in: "header", value: "$steps.approved.outputs.companyId" },
      { name: "type", in: "query", value: "Credit" },
      { name: "limit", in: "query", value: 1 },
    ],
    successCriteria: [
      { condition: "$response.body#/transactions/0/transaction/id == $steps.topUp.outputs.transactionId" },
    ],
  },
];

const SHIPPED_SOURCE = { name: "shipped", url: "sandbox.arazzo.yaml", type: "arazzo" };

function posted(workflows: Json[], extra: Json = {}): Json {
  const document = arazzoDocument(workflows, extra);
  (document.sourceDescriptions as Json[]).push(SHIPPED_SOURCE);
  return document;
}

describe("a posted Arazzo document: chains, the clock and actions", () => {
  it("chains calls: expressions fill paths, headers, queries and bodies; a whole expression keeps its type", async () => {
    const client = clientFor(sandbox.url, "scenario-posted");
    const run = await client.post("/_sandbox/scenarios", {
      arazzo: posted([workflow("offramp-fee", ROUTE_STEPS, { outputs: { fee: "$steps.fee.outputs.feePercent" } })]),
    });
    expect(run.status, run.text).toBe(200);
    expect(run.body.scenario).toBe("(posted) offramp-fee");
    expect(run.body.workflows.map((w: { workflowId: string }) => w.workflowId)).toEqual([
      "onboard-swap-company",
      "approved-company",
      "offramp-fee",
    ]);
    expect(run.body.workflows.at(-1).outputs).toEqual({ fee: 0.5 });
    const route = stepOf(run.body, "route").body.paymentRoute;
    const topUp = stepOf(run.body, "topUp");
    expect(topUp.body.entry.transaction).toMatchObject({ amount: "0.50", description: `fee of ${route.id}` });
    expect(stepOf(run.body, "credits")).toMatchObject({
      operationId: "listSpendingAccountTransactions",
      method: "GET",
      path: "/v1/card-spending-account/transactions?type=Credit&limit=1",
      status: 200,
    });
    // The calls went through the handler like any call, logged under the scenario's name.
    const logged = await client.get("/_sandbox/requests?operationId=getPaymentRoute");
    expect(logged.body.requests[0]).toMatchObject({ scenario: "(posted) offramp-fee", status: 200 });
  });

  it("runs with the clock held frozen, and lets it run again after", async () => {
    const client = clientFor(sandbox.url, "scenario-clock");
    const clockStep = (stepId: string) => ({
      stepId,
      operationId: "$sourceDescriptions.sandbox.getClock",
      outputs: { now: "$response.body#/now", frozen: "$response.body#/frozen" },
    });
    const run = await client.post("/_sandbox/scenarios", {
      arazzo: arazzoDocument([
        workflow(
          "frozen",
          [
            clockStep("before"),
            {
              stepId: "onboard",
              operationId: "$sourceDescriptions.partner.onboardCompany",
              requestBody: { payload: { ...ONBOARD_BODY, name: "Frozen Co" } },
            },
            clockStep("after"),
          ],
          {
            outputs: {
              before: "$steps.before.outputs.now",
              after: "$steps.after.outputs.now",
              frozen: "$steps.before.outputs.frozen",
            },
          },
        ),
      ]),
    });
    expect(run.status, run.text).toBe(200);
    const { before, after, frozen } = run.body.workflows[0].outputs;
    expect(frozen).toBe(true);
    expect(after).toBe(before);
    expect((await client.get("/_sandbox/clock")).body.frozen).toBe(false);
  });

  it("follows success and failure actions: a goto on a condition, a retry that gives up, an end", async () => {
    const client = clientFor(sandbox.url, "scenario-actions");
    const run = await client.post("/_sandbox/scenarios", {
      arazzo: arazzoDocument([
        workflow("actions", [
          {
            stepId: "companies",
            operationId: "$sourceDescriptions.partner.listCompanies",
            successCriteria: [{ condition: "$statusCode == 201" }],
            onFailure: [
              { name: "once", type: "retry", retryAfter: 0, retryLimit: 1 },
              { name: "onward", type: "goto", stepId: "clock", criteria: [{ condition: "$statusCode == 200" }] },
            ],
          },
          { stepId: "skipped", operationId: "$sourceDescriptions.sandbox.resetSandbox" },
          {
            stepId: "clock",
            operationId: "$sourceDescriptions.sandbox.getClock",
            onSuccess: [{ name: "done", type: "end" }],
          },
          { stepId: "alsoSkipped", operationId: "$sourceDescriptions.sandbox.resetSandbox" },
        ]),
      ]),
    });
    expect(run.status, run.text).toBe(200);
    expect(run.body.steps.map((step: Step) => step.stepId)).toEqual(["companies", "companies", "clock"]);
  });
});

describe("a posted Arazzo document: refusals, and names like any other", () => {
  it.each(REFUSED_SCENARIOS)("refuses %j (%i), naming what is wrong", async (body, status, message) => {
    const answer = await clientFor(sandbox.url, "scenario-refused").post("/_sandbox/scenarios", body);
    expect(answer.status, answer.text).toBe(status);
    expect(answer.body.detail).toMatch(message);
  });

  it("needs an account: the apiKey input is the caller's X-API-Key", async () => {
    const answer = await fetch(`${sandbox.url}/_sandbox/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "approved-company" }),
    });
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { detail: string }).detail).toMatch(
      /workflow approved-company needs the input apiKey: call runScenario with X-API-Key, or pass inputs\.apiKey/,
    );
  });

  it("takes names that are Object.prototype members as names like any other", async () => {
    const client = clientFor(sandbox.url, "scenario-proto");
    const run = await client.post("/_sandbox/scenarios", {
      arazzo: arazzoDocument([
        workflow(
          "constructor",
          [
            {
              stepId: "toString",
              operationId: "$sourceDescriptions.partner.listCompanies",
              outputs: JSON.parse(
                '{"__proto__": "$response.body#/companies/0/id", "constructor": "$inputs.hasOwnProperty"}',
              ),
            },
          ],
          {
            inputs: {
              type: "object",
              properties: { apiKey: { type: "string" }, hasOwnProperty: { type: "string", default: "kept" } },
            },
            outputs: {
              valueOf: "$steps.toString.outputs.__proto__",
              isPrototypeOf: "$steps.toString.outputs.constructor",
            },
          },
        ),
      ]),
      inputs: JSON.parse('{"__proto__": "ignored"}'),
    });
    expect(run.status, run.text).toBe(200);
    expect(run.body.workflows[0].outputs).toEqual({
      valueOf: expect.stringMatching(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/),
      isPrototypeOf: "kept",
    });
  });
});

describe("a run's bounds", () => {
  it("an answer over 2 MiB stops the run naming the bound, and nothing piles up", async () => {
    const started = await startSandbox({ port: 0, seed: 3 });
    try {
      const client = clientFor(started.url, "bounded");
      // A log of big calls: a listRequests over all of it answers about 2.4 MB, over 15 of them about 0.9 MB.
      const big = "x".repeat(60_000);
      for (let index = 0; index < 40; index++)
        await fetch(`${started.url}/v1/companies`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": "bounded" },
          body: JSON.stringify({ ...ONBOARD_BODY, name: big }),
        });
      const listing = {
        operationId: "$sourceDescriptions.sandbox.listRequests",
        parameters: [{ name: "limit", in: "query", value: 1000 }],
      };
      const before = process.memoryUsage().heapUsed;
      const run = await client.post("/_sandbox/scenarios", {
        arazzo: arazzoDocument([
          workflow(
            "log",
            Array.from({ length: 200 }, (_, i) => ({ ...listing, stepId: `read${i}` })),
          ),
        ]),
      });
      expect(run.status).toBe(422);
      expect(run.body.detail).toMatch(
        /workflow log, step read0: the answer is over 2097152 bytes, the most a run reads of one answer/,
      );
      // One answer was made and dropped, not 200 kept (480 MB): the unbounded run reached 3.9 GB on a full log.
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
      // Answers under the bound each, over 8 MiB together, stop the run at the bound on what it keeps.
      const smaller = { ...listing, parameters: [{ name: "limit", in: "query", value: 15 }] };
      const kept = await client.post("/_sandbox/scenarios", {
        arazzo: arazzoDocument([
          workflow(
            "kept",
            Array.from({ length: 200 }, (_, i) => ({ ...smaller, stepId: `read${i}` })),
          ),
        ]),
      });
      expect(kept.status).toBe(422);
      expect(kept.body.detail).toMatch(
        /workflow kept, step read\d+: the run's requests and answers passed 8388608 bytes, the most a run keeps/,
      );
    } finally {
      await started.stop();
    }
  });
});

describe("scenario files at start", () => {
  const fileDocument = (workflowId: string, names: string[]) =>
    arazzoDocument([
      workflow(
        workflowId,
        names.map((name, index) => ({
          stepId: `onboard${index}`,
          operationId: "$sourceDescriptions.partner.onboardCompany",
          requestBody: { payload: { ...ONBOARD_BODY, name } },
          successCriteria: [{ condition: "$statusCode == 201" }],
        })),
      ),
    ]);

  it("run an Arazzo file as the start account, before the first call; file#workflowId runs one of its workflows", async () => {
    const file = path.join(folder, "two-companies.arazzo.json");
    await writeFile(
      file,
      JSON.stringify({
        ...fileDocument("first", ["First File Co"]),
        workflows: [
          ...(fileDocument("first", ["First File Co"]).workflows as Json[]),
          ...(fileDocument("second", ["Second File Co"]).workflows as Json[]),
        ],
      }),
    );
    const started = await startSandbox({ port: 0, scenarios: [file, `${file}#second`], scenarioApiKey: "from-file" });
    try {
      const names = (await clientFor(started.url, "from-file").get("/v1/companies")).body.companies.map(
        (c: { name: string }) => c.name,
      );
      expect(names).toEqual(["Sandbox Demo Company", "First File Co", "Second File Co", "Second File Co"]);
    } finally {
      await started.stop();
    }
  });

  it("a file that is not Arazzo, a YAML bomb, or a step that fails stops the start naming it", async () => {
    const bad = path.join(folder, "bad.yaml");
    await writeFile(bad, "arazzo: 1.0.1\nworkflows: 7\n");
    await expect(startSandbox({ port: 0, scenarios: [bad] })).rejects.toThrow(
      /the Arazzo document .*bad\.yaml is not an Arazzo 1\.0 document: .*must have the property info/,
    );
    const bomb = path.join(folder, "bomb.yaml");
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let level = 1; level < 12; level++)
      lines.push(
        `${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(",")}]`,
      );
    await writeFile(bomb, lines.join("\n"));
    await expect(startSandbox({ port: 0, scenarios: [bomb] })).rejects.toThrow(
      /bomb\.yaml is neither YAML nor JSON: .*alias/i,
    );
    await expect(startSandbox({ port: 0, scenarios: [path.join(folder, "missing.yaml")] })).rejects.toThrow(
      /cannot read the Arazzo document .*missing\.yaml: ENOENT/,
    );
    const failing = path.join(folder, "failing.json");
    const document = fileDocument("failing", ["Failing Co"]);
    (document.workflows as Json[])[0]!.steps = [
      {
        stepId: "list",
        operationId: "$sourceDescriptions.partner.listCompanies",
        successCriteria: [{ condition: "$statusCode == 201" }],
      },
    ];
    await writeFile(failing, JSON.stringify(document));
    await expect(startSandbox({ port: 0, scenarios: [failing] })).rejects.toThrow(
      /workflow failing, step list failed: \$statusCode == 201 — it answered 200/,
    );
  });
});
