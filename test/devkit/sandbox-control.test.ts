/**
 * `partner-api sandbox <command>` against a sandbox started in this process (port 0), every command run
 * in-process through the one runner: the clock, kyc, terms, route open, deposit, trigger (each event type),
 * events, logs (and --follow), faults, scenario, reset; bad input exit 2, a refusal exit 1, no sandbox exit 1.
 * The start options that load faults and scenarios run the start command itself, in-process.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type CliIO, runCommand } from "partner-api-devkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partnerApiCli } from "../../devkit/src/cli/index.ts";
import { parseDuration, triggerWorkflow } from "../../devkit/src/cli/sandbox-control/index.ts";
import { findFreePort } from "../../devkit/src/prism.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { webhookEventTypes } from "../../src/webhooks/events.ts";
import { arazzoDocument, workflow } from "../helpers/arazzo.ts";
import { runInProcess } from "../helpers/run.ts";
import { clientFor, ONBOARD_BODY } from "../sandbox/support.ts";

let sandbox: Sandbox;
let folder: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 81, startTime: "2033-01-01T00:00:00Z", frozen: true });
  folder = await mkdtemp(path.join(tmpdir(), "sandbox-control-cli-"));
});
afterAll(async () => {
  await sandbox.stop();
  await rm(folder, { recursive: true, force: true });
});

/** `partner-api sandbox <args> --url <this sandbox>`, as `key`. */
const cli = (key: string, ...args: string[]): ReturnType<typeof runInProcess> =>
  runInProcess(partnerApiCli, ["sandbox", ...args, "--url", sandbox.url, "--api-key", key]);

describe("durations", () => {
  it("read as the clock commands take them", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("2d")).toBe(172_800_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("45")).toBe(45_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("soon")).toBeUndefined();
    expect(parseDuration("1h 30m")).toBeUndefined();
  });
});

describe("clock", () => {
  it("status, advance by a duration and to a time, freeze and resume", async () => {
    const status = await cli("cli-clock", "clock");
    expect(status.code).toBe(0);
    expect(status.stdout).toBe("clock 2033-01-01T00:00:00.000Z (frozen), ready: nothing pending\n");
    expect(status.stderr).toMatch(/^clock read in \d+ ms/m);
    const advanced = await cli("cli-clock", "clock", "advance", "1h");
    expect(advanced.stdout).toContain("clock 2033-01-01T01:00:00.000Z (frozen)");
    expect(advanced.stderr).toMatch(/clock advanced by 60 min 0 s in/);
    const to = await cli("cli-clock", "clock", "advance", "2033-01-02T00:00:00Z", "--json");
    expect(JSON.parse(to.stdout)).toMatchObject({ now: "2033-01-02T00:00:00.000Z", frozen: true, status: "ready" });
    const resumed = await cli("cli-clock", "clock", "resume");
    expect(resumed.stdout).toMatch(/\(running\)/);
    const frozen = await cli("cli-clock", "clock", "freeze");
    expect(frozen.stdout).toMatch(/\(frozen\)/);
  });

  it("names a bad duration, a time in the past and a missing argument (exit 2)", async () => {
    const bad = await cli("cli-clock", "clock", "advance", "soon");
    expect(bad).toMatchObject({ code: 2, stdout: "" });
    expect(bad.stderr).toMatch(/"soon" is neither a duration \(90s, 30m, 1h, 2d, 1h30m\) nor an ISO 8601 time/);
    const back = await cli("cli-clock", "clock", "advance", "2000-01-01T00:00:00Z");
    expect(back.code).toBe(1);
    expect(back.stderr).toMatch(/the clock never goes back/);
    expect((await cli("cli-clock", "clock", "advance")).code).toBe(2);
  });
});

