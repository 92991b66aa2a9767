/**
 * `npm run mock` (scripts/mock.ts, calling the devkit's `partner-api mock` handler): serves the bundle on
 * MOCK_HOST:MOCK_PORT (or --host/--port), says where, how many operations and how long it took, enforces the
 * contract's rules, stops cleanly on Ctrl-C, and names a bad setting.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { runCommand } from "partner-api-devkit/cli";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { mockCommand } from "../../devkit/src/cli/mock.ts";
import { type MockFront, startMockFront } from "../../devkit/src/mock-front.ts";
import { findFreePort, type PrismServer, startPrism } from "../../devkit/src/prism.ts";
import { bundleJsonPath, repoRoot } from "../../scripts/lib/paths.ts";
import { SOURCE_NODE_ARGS } from "../../scripts/lib/source.ts";
import { loadDocument } from "../contract/support/contract.ts";
import { occupiedPort } from "../helpers/ports.ts";
import { alive } from "../helpers/process.ts";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

interface Run {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runMock(env: Record<string, string>, args: string[] = []): Run {
  // Run the script's own node process (not npm's) so that signals reach it directly.
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, path.join(repoRoot, "scripts", "mock.ts"), ...args], {
    cwd: repoRoot,
    env: { ...process.env, MOCK_PORT: "", MOCK_HOST: "", MOCK_LOG_LEVEL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => ({ stdout, stderr }), exited };
}

async function waitFor(run: Run, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const match = pattern.exec(run.output().stdout);
    if (match) return match;
    if (run.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`mock did not print ${pattern} within ${ms} ms:\n${run.output().stdout}\n${run.output().stderr}`);
}

async function waitForText(read: () => string, text: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!read().includes(text)) {
    if (Date.now() > deadline) throw new Error(`did not see ${JSON.stringify(text)} within ${ms} ms:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("npm run mock", () => {
  it("serves on MOCK_PORT, enforces the rules, and stops cleanly on Ctrl-C", async () => {
    const port = await findFreePort();
    const run = runMock({ MOCK_PORT: String(port) });
    const match = await waitFor(
      run,
      /Mock serving (\d+) operations of generated\/openapi\.yaml on (\S+) \(Prism pid (\d+), started in ([\d.]+ m?s)\)/,
      45_000,
    );
    expect(match[1]).toBe("15");
    const url = match[2]!;
    expect(url).toBe(`http://127.0.0.1:${port}`);
    const prismPid = Number(match[3]);
    expect(run.output().stderr).toMatch(/bundle the contract if stale/);

    const ok = await fetch(`${url}/v1/companies`, { headers: { "X-API-Key": "any" } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).companies.length).toBeGreaterThan(0);
    const noKey = await fetch(`${url}/v1/companies`);
    expect(noKey.status).toBe(401);
    const notFound = await fetch(`${url}/transactions/01JD8Y0A1B2C3D4E5F6G7H8J9K`, {
      headers: { "X-API-Key": "any", Prefer: "code=404" },
    });
    expect(notFound.status).toBe(404);
    const rule = await fetch(`${url}/v1/cards/01JD8X9N4E2R6T8V0W2Y4Z6A8C/spend-settings`, {
      method: "PATCH",
      headers: { "X-API-Key": "any", "X-Company-Id": "01JD8X2K7P3M9Q4R6S8T0V2W4X", "Content-Type": "application/json" },
      body: JSON.stringify({ isUnlimitedLimitPerTransaction: false, isAllowedAllCurrencies: true }),
    });
    expect(rule.status).toBe(422);

    run.child.kill("SIGINT");
    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(run.output().stderr).toMatch(/Ctrl-C: stopping…[\s\S]*✓ mock stopped \(\d+ ms\)/);
    expect(alive(prismPid)).toBe(false);
    await expect(fetch(`${url}/v1/companies`)).rejects.toThrow();
  }, 90_000);

  it("listens on MOCK_HOST, and --port wins over MOCK_PORT", async () => {
    const port = await findFreePort();
    const run = runMock({ MOCK_PORT: "1", MOCK_HOST: "localhost" }, ["--port", String(port)]);
    const match = await waitFor(run, /on (http:\/\/localhost:\d+) /, 45_000);
    expect(match[1]).toBe(`http://localhost:${port}`);
    run.child.kill("SIGTERM");
    expect((await run.exited).code).toBe(0);
  }, 90_000);

  it("--print-address: the address alone is the first line on stdout, the summary on stderr (as the sandbox's)", async () => {
    const run = runMock({}, ["--port", "0", "--print-address"]);
    const [, url] = await waitFor(run, /^(http:\/\/127\.0\.0\.1:\d+)\n/, 45_000);
    await waitForText(() => run.output().stderr, `Mock serving 15 operations of generated/openapi.yaml on ${url} `);
    expect(run.output().stdout).toBe(`${url}\n`);
    expect(run.output().stderr).toContain(`Try: curl -H 'X-API-Key: any' ${url}/v1/companies`);
    expect((await fetch(`${url}/v1/companies`, { headers: { "X-API-Key": "any" } })).status).toBe(200);
    run.child.kill("SIGTERM");
    expect((await run.exited).code).toBe(0);
    expect(run.output().stdout).toBe(`${url}\n`);
  }, 90_000);

  it("refuses a bad MOCK_PORT with exit 2 before starting anything", async () => {
    const run = runMock({ MOCK_PORT: "99999" });
    expect((await run.exited).code).toBe(2);
    expect(run.output().stderr).toContain('error: MOCK_PORT must be a whole number from 0 to 65535, got "99999"');
    expect(run.output().stderr).not.toContain("bundle the contract");
    expect(run.output().stdout).toBe("");
  }, 30_000);

  it("says which port is taken and how to choose another", async () => {
    const { port, server: blocker } = await occupiedPort();
    try {
      const run = runMock({ MOCK_PORT: String(port) });
      expect((await run.exited).code).toBe(1);
      expect(run.output().stderr).toContain(`port ${port} is already in use`);
      expect(run.output().stderr).toContain("set --port (or MOCK_PORT) to a free port");
    } finally {
      blocker.close();
    }
  }, 60_000);
});

describe("partner-api mock / npm run mock: bad settings, in-process", () => {
  afterEach(() => void vi.unstubAllEnvs());

  async function refused(args: string[], env: Record<string, string> = {}) {
    for (const [name, value] of Object.entries({ MOCK_PORT: "", MOCK_HOST: "", MOCK_LOG_LEVEL: "", ...env }))
      vi.stubEnv(name, value);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCommand(mockCommand({ name: "npm run mock --" }), args, {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    });
    return { code, stdout: out.join("\n"), stderr: err.join("\n") };
  }

  it.each([
    [{ MOCK_PORT: "http" }, 'MOCK_PORT must be a whole number from 0 to 65535, got "http"'],
    [
      { MOCK_HOST: "not a host" },
      'MOCK_HOST must be an IP address or a host name (e.g. 127.0.0.1 or localhost), got "not a host"',
    ],
    [
      { MOCK_LOG_LEVEL: "loud" },
      'MOCK_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"',
    ],
  ])("refuses %j, naming the variable", async (env, message) => {
    const run = await refused([], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: ${message}`);
    expect(run.stdout).toBe("");
  });

  it.each([
    [["--retries=1"], "Unknown option '--retries'"],
    [["--port", "http"], '--port must be a whole number from 0 to 65535, got "http"'],
    [["--log-level", "loud"], '--log-level must be one of trace, debug, info, warn, error, fatal, silent, got "loud"'],
    [["extra"], 'unexpected argument "extra"'],
  ])("refuses %j, naming it", async (args, message) => {
    const run = await refused(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it("an option wins over its variable", async () => {
    const run = await refused(["--port", "70000"], { MOCK_PORT: "4010" });
    expect(run.stderr).toContain('--port must be a whole number from 0 to 65535, got "70000"');
  });
});

const company = "01JD8X2K7P3M9Q4R6S8T0V2W4X";
const json = { "X-API-Key": "any", "X-Company-Id": company, "Content-Type": "application/json" };
// [case, path, request, status, what the answer must name: the field, the value received, what is allowed]
const cases: Array<[string, string, RequestInit, number, string[]]> = [
  ["no API key", "/v1/companies", {}, 401, ["X-API-Key", "got nothing", "allowed: any non-empty key"]],
  ["an unknown path", "/v1/nothing", { headers: json }, 404, ["/v1/nothing", "allowed:", "/v1/companies"]],
  ["an unknown method", "/v1/companies", { method: "DELETE", headers: json }, 405, ["DELETE", "allowed: GET, POST"]],
  [
    "an enum value (createCard declares its own 422)",
    "/v1/cards",
    {
      method: "POST",
      headers: json,
      body: JSON.stringify({ cardHolderId: company, name: "Ops", category: "Travel", bin: "45671234" }),
    },
    422,
    ["body/category", '"Travel"', '"TravelExpenses"', '"OfficeSupplies"'],
  ],
  [
    "a conditional rule (if/then)",
    "/v1/cards/01JD8X9N4E2R6T8V0W2Y4Z6A8C/spend-settings",
    {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({ isUnlimitedLimitPerTransaction: false, isAllowedAllCurrencies: true }),
    },
    422,
    ["limitPerTransaction", "required when isUnlimitedLimitPerTransaction is false and was not sent"],
  ],
  [
    "a header and a query parameter",
    "/v1/cards?limit=abc",
    { headers: { "X-API-Key": "any", "X-Company-Id": "not-a-ulid" } },
    422,
    ["X-Company-Id", '"not-a-ulid"', "a ULID", "limit", '"abc"', "an integer"],
  ],
  [
    "a missing required header",
    "/v1/card-bins",
    { headers: { "X-API-Key": "any" } },
    422,
    ["X-Company-Id", "is required"],
  ],
  ["malformed JSON", "/v1/companies", { method: "POST", headers: json, body: "{bad" }, 400, ["not JSON", "position 1"]],
  [
    "a content type the operation does not take",
    "/v1/companies",
    { method: "POST", headers: { ...json, "Content-Type": "text/plain" }, body: "x" },
    415,
    ["Content-Type", '"text/plain"', "application/json"],
  ],
  [
    "a Prefer header naming an example the operation does not have",
    "/transactions/01JD8Y0A1B2C3D4E5F6G7H8J9K",
    { headers: { "X-API-Key": "any", Prefer: "example=nope" } },
    404,
    ['"example=nope"', "code=200", "code=404", "example=bankTransfer"],
  ],
  [
    "a Prefer header naming a status the operation does not document",
    "/transactions/01JD8Y0A1B2C3D4E5F6G7H8J9K",
    { headers: { "X-API-Key": "any", Prefer: "code=418" } },
    404,
    ['"code=418"', "code=403"],
  ],
  [
    "an Accept the operation cannot answer",
    "/v1/companies",
    { headers: { ...json, Accept: "text/html" } },
    406,
    ["Accept", '"text/html"', "application/json"],
  ],
];

describe("the mock's front: Prism's refusals in words (a real Prism behind it)", () => {
  let prism: PrismServer;
  let front: MockFront;
  beforeAll(async () => {
    [prism, front] = await Promise.all([
      startPrism({ document: bundleJsonPath }),
      startMockFront("127.0.0.1", 0, loadDocument()),
    ]);
    front.forwardTo(prism.port);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([front?.close(), prism?.stop()]);
  });

  it.each(cases)(
    "%s: Prism's status, the field, the value and what is allowed",
    async (_name, target, init, status, words) => {
      const answer = await fetch(`${front.url}${target}`, init);
      const text = await answer.text();
      expect(answer.status, text).toBe(status);
      expect(answer.headers.get("sl-violations")).toBeNull();
      const body = JSON.parse(text);
      expect(body).toMatchObject({ type: "about:blank", status });
      for (const word of words) expect(body.detail, text).toContain(word);
      // No validator wording (Ajv's, as Prism gives it), no internal or third-party address.
      expect(text).not.toMatch(
        /must have required property|equal to one of the allowed|must match|must NOT|must be (?:integer|string)|\bschema\b|https?:\/\/|stoplight|Prism/i,
      );
    },
  );

  it("passes on what the contract answers on purpose, unchanged: a success and an asked-for 404", async () => {
    const direct = await fetch(`${prism.url}/v1/companies`, { headers: json });
    const fronted = await fetch(`${front.url}/v1/companies`, { headers: json });
    expect(fronted.status).toBe(200);
    expect(await fronted.text()).toBe(await direct.text());
    const asked = await fetch(`${front.url}/transactions/01JD8Y0A1B2C3D4E5F6G7H8J9K`, {
      headers: { "X-API-Key": "any", Prefer: "code=404" },
    });
    expect(asked.status).toBe(404);
    expect(await asked.text()).not.toContain("No such path");
  });
});
