/**
 * How each runtime runs the scenario (test/runtimes/scenario.ts) against the stub server: Node, Bun and Deno as
 * a module of the partner's app, workerd as a real Worker that the runner calls over HTTP, Chromium as a page. Each
 * returns the scenario's report, and the runner (run.ts) checks the stub's log of the run from outside.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { chromiumPath, launchChromium } from "../../scripts/lib/chromium.ts";
import { BODY, BODY_DIGEST, SECRET } from "../webhooks/known-answers.ts";
import type { ScenarioConfig, ScenarioReport } from "./scenario.ts";
import { STUB_IDS, type StubServer } from "./stub-server.ts";
import { WORKERD_WITHOUT_NODE_GLOBALS } from "./target-names.ts";
import type { Workspace } from "./workspace.ts";

/** The company every scoped call acts for, and ids of the contract's examples. */
export const COMPANY_ID = "01JD8X2K7P3M9Q4R6S8T0V2W4X";
const EXAMPLES = {
  transactionId: "01JD8Y0A1B2C3D4E5F6G7H8J9K",
  cardHolderId: "01JD8X5H3J7K9M1N3P5Q7R9S1T",
  cardIds: ["01JD8X9N4E2R6T8V0W2Y4Z6A8C", "01JD8XA1B3C5D7E9F1G3H5J7K9"],
  ledgerIds: ["01JD8YB4C6D8E0F2G4H6J8K0M2", "01JD8YC5D7E9F1G3H5J7K9M1N3", "01JD8YD6E8F0G2H4J6K8M0N2P4"],
};

export function scenarioConfig(stub: StubServer, runtime: string, nodeCrypto: boolean): ScenarioConfig {
  return {
    baseUrl: stub.url,
    apiKey: `runtime-${runtime}-key`,
    companyId: COMPANY_ID,
    ids: STUB_IDS,
    examples: EXAMPLES,
    webhook: { body: BODY, signature: BODY_DIGEST, secret: SECRET },
    nodeCrypto,
  };
}

/** What the stub must have seen of one scenario run, whatever the runtime says of itself. */
export function checkStubLog(stub: StubServer, config: ScenarioConfig): string[] {
  const seen = stub.requestsOf(config.apiKey);
  const count = (pattern: RegExp) => seen.filter((line) => pattern.test(line)).length;
  const scope = ` company=${config.companyId}`;
  const problems: string[] = [];
  const expect = (what: string, found: number, wanted: number) => {
    if (found !== wanted) problems.push(`the stub saw ${found} × ${what}, expected ${wanted}`);
  };
  expect("GET /v1/card-bins acting for the company", count(new RegExp(`^GET /v1/card-bins${scope}$`)), 1);
  expect(
    `GET of the flaky card holder (two 503s, then 200)`,
    count(new RegExp(`^GET /v1/card-holders/${STUB_IDS.flaky}${scope}$`)),
    3,
  );
  expect(
    "POST of card details for the flaky card (not safe to repeat)",
    count(new RegExp(`^POST /v1/cards/${STUB_IDS.flaky}/details`)),
    1,
  );
  // Page 1 twice: the whole list, then once more for `maxItems: 1`.
  for (const [page, times] of [
    [1, 2],
    [2, 1],
    [3, 1],
  ] as const)
    expect(
      `GET /v1/cards?limit=1&page=${page}`,
      count(new RegExp(`^GET /v1/cards\\?limit=1&page=${page}${scope}$`)),
      times,
    );
  expect("request with the bad id ../x (stopped before sending)", count(/\.\.\/x|%2F/), 0);
  return problems;
}