describe("kyc, terms, route open, deposit", () => {
  it("take a Swap company to cleared, open a route on it, land a deposit", async () => {
    const client = clientFor(sandbox.url, "cli-money");
    const companyId = (await client.post("/v1/companies", { ...swapCompany() })).body.company.id;

    const refused = await cli("cli-money", "route", "open", companyId, "onramp");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /FAILED: route open .*answered 422: payment routes open only for a company whose verification/,
    );

    const kyc = await cli("cli-money", "kyc", companyId, "approved");
    expect(kyc.code).toBe(0);
    expect(kyc.stdout).toContain(`company ${companyId} (Cli Co): kycStatus approved, terms not accepted`);
    const terms = await cli("cli-money", "terms", companyId);
    expect(terms.stdout).toContain("terms accepted, kycStatus approved");

    const route = await cli("cli-money", "route", "open", companyId, "onramp", "--fee", "1");
    expect(route.code).toBe(0);
    const [, routeId] = route.stdout.match(/^route (\S+): onramp active, USD → USDC, fee 1 %/)!;
    const deposit = await cli("cli-money", "deposit", routeId!, "100", "--sender", "Payer Inc");
    expect(deposit.code).toBe(0);
    const [, transactionId] = deposit.stdout.match(/^transaction (\S+): Credit 100 USD, PAID/)!;
    expect((await client.get(`/transactions/${transactionId}`)).body.transaction.counterpartyName).toBe("Payer Inc");

    const declined = await cli("cli-money", "terms", companyId, "--decline");
    expect(declined.stdout).toContain("terms not accepted");
    expect((await cli("cli-money", "deposit", routeId!, "5")).code).toBe(1);
    const forced = await cli("cli-money", "deposit", routeId!, "5", "--force", "--json");
    expect(JSON.parse(forced.stdout).transaction).toMatchObject({ amount: 5, currency: "USD" });
  });

  it("name bad input: an unknown company (404), a bad status (422), a bad route type or amount", async () => {
    const unknown = await cli("cli-bad", "kyc", "01JD8X4M6Q2V7R9T3W5Y0Z1A2B", "approved");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/answered 404: company 01JD8X4M6Q2V7R9T3W5Y0Z1A2B does not exist in this account/);
    const status = await cli("cli-bad", "kyc", "01JD8X4M6Q2V7R9T3W5Y0Z1A2B", "great");
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/kycStatus got "great"; allowed: "not_started", "incomplete"/);
    expect((await cli("cli-bad", "route", "open", "01JD8X4M6Q2V7R9T3W5Y0Z1A2B", "sideways")).stderr).toMatch(
      /the route type must be onramp or offramp, got "sideways"/,
    );
    expect((await cli("cli-bad", "deposit", "01JD8X4M6Q2V7R9T3W5Y0Z1A2B", "-5")).code).toBe(2);
  });
});

