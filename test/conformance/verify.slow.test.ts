/**
 * `partner-api verify` against the real sandbox, through the command as a partner runs it: the full default run
 * (two accounts, writes, webhooks) conforms, so the sandbox is checked against the contract on every change;
 * the report formats; the same seed sends the same requests; bad input is named with exit 2.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCommand } from "../../devkit/src/cli/verify.ts";
import { CHECK_IDS } from "../../devkit/src/conformance/checks.ts";
import { listen } from "../../devkit/src/conformance/http.ts";
import { renderReport } from "../../devkit/src/conformance/report.ts";
import { verify } from "../../devkit/src/conformance/verify.ts";
import { findFreePort } from "../../devkit/src/prism.ts";
import { type Sandbox, startSandbox } from "../../devkit/src/sandbox/index.ts";
import { runInProcess, runScript } from "../helpers/run.ts";
import { pathOf, startFaulty } from "./support/faulty.ts";
import { ALL_EVENTS } from "./support/fixtures.ts";

const command = verifyCommand({ name: "partner-api verify" });
let sandbox: Sandbox;
let dir: string;
/** Receives the deliveries of receivers the tests register beside verify's own: answered 204. */
let sink: Server;
let sinkUrl: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 5 });
  dir = mkdtempSync(path.join(tmpdir(), "partner-verify-"));
  sink = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(204).end());
  });
  sinkUrl = (await listen(sink)).url;
});
afterAll(async () => {
  await sandbox.stop();
  await new Promise((resolve) => sink.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** The checks that need webhooks, without the negative and isolation phases: a short run that registers receivers. */
const checks = new Set(["webhook_signature", "webhook_delivered"]);

async function endpointsOf(apiKey: string): Promise<string[]> {
  const response = await fetch(`${sandbox.url}/_sandbox/webhook-endpoints`, { headers: { "X-API-Key": apiKey } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { webhookEndpoints: { id: string }[] };
  return body.webhookEndpoints.map((endpoint) => endpoint.id);
}

async function registerEndpoint(apiKey: string): Promise<void> {
  const response = await fetch(`${sandbox.url}/_sandbox/webhook-endpoints`, {
    method: "POST",
    headers: { "X-API-Key": apiKey, "Content-Type": "application/json" },
    // One event type only: the filler receivers add little delivery work to the runs beside them.
    body: JSON.stringify({ url: `${sinkUrl}/hooks`, secret: "whsec_test", events: ["company.kyb_status_changed"] }),
  });
  expect(response.status).toBe(201);
}

describe("verify against the sandbox", () => {
  it("the full run (two accounts, writes, webhooks) conforms: exit 0, every operation and event type exercised", async () => {
    const output = path.join(dir, "report.json");
    const run = await runInProcess(command, [
      "--base-url",
      sandbox.url,
      "--api-key",
      "a",
      "--other-api-key",
      "b",
      "--allow-writes",
      "--format",
      "json",
      "--output",
      output,
    ]);
    expect(run.stderr).toMatch(/serves the sandbox's control API/);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/conforms: 15 of 15 operations, \d+ requests, \d+ webhook deliveries, 0 warning\(s\)/);
    expect(run.stderr).toMatch(
      /• coverage: boundary values from the schemas \(at most 24 requests an operation, seed 1\)/,
    );
    const report = JSON.parse(readFileSync(output, "utf8"));
    expect(report.summary).toMatchObject({ operations: 15, failures: 0, warnings: 0 });
    expect(Object.keys(report.summary)).toEqual(
      expect.arrayContaining(["operations", "requests", "failures", "skipped", "durationMs"]),
    );
    expect(report.failures).toEqual([]);
    expect(report.phases).toEqual(["examples", "coverage"]);
    // Only max_response_time (off without --max-response-time) is left out.
    expect(report.skipped).toEqual([
      { what: "max_response_time", reason: expect.stringMatching(/--max-response-time/) },
    ]);
    for (const type of ALL_EVENTS) expect(report.coverage[type], type).toBeGreaterThan(0);
    // The stateful part is the contract's workflows, every one run (none skipped), and what the run changed is said.
    expect(run.stderr).toMatch(/the contract's workflows \(openapi\/workflows\/\)/);
    expect(report.changes).toEqual([
      expect.stringMatching(/^moved the sandbox's clock 60 min 0 s forward .*shared by every account/),
      "registered 2 webhook receiver(s) through the sandbox's control API and removed them",
    ]);
    for (const key of ["a", "b"]) expect(await endpointsOf(key), key).toEqual([]);
  });

  it("a run removes the receivers it registers: on an account one receiver short of the sandbox's 16, run after run passes", async () => {
    const key = "crowded";
    for (let index = 0; index < 15; index++) await registerEndpoint(key);
    const before = await endpointsOf(key);
    expect(before).toHaveLength(15);
    for (const attempt of [1, 2]) {
      const report = await verify({ baseUrl: sandbox.url, apiKey: key, allowWrites: true, checks, generated: 0 });
      expect(report.failures, `run ${attempt}`).toEqual([]);
      expect(
        report.skipped.filter((skip) => skip.what.startsWith("webhooks")),
        `run ${attempt}`,
      ).toEqual([]);
      expect(report.summary.deliveries, `run ${attempt}`).toBeGreaterThan(0);
      expect(await endpointsOf(key), `run ${attempt}`).toEqual(before);
    }
  });

  it("a refused registration shows the sandbox's own status and reason, in every report format", async () => {
    const key = "full";
    for (let index = 0; index < 16; index++) await registerEndpoint(key);
    const report = await verify({ baseUrl: sandbox.url, apiKey: key, allowWrites: true, checks, generated: 0 });
    const skip = report.skipped.find((item) => item.what === "webhooks");
    expect(skip?.reason).toMatch(
      /registering verify's receiver failed: .*422.*the most the sandbox keeps for one account \(16\)/,
    );
    for (const format of ["text", "json", "junit", "markdown"] as const)
      expect(renderReport(report, format), format).toMatch(/the most the sandbox keeps for one account \(16\)/);
    expect(report.changes).toEqual([expect.stringMatching(/^moved the sandbox's clock/)]);
    expect(await endpointsOf(key)).toHaveLength(16);
  });
});

describe("verify against the sandbox: read-only runs and seeds", () => {
  it("a read-only run says which checks and operations it could not make, and why: could not check, exit 1", async () => {
    const run = await runInProcess(command, ["--base-url", sandbox.url, "--api-key", "read-only"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /could not check: getPaymentRoute, getPaymentInstructions never got a request that should succeed \(75% of the operations the options allow, under --min-coverage 100%\)/,
    );
    expect(run.stdout).toMatch(/^COVERAGE \(requests per operation and kind\)$/m);
    expect(run.stdout).toMatch(/^getPaymentRoute[ -]+not exercised: no routeId for any company/m);
    // --min-coverage lowers the bar on purpose: 6 of the 8 reads.
    const lowered = await runInProcess(command, [
      "--base-url",
      sandbox.url,
      "--api-key",
      "read-only",
      "--min-coverage",
      "70",
      "--phases",
      "examples",
    ]);
    expect(lowered.code, lowered.stderr).toBe(0);
    // The report says which phases ran.
    expect(run.stdout).toMatch(/\(seed 1, phases examples, coverage[,)]/);
    expect(lowered.stdout).toMatch(/\(seed 1, phases examples[,)]/);
    expect(lowered.stderr).not.toMatch(/• coverage/);
    expect(run.stdout).toMatch(/SKIPPED/);
    expect(run.stdout).toMatch(/- createCard: a write, and this run is read-only: pass --allow-writes to send it/);
    expect(run.stdout).toMatch(/- account_isolation: needs --other-api-key/);
    expect(run.stdout).toMatch(/- webhooks: webhooks follow writes: pass --allow-writes/);
    expect(run.stdout).toMatch(
      /- getPaymentRoute: no routeId for any company: no operation of the partner API yields it; pass --id routeId=<id>, or verify a sandbox with --allow-writes \(its control API's createPaymentRoute yields one\)/,
    );
  });

  it("the same seed sends the same requests; another seed other generated ones", async () => {
    const requests = async (seed: number) => {
      const fresh = await startSandbox({ port: 0, seed: 9 });
      const sent: string[] = [];
      try {
        await verify({
          baseUrl: fresh.url,
          apiKey: "seeded",
          seed,
          checks: new Set(["positive_data_acceptance", "negative_data_rejection"]),
          onExchange: ({ probe }) =>
            sent.push(`${probe.method} ${probe.url.replace(fresh.url, "")} ${probe.body ?? ""}`),
        });
      } finally {
        await fresh.stop();
      }
      return sent;
    };
    const first = await requests(11);
    expect(first.length).toBeGreaterThan(20);
    expect(await requests(11)).toEqual(first);
    expect(await requests(12)).not.toEqual(first);
  });
});

describe("verify against the sandbox: without the control API, and the report files", () => {
  it("without the control API, with --webhook-secret: checks what reaches the receiver registered with the service", async () => {
    const port = await findFreePort();
    // The service's developer settings, played by the sandbox's start option: every account's events go there.
    const service = await startSandbox({
      port: 0,
      seed: 6,
      webhooks: { url: `http://127.0.0.1:${port}/hooks`, secret: "whsec_staging" },
    });
    // A staging service has no control API: hide it.
    const staging = await startFaulty(service.url, {
      async intercept(request) {
        return pathOf(request).startsWith("/_sandbox/") ? { status: 404, headers: {}, body: "" } : undefined;
      },
    });
    try {
      const run = await runInProcess(command, [
        "--base-url",
        staging.url,
        "--api-key",
        "staging",
        "--allow-writes",
        "--webhook-secret",
        "whsec_staging",
        "--webhook-port",
        String(port),
        "--webhook-wait",
        "5000",
        "--format",
        "json",
        // Card holders, wallets and routes the partner API cannot list: 6 of the 15 operations are reached.
        "--min-coverage",
        "40",
      ]);
      expect(run.stderr).toMatch(/no sandbox control API/);
      expect(run.stderr).toMatch(
        new RegExp(
          `webhook receiver listening on http://127\\.0\\.0\\.1:${port}: register http://127\\.0\\.0\\.1:${port}/main with the service`,
        ),
      );
      expect(run.code, run.stdout).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.coverage["company.kyc_link.issued"]).toBeGreaterThan(0);
      expect(report.sandboxControl).toBe(false);
    } finally {
      await staging.close();
      await service.stop();
    }
  });

  it("writes the junit and markdown reports", async () => {
    const junit = path.join(dir, "report.xml");
    const markdown = path.join(dir, "report.md");
    for (const [format, file] of [
      ["junit", junit],
      ["markdown", markdown],
    ] as const)
      expect(
        (
          await runInProcess(command, [
            "--base-url",
            sandbox.url,
            "--api-key",
            "fmt",
            "--min-coverage",
            "0",
            "--format",
            format,
            "--output",
            file,
          ])
        ).code,
      ).toBe(0);
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="partner-api verify /);
    expect(xml).toMatch(/<testsuite name="listCards" tests="\d+">/);
    expect(xml).toMatch(/<testcase classname="listCards" name="listCards response_schema_conformance"\/>/);
    expect(xml).toMatch(/<skipped message="a write, and this run is read-only/);
    expect(xml).toMatch(/failures="0"/);
    const md = readFileSync(markdown, "utf8");
    expect(md).toMatch(/^### ✅ partner-api verify: conforms: \d+ of 15 operations/);
    expect(md).toMatch(/<details><summary>Skipped \(\d+\)<\/summary>/);
  });
});

describe("verify's input", () => {
  it("--list-checks lists every check with its level", async () => {
    const run = await runInProcess(command, ["--list-checks"]);
    expect(run.code).toBe(0);
    for (const id of CHECK_IDS) expect(run.stdout).toMatch(new RegExp(`^${id} +(error|warning) `, "m"));
    expect(run.stdout).toMatch(/Generic statuses, .*: 400 .*429 \(too many requests\)/);
    expect(run.stdout).toMatch(
      /^Phases \(--phases; all by default; coverage builds on the objects examples finds\):$/m,
    );
    expect(run.stdout).toMatch(/^examples +the contract's examples/m);
    expect(run.stdout).toMatch(
      /^coverage +boundary values from the schemas: lengths at and past minLength\/maxLength/m,
    );
  });

  it.each([
    [["--api-key", "k"], /--base-url is required/],
    [["--base-url", "ftp://x", "--api-key", "k"], /--base-url must be an http: or https: URL, got "ftp:\/\/x"/],
    [["--base-url", "http://127.0.0.1:4999"], /--api-key is required \(or PARTNER_API_KEY\)/],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--other-api-key", "k"],
      /must be another account's key/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--company-id", "acme"],
      /--company-id must be a company's ULID/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--checks", "nope"],
      /--checks: unknown check "nope"; known: not_a_server_error/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--checks", "max_response_time"],
      /needs --max-response-time/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--phases", "examples,fuzzing"],
      /--phases: unknown phase "fuzzing"; known: examples, coverage/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--phases", "coverage"],
      /--phases: coverage needs examples too .*: --phases examples,coverage/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--format", "html"],
      /--format must be one of text, json, junit, markdown, got "html"/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--id", "planet=1"],
      /--id "planet=1": the name must be one of cardHolderId, cardId, routeId, transactionId, walletId/,
    ],
    [["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--id", "routeId=a/b"], /--id routeId= needs a value/],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--max-requests", "0"],
      /--max-requests must be a whole number from 1/,
    ],
    [
      ["--base-url", "http://127.0.0.1:4999", "--api-key", "k", "--output", "no-such-dir-v/r.json"],
      /--output no-such-dir-v\/r.json: its folder does not exist/,
    ],
  ])("%j is bad input (exit 2), named", async (args, message) => {
    const run = await runInProcess(command, args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  // The proxy's exit codes as a process: proxy-recipe.test.ts (0 and 1, through npx); --list-checks: in-process above.
  it("npm run verify exits with the runner's codes as a process", () => {
    const unreachable = runScript("verify.ts", ["--base-url", "http://127.0.0.1:4999", "--api-key", "k"]);
    expect(unreachable.status).toBe(2);
    expect(unreachable.stderr).toMatch(/--base-url http:\/\/127\.0\.0\.1:4999: cannot reach it/);
  });

  it("an unreachable --base-url is bad input (exit 2), named", async () => {
    const run = await runInProcess(command, ["--base-url", "http://127.0.0.1:4999", "--api-key", "k"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/error: --base-url http:\/\/127\.0\.0\.1:4999: cannot reach it \(ECONNREFUSED\)/);
  });

  it("a key the implementation refuses is bad input (exit 2), named", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((_, response) => {
      response.writeHead(401, { "content-type": "application/json" }).end('{"error":"unknown key"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const run = await runInProcess(command, ["--base-url", url, "--api-key", "wrong"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--api-key was refused: listCompanies answered 401/);
    } finally {
      server.close();
    }
  });
});