export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after `timeoutMs`), with its output kept to the last 1 MB. */
export function runChild(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const keep = (text: string) => (text.length > 1_000_000 ? text.slice(-1_000_000) : text);
    child.stdout.on("data", (chunk: Buffer) => (stdout = keep(stdout + chunk.toString())));
    child.stderr.on("data", (chunk: Buffer) => (stderr = keep(stderr + chunk.toString())));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The report the scenario printed as its last line, or an error saying what the runtime printed instead. */
function reportOf(name: string, result: ChildRun): ScenarioReport {
  const last = result.stdout.trim().split("\n").at(-1) ?? "";
  if (result.code === 0 && last.startsWith("{")) return JSON.parse(last) as ScenarioReport;
  throw new Error(`${name} exited ${result.code}:\n${(result.stderr || result.stdout).trim().slice(-4000)}`);
}

export type ModuleRuntime = "node" | "bun" | "deno";

/** Node, Bun or Deno: the scenario as a module of the app, `partner-api-client` resolved by the runtime itself. */
export async function runModule(
  kind: ModuleRuntime,
  id: string,
  binary: string,
  workspace: Workspace,
  config: ScenarioConfig,
): Promise<ScenarioReport> {
  const entry = path.join(workspace.app, `run-${id}.mjs`);
  await writeFile(path.join(workspace.app, `config-${id}.json`), JSON.stringify(config));
  await writeFile(
    entry,
    `import { runScenario } from "./scenario.mjs";\nimport config from "./config-${id}.json" with { type: "json" };\n` +
      "console.log(JSON.stringify(await runScenario(config)));\n",
  );
  const host = new URL(config.baseUrl).host;
  const args =
    kind === "deno"
      ? ["run", "--no-prompt", "--no-lock", `--allow-net=${host}`, `--allow-read=${workspace.app}`, entry]
      : [entry];
  // Deno keeps its cache in the app, so a run leaves nothing behind.
  const env =
    kind === "deno" ? { ...process.env, DENO_DIR: path.join(workspace.app, ".deno"), NO_COLOR: "1" } : process.env;
  return reportOf(id, await runChild(binary, args, { cwd: workspace.app, env }));
}

/** A started child that reports its listening port on a control pipe (workerd's --control-fd). */
async function startWorkerd(
  binary: string,
  config: string,
  cwd: string,
): Promise<{ child: ChildProcess; port: number; output(): string }> {
  const child = spawn(binary, ["serve", config, "--control-fd=3"], { cwd, stdio: ["ignore", "pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const control = child.stdio[3] as NodeJS.ReadableStream;
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`workerd did not start listening in 30 s:\n${output}`)), 30_000);
    control.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      for (const line of text.split("\n")) {
        const event = line.trim()
          ? (JSON.parse(line) as { event?: string; socket?: string; port?: number })
          : undefined;
        if (event?.event === "listen" && event.socket === "http" && event.port) {
          clearTimeout(timer);
          resolve(event.port);
        }
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`workerd exited ${code} before listening:\n${output}`));
    });
  });
  return { child, port, output: () => output };
}