describe("trigger and events", () => {
  it.each(webhookEventTypes)("trigger %s fires it, and events lists it", async (type) => {
    const key = `cli-trigger-${type}`;
    const run = await cli(key, "trigger", type);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^evt_\\S+ ${type.replaceAll(".", "\\.")} `, "m"));
    expect(run.stderr).toMatch(new RegExp(`fired \\d+ event\\(s\\), ${type.replaceAll(".", "\\.")} among them`));
    const events = await cli(key, "events", "--type", type);
    expect(events.stdout).toMatch(
      new RegExp(` ${type.replaceAll(".", "\\.")} evt_\\S+  not delivered \\(no endpoint\\)`),
    );
  });

  it("runs a shipped workflow for every event type of the contract (its x-webhooks), and refuses another", async () => {
    expect(Object.fromEntries(webhookEventTypes.map((type) => [type, triggerWorkflow(type)]))).toEqual({
      "company.onboarding_status_changed": "company-activated",
      "company.kyc_link.issued": "onboard-swap-company",
      "company.kyc_status_changed": "approved-company",
      "payment_route.created": "company-with-onramp-and-deposits",
      "payment_route.transaction.created": "company-with-onramp-and-deposits",
      "company.kyb_status_changed": "kyb-reviewed",
    });
    const unknown = await cli("cli-trigger", "trigger", "card.created");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown event type "card.created"; known: company\.onboarding_status_changed/);
  });
});

describe("logs", () => {
  it("prints the account's calls, oldest first, filtered", async () => {
    const client = clientFor(sandbox.url, "cli-logs");
    await client.get("/v1/companies");
    await client.get("/v1/card-bins", { companyId: "01JD8X4M6Q2V7R9T3W5Y0Z1A2B" });
    const all = await cli("cli-logs", "logs");
    expect(all.code).toBe(0);
    const lines = all.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ 200 GET \/v1\/companies listCompanies [\d.]+ ms$/);
    // The sandbox's 403 for a company not the account's is its own pick: the contract declares none for it.
    expect(lines[1]).toMatch(/ 403 GET \/v1\/card-bins listCardBins [\d.]+ ms \[answer off contract\]$/);
    expect((await cli("cli-logs", "logs", "--status", "403")).stdout.trim().split("\n")).toHaveLength(1);
    const json = await cli("cli-logs", "logs", "--operation-id", "listCompanies", "--json");
    expect(JSON.parse(json.stdout.trim())).toMatchObject({
      operationId: "listCompanies",
      request: { headers: { "x-api-key": "[REDACTED]" } },
    });
    expect((await cli("cli-logs", "logs", "--limit", "0")).code).toBe(2);
  });

  it("--follow prints each new call as it is answered, until stopped", async () => {
    const controller = new AbortController();
    const out: string[] = [];
    const io: CliIO = { out: (text) => out.push(text), err: () => undefined };
    const following = runCommand(
      partnerApiCli,
      ["sandbox", "logs", "--follow", "--url", sandbox.url, "--api-key", "cli-follow"],
      io,
      controller.signal,
    );
    const client = clientFor(sandbox.url, "cli-follow");
    await expect
      .poll(async () => {
        await client.get("/v1/companies?follow=1");
        return out.some((line) => line.includes("/v1/companies?follow=1"));
      })
      .toBe(true);
    controller.abort();
    expect(await following).toBe(0);
  });
});

describe("logs --follow against a broken stream", () => {
  /** A server that answers the log empty and its stream with `stream`'s bytes, then holds the connection open. */
  async function brokenSandbox(stream: string): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((request, response) => {
      if (request.url?.startsWith("/_sandbox/requests/stream")) {
        response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
        response.write(stream);
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ requests: [], count: 0 }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(() => resolve()));
      },
    };
  }

  it("an event that is not JSON, or one that never ends, is the job's no (exit 1) naming it, not a crash", async () => {
    for (const [stream, message] of [
      ["event: request\nid: 1\ndata: {not json\n\n", /sent an event that is not JSON \(9 characters, id 1\)/],
      [`event: request\ndata: ${"x".repeat(5 * 1024 * 1024)}`, /longer than 4194304 bytes without ending it/],
    ] as const) {
      const broken = await brokenSandbox(stream);
      try {
        const run = await runInProcess(partnerApiCli, ["sandbox", "logs", "--follow", "--url", broken.url]);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(message);
      } finally {
        await broken.close();
      }
    }
  });
});

describe("faults", () => {
  it("add, list, remove and clear, and the fault strikes", async () => {
    const client = clientFor(sandbox.url, "cli-faults");
    const added = await cli(
      "cli-faults",
      "faults",
      "add",
      "--operation-id",
      "listCompanies",
      "--status",
      "503",
      "--retry-after",
      "2",
      "--times",
      "1",
    );
    expect(added.code, added.stderr).toBe(0);
    const [, faultId] = added.stdout.match(
      /^fault (\S+) \(account\): listCompanies → status 503 \(Retry-After 2\); 1 call\(s\) left; 0 hit\(s\)/,
    )!;
    expect((await client.get("/v1/companies")).status).toBe(503);
    expect((await client.get("/v1/companies")).status).toBe(200);
    await cli("cli-faults", "faults", "add", "--method", "get", "--path", "/v1/cards", "--drop");
    await cli("cli-faults", "faults", "add", "--operation-id", "createCard", "--malformed", "--all-accounts");
    const listed = await cli("cli-faults", "faults", "list");
    expect(listed.stdout).not.toContain(faultId);
    expect(listed.stdout).toMatch(/\(account\): GET \/v1\/cards → drop the connection; 0 hit\(s\)/);
    expect(listed.stdout).toMatch(/\(sandbox\): createCard → malformed body/);
    const dropId = listed.stdout.match(/^fault (\S+) \(account\): GET/m)![1]!;
    expect((await cli("cli-faults", "faults", "remove", dropId)).code).toBe(0);
    expect((await cli("cli-faults", "faults", "remove", dropId)).code).toBe(2);
    await cli("cli-faults", "faults", "clear", "--all-accounts");
    expect((await cli("cli-faults", "faults", "list", "--all-accounts")).stderr).toMatch(/^0 fault\(s\) in/m);
  });

  it("names bad fault options, and the sandbox's refusal", async () => {
    expect((await cli("cli-faults-bad", "faults", "add", "--operation-id", "x", "--status", "42")).stderr).toMatch(
      /--status must be a whole number from 200 to 599, got "42"/,
    );
    expect(
      (await cli("cli-faults-bad", "faults", "add", "--operation-id", "listCards", "--status", "500", "--body", "{"))
        .stderr,
    ).toMatch(/--body must be JSON/);
    expect(
      (await cli("cli-faults-bad", "faults", "add", "--operation-id", "listCards", "--probability", "2", "--drop"))
        .code,
    ).toBe(2);
    const refused = await cli(
      "cli-faults-bad",
      "faults",
      "add",
      "--operation-id",
      "listCards",
      "--status",
      "500",
      "--drop",
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/status and drop exclude one another/);
  });
});

describe("scenario and reset", () => {
  it("lists the shipped scenarios, runs one by name and one from an Arazzo file", async () => {
    const listed = await cli("cli-scenario", "scenario");
    expect(listed.stdout).toMatch(
      /^approved-company {2}Take a Swap company through verification and terms \(4 steps\)$/m,
    );
    const run = await cli("cli-scenario", "scenario", "approved-company");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^201 onboardCompany POST \/v1\/companies {2}\(onboard-swap-company onboardWithSwap\)$/m,
    );
    expect(run.stdout).toMatch(
      /^200 setCompanyTermsAccepted POST \/_sandbox\/companies\/\S+\/terms-acceptance {2}\(approved-company acceptTerms\)$/m,
    );
    expect(run.stdout).toMatch(/^approved-company outputs: companyId=[0-7][0-9A-HJKMNP-TV-Z]{25}$/m);
    const file = path.join(folder, "top-up.arazzo.yaml");
    const topUp = workflow("top-up", [
      {
        stepId: "companies",
        operationId: "$sourceDescriptions.partner.listCompanies",
        outputs: { companyId: "$response.body#/companies/0/id" },
      },
      {
        stepId: "entry",
        operationId: "$sourceDescriptions.sandbox.createSpendingAccountEntry",
        parameters: [{ name: "companyId", in: "path", value: "$steps.companies.outputs.companyId" }],
        requestBody: { payload: { type: "Account", direction: "Credit", amount: 7 } },
      },
    ]);
    await writeFile(file, JSON.stringify(arazzoDocument([topUp, { ...topUp, workflowId: "again" }])));
    const fromFile = await cli("cli-scenario", "scenario", `${file}#again`);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toMatch(/^201 createSpendingAccountEntry POST .* {2}\(again entry\)$/m);
    expect(fromFile.stdout).not.toMatch(/\(top-up /);
    const missing = await cli("cli-scenario", "scenario", "no-such");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/"no-such" is neither a shipped scenario \(onboard-company, .*\) nor a file/);
    const notArazzo = path.join(folder, "old.yaml");
    await writeFile(notArazzo, "steps:\n  - operationId: listCompanies\n");
    const old = await cli("cli-scenario", "scenario", notArazzo);
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(/old\.yaml is not an Arazzo 1\.0 document: must have the property arazzo/);
  });

  it("reset drops the accounts", async () => {
    const client = clientFor(sandbox.url, "cli-reset");
    await client.post("/v1/companies", swapCompany());
    expect((await cli("cli-reset", "reset")).stderr).toMatch(/^sandbox reset in/m);
    expect((await client.get("/v1/companies")).body.companies).toHaveLength(1);
  });
});