/** The workerd config: the Worker, its secret, outbound fetches allowed to loopback only. */
function workerdConfig(compatibilityDate: string, secret: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "${compatibilityDate}",
  bindings = [(name = "WEBHOOK_SECRET", text = ${JSON.stringify(secret)})],
  globalOutbound = "loopback",
);
`;
}

/**
 * workerd: the Worker bundle served by workerd itself, under each compatibility date. The runner calls it: the
 * scenario inside one request; a signed and a changed webhook delivered to the Worker's receiver as incoming
 * Requests; one client kept across requests, whose timeout must still fire in a later request than the one that
 * built it; and, under the earlier date, that the Worker has no `Buffer`.
 */
export async function runWorkerd(
  binary: string,
  version: string,
  workspace: Workspace,
  config: ScenarioConfig,
  verify: (config: ScenarioConfig, report: ScenarioReport) => void,
): Promise<ScenarioReport> {
  let report: ScenarioReport | undefined;
  for (const date of [version, WORKERD_WITHOUT_NODE_GLOBALS]) {
    const dated = { ...config, apiKey: `${config.apiKey}-${date}` };
    const run = await runWorkerdAt(binary, date, workspace, dated);
    verify(dated, run);
    report = report ? { root: report.root, checks: [...report.checks, ...run.checks] } : run;
  }
  return report!;
}

async function runWorkerdAt(
  binary: string,
  date: string,
  workspace: Workspace,
  config: ScenarioConfig,
): Promise<ScenarioReport> {
  await writeFile(path.join(workspace.app, "worker.mjs"), workspace.worker);
  const configFile = path.join(workspace.app, `workerd-${date}.capnp`);
  await writeFile(configFile, workerdConfig(date, config.webhook.secret));
  const workerd = await startWorkerd(binary, configFile, workspace.app);
  const origin = `http://127.0.0.1:${workerd.port}`;
  const call = async (route: string, init?: RequestInit) => {
    const response = await fetch(`${origin}${route}`, init);
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined };
  };
  const fail = (what: string, detail: unknown) => {
    throw new Error(
      `workerd (compatibility date ${date}): ${what}: ${JSON.stringify(detail)}\n${workerd.output().slice(-2000)}`,
    );
  };
  try {
    const scenario = await call("/scenario", { method: "POST", body: JSON.stringify(config) });
    if (scenario.status !== 200) fail("the scenario failed in the Worker", scenario.body?.error ?? scenario.body);
    const report = scenario.body as ScenarioReport;
    const checks = report.checks.map((check) => `${check} (compatibility date ${date})`);
    const { body, signature } = config.webhook;
    const deliver = (text: string) =>
      call("/webhooks", { method: "POST", body: text, headers: { "x-signature": signature } });
    const [signed, changed] = [await deliver(body), await deliver(body.replace("approved", "rejected"))];
    if (signed.status !== 200 || changed.status !== 401)
      fail("the Worker's webhook receiver answered", [signed, changed]);
    const received = await call("/received");
    if (received.body?.length !== 1) fail("the Worker's handler ran for", received.body);
    checks.push(
      `worker: a signed delivery to the Worker's own fetch is handled (200), a changed one refused (401) (${date})`,
    );
    const kept = (cardHolderId: string) =>
      call("/kept", {
        method: "POST",
        body: JSON.stringify({
          baseUrl: config.baseUrl,
          apiKey: config.apiKey,
          companyId: config.companyId,
          cardHolderId,
        }),
      });
    const first = await kept(config.examples.cardHolderId);
    const late = await kept(config.ids.slow);
    const again = await kept(config.examples.cardHolderId);
    if (first.body?.status !== 200 || late.body?.error !== "TimeoutError" || again.body?.status !== 200)
      fail("a client kept across requests", [first.body, late.body, again.body]);
    checks.push(`worker: a client built in one request times out and calls again in later ones (${date})`);
    if (date === WORKERD_WITHOUT_NODE_GLOBALS) {
      const globals = await call("/globals");
      if (globals.body?.Buffer !== "undefined") fail("the Worker has Node's Buffer", globals.body);
      checks.push(`worker: no Buffer and no process in the Worker (${date})`);
    }
    return { root: report.root, checks };
  } finally {
    workerd.child.kill("SIGKILL");
  }
}

/** Chromium: the browser bundle in a page of the stub's own origin (a secure context on 127.0.0.1). */
export async function runChromium(
  workspace: Workspace,
  stub: StubServer,
  config: ScenarioConfig,
): Promise<{ report: ScenarioReport; version: string }> {
  stub.serveFile("/runtime/scenario.js", "text/javascript", workspace.browser);
  stub.serveFile(
    "/runtime/",
    "text/html",
    '<!doctype html><meta charset="utf-8"><script src="/runtime/scenario.js"></script>',
  );
  const browser = await launchChromium().catch((error: Error) => {
    throw new Error(`Chromium (${chromiumPath()}) did not start: ${error.message}`);
  });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${stub.url}/runtime/`);
    const outcome = await page.evaluate(async (settings) => {
      const runtime = (globalThis as unknown as { partnerRuntime?: { runScenario(c: unknown): Promise<unknown> } })
        .partnerRuntime;
      if (!runtime) return { error: "the bundle defined no partnerRuntime" };
      try {
        return { report: await runtime.runScenario(settings) };
      } catch (error) {
        return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
      }
    }, config);
    if ("error" in outcome)
      throw new Error(
        `the scenario failed in Chromium: ${outcome.error}${errors.length ? `\npage errors: ${errors.join("\n")}` : ""}`,
      );
    if (errors.length > 0) throw new Error(`Chromium page errors: ${errors.join("\n")}`);
    return { report: outcome.report as ScenarioReport, version: browser.version() };
  } finally {
    await browser.close();
  }
}