describe("connection", () => {
  it("says when no sandbox answers (exit 1) and names a bad --url (exit 2)", async () => {
    const port = await findFreePort();
    const none = await runInProcess(partnerApiCli, ["sandbox", "clock", "--url", `http://127.0.0.1:${port}`]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      `no sandbox answers at http://127.0.0.1:${port} (ECONNREFUSED); start one with \`npx partner-api sandbox\``,
    );
    const bad = await runInProcess(partnerApiCli, ["sandbox", "events", "--url", "ftp://x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--url must be the sandbox's http\(s\) URL/);
  });
});

describe("start with faults and scenarios", () => {
  it("--faults and --scenario load at start; --print-address prints the address alone first; a bad file is named (exit 2)", async () => {
    const faults = path.join(folder, "faults.yaml");
    await writeFile(faults, "- { operationId: listCardBins, status: 503 }\n");
    const controller = new AbortController();
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIO = { out: (text) => out.push(text), err: (text) => err.push(text) };
    const running = runCommand(
      partnerApiCli,
      [
        "sandbox",
        "--port",
        "0",
        "--faults",
        faults,
        "--scenario",
        "approved-company",
        "--scenario-api-key",
        "started",
        "--start-time",
        "2030-01-01T00:00:00Z",
        "--frozen",
        "--print-address",
      ],
      io,
      controller.signal,
    );
    // The summary is for a person, on stderr; stdout has the address alone, for a script.
    await expect.poll(() => err.join("\n")).toMatch(/drive it: +partner-api sandbox --help/);
    expect(out).toHaveLength(1);
    const [url] = out as [string];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const printed = err.join("\n");
    expect(printed).toContain(`Sandbox serving the partner API on ${url} `);
    expect(printed).toMatch(/scenarios: +approved-company ran as account "started"/);
    expect(printed).toMatch(/faults: +1 sandbox-wide from .*faults\.yaml/);
    expect(printed).toContain("clock frozen at 2030-01-01T00:00:00.000Z");
    try {
      const client = clientFor(url, "started");
      const companies = (await client.get("/v1/companies")).body.companies;
      expect(companies.map((c: { name: string }) => c.name)).toEqual([
        "Sandbox Demo Company",
        "Approved Robotics Inc.",
      ]);
      expect(companies[1].swap).toMatchObject({ kycStatus: "approved", tosAccepted: true });
      expect((await client.get("/v1/card-bins", { companyId: companies[0].id })).status).toBe(503);
      expect((await client.get("/_sandbox/clock")).body).toMatchObject({
        now: "2030-01-01T00:00:00.000Z",
        frozen: true,
      });
    } finally {
      controller.abort();
    }
    expect(await running).toBe(0);

    const bad = path.join(folder, "bad-faults.yaml");
    await writeFile(bad, "- { operationId: listCardBins }\n");
    const refused = await runInProcess(partnerApiCli, ["sandbox", "--port", "0", "--faults", bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /faults\[0\] has none of status, delayMs, drop, malformed; allowed: at least one of them/,
    );
    const notList = await runInProcess(partnerApiCli, [
      "sandbox",
      "--port",
      "0",
      "--faults",
      faults.replace("faults.yaml", "none.yaml"),
    ]);
    expect(notList.stderr).toMatch(/cannot read --faults .*none\.yaml: ENOENT/);
    const scenario = await runInProcess(partnerApiCli, ["sandbox", "--port", "0", "--scenario", "nothing-here"]);
    expect(scenario.code).toBe(2);
    expect(scenario.stderr).toMatch(
      /cannot read the Arazzo document nothing-here: ENOENT \(a --scenario is a shipped workflow, onboard-company, .*, or an Arazzo file\)/,
    );
    expect((await runInProcess(partnerApiCli, ["sandbox", "--start-time", "yesterday"])).stderr).toMatch(
      /--start-time must be an ISO 8601 time/,
    );
  });
});

function swapCompany() {
  return { ...ONBOARD_BODY, name: "Cli Co", products: ["Swap"] };
}
