/**
 * The devkit's smoke test under one Node of the matrix: the `partner-api` command as the devkit's build ships it
 * (bundled into dist/ by devkit/scripts/build.ts, its dependencies resolved as a partner's install resolves them, the
 * client being the built package of workspace.ts), started with that Node: the sandbox with `--state` (a company
 * made, the sandbox stopped and started again, the company still there), `verify` against it, `proxy` in front of
 * it, the Prism mock, and `webhooks listen` receiving a `webhooks trigger`. Every server is stopped with Ctrl-C's
 * SIGINT and must say it stopped.
 */
import { spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { bundleDevkit } from "../../devkit/scripts/build.ts";
import { MINIMUM_NODE } from "../../devkit/src/cli/node-version.ts";
import { repoRoot } from "../../scripts/lib/paths.ts";
import { type Served, watchServed } from "../helpers/served.ts";
import { runChild } from "./targets.ts";
import type { Workspace } from "./workspace.ts";

export interface DevkitBuild {
  /** The built bin, dist/cli.js. */
  cli: string;
}

/** The devkit package built into `work`, its dependencies linked from the repository's, the client from `workspace`. */
export async function makeDevkit(work: string, workspace: Workspace): Promise<DevkitBuild> {
  const dir = path.join(work, "partner-api-devkit");
  await mkdir(path.join(dir, "node_modules"), { recursive: true });
  await cp(path.join(repoRoot, "devkit", "package.json"), path.join(dir, "package.json"));
  await bundleDevkit(path.join(dir, "dist"), { out: () => {}, err: () => {} });
  const installed = path.join(repoRoot, "node_modules");
  for (const name of await readdir(installed)) {
    if (name === "partner-api-client" || name === "partner-api-devkit" || name.startsWith(".")) continue;
    await symlink(path.join(installed, name), path.join(dir, "node_modules", name));
  }
  await symlink(
    path.join(workspace.app, "node_modules", "partner-api-client"),
    path.join(dir, "node_modules", "partner-api-client"),
  );
  return { cli: path.join(dir, "dist", "cli.js") };
}

function serve(node: string, cli: string, args: string[], cwd: string): Served {
  const child = spawn(node, [cli, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  child.once("exit", () => clearTimeout(timer));
  return watchServed(child, `partner-api ${args.join(" ")}`, () => child.kill("SIGINT"));
}

const COMPANY = {
  name: "Smoke Test Ltd",
  countryCode: "US",
  directorName: "Maria Garcia",
  directorEmail: "maria@smoke.example",
  directorPhone: "+14155550123",
  addressLine1: "500 Market Street",
  city: "San Francisco",
  state: "CA",
  postalCode: "94105",
  products: ["Card"],
};

/** Runs the smoke test with `node`; returns what it proved, or throws naming the command that failed. */
/**
 * The built command under a Node below its `engines`: it must exit 2 at start with the one-line message of
 * devkit/src/cli/node-version.ts naming that Node's version, print nothing else, and so load none of the modules
 * that would fail there first (node:sqlite among them).
 */
export async function refusedDevkit(
  build: DevkitBuild,
  node: { path: string; version: string },
  work: string,
): Promise<string> {
  const cwd = await mkdtemp(path.join(work, "devkit-refused-"));
  const state = path.join(cwd, "sandbox-state");
  const started = await runChild(node.path, [build.cli, "sandbox", "--port", "0", "--state", state], { cwd });
  const expected = `error: partner-api needs Node.js ${MINIMUM_NODE.join(".")} or later`;
  const said = `exit ${started.code}, stdout ${JSON.stringify(started.stdout)}, stderr ${JSON.stringify(started.stderr)}`;
  if (started.code !== 2 || started.stdout !== "" || !started.stderr.startsWith(expected))
    throw new Error(`partner-api under Node.js ${node.version} was not refused at start as expected: ${said}`);
  if (!started.stderr.includes(`this is Node.js ${node.version}.`) || started.stderr.trim().includes("\n"))
    throw new Error(`the refusal under Node.js ${node.version} is not one line naming the version: ${said}`);
  if ((await readdir(cwd)).length > 0) throw new Error(`partner-api under Node.js ${node.version} wrote into ${cwd}`);
  return `Node.js ${node.version}: partner-api refused at start (exit 2), naming the version`;
}

/** One smoke run: the Node and build under test, its folder, the servers it started and what it proved. */
interface Smoke {
  build: DevkitBuild;
  node: { path: string; version: string };
  cwd: string;
  key: { "X-API-Key": string };
  proved: string[];
  start(args: string[]): Served;
  stopped(server: Served, pattern: RegExp, what: string): Promise<void>;
}

/** The sandbox with a state file: a company made in one run is there in the next. Returns the second run. */
async function sandboxKeepsState(smoke: Smoke): Promise<{ url: string; second: Served }> {
  const state = path.join(smoke.cwd, "sandbox-state.json");
  const sandboxArgs = ["sandbox", "--port", "0", "--seed", "1", "--state", state];
  const first = smoke.start(sandboxArgs);
  const [, firstUrl] = await first.waitFor(/Sandbox serving the partner API on (\S+) /);
  const made = await fetch(`${firstUrl}/v1/companies`, {
    method: "POST",
    headers: { ...smoke.key, "Content-Type": "application/json" },
    body: JSON.stringify(COMPANY),
  });
  if (made.status !== 201) throw new Error(`sandbox: POST /v1/companies answered ${made.status}: ${await made.text()}`);
  const { company } = (await made.json()) as { company: { id: string } };
  await smoke.stopped(first, /✓ sandbox stopped/, "the sandbox");
  const second = smoke.start(sandboxArgs);
  const [, url] = await second.waitFor(/Sandbox serving the partner API on (\S+) /);
  const listed = (await (await fetch(`${url}/v1/companies`, { headers: smoke.key })).json()) as {
    companies?: { id?: string }[];
  };
  if (!listed.companies?.some((entry) => entry.id === company.id))
    throw new Error(`sandbox --state: the company made before the restart is gone: ${JSON.stringify(listed)}`);
  smoke.proved.push("sandbox --state");
  return { url: url!, second };
}

/** verify against the running sandbox, and the proxy in front of it; stops the sandbox. */
async function verifyAndProxy(smoke: Smoke, url: string, second: Served) {
  const verify = await runChild(
    smoke.node.path,
    [
      smoke.build.cli,
      "verify",
      "--base-url",
      url,
      "--api-key",
      "devkit-verify-key",
      "--other-api-key",
      "devkit-other-key",
      // A full run: read-only, a fresh account's payment routes cannot be read, and verify counts the
      // operations it could not check as a failure (--min-coverage).
      "--allow-writes",
    ],
    { cwd: smoke.cwd, timeoutMs: 120_000 },
  );
  if (verify.code !== 0)
    throw new Error(
      `verify against the sandbox exited ${verify.code}:\n${(verify.stdout + verify.stderr).slice(-3000)}`,
    );
  smoke.proved.push("verify");
  const proxy = smoke.start(["proxy", "--upstream", url, "--port", "0"]);
  const [, proxyUrl] = await proxy.waitFor(/Proxy on (\S+) →/);
  const through = await fetch(`${proxyUrl}/v1/companies`, { headers: smoke.key });
  if (through.status !== 200) throw new Error(`proxy: GET /v1/companies answered ${through.status}`);
  await through.arrayBuffer();
  await smoke.stopped(proxy, /✓ proxy stopped/, "the proxy");
  await smoke.stopped(second, /✓ sandbox stopped/, "the sandbox");
  smoke.proved.push("proxy");

  return verify;
}

/** The Prism mock answers and stops. */
async function mockAnswers(smoke: Smoke): Promise<void> {
  const mock = smoke.start(["mock", "--port", "0"]);
  const [, mockUrl] = await mock.waitFor(/Mock serving \d+ operations of \S+ on (\S+) /);
  const mocked = await fetch(`${mockUrl}/v1/companies`, { headers: smoke.key });
  if (mocked.status !== 200) throw new Error(`mock: GET /v1/companies answered ${mocked.status}`);
  await mocked.arrayBuffer();
  await smoke.stopped(mock, /✓ mock stopped/, "the mock");
  smoke.proved.push("mock");
}

/** webhooks listen receives what webhooks trigger sends. */
async function webhooksDeliver(smoke: Smoke) {
  const secret = "whsec_devkit_smoke";
  const listen = smoke.start(["webhooks", "listen", "--port", "0", "--secret", secret]);
  const [, listenUrl] = await listen.waitFor(/listening on (\S+) /);
  const trigger = await runChild(
    smoke.node.path,
    [
      smoke.build.cli,
      "webhooks",
      "trigger",
      "company.kyc_status_changed",
      "--url",
      listenUrl!,
      "--secret",
      secret,
      "--id",
      "evt_devkit_smoke",
    ],
    { cwd: smoke.cwd },
  );
  if (trigger.code !== 0 || !/delivered evt_devkit_smoke on attempt 1\//.test(trigger.stdout))
    throw new Error(`webhooks trigger exited ${trigger.code}:\n${(trigger.stdout + trigger.stderr).slice(-2000)}`);
  await listen.waitFor(/200 handled company\.kyc_status_changed evt_devkit_smoke/);
  await smoke.stopped(listen, /stopped: 1 deliveries, 1 accepted/, "webhooks listen");
  smoke.proved.push("webhooks listen");
  return trigger;
}

export async function smokeDevkit(
  build: DevkitBuild,
  node: { path: string; version: string },
  work: string,
): Promise<string> {
  const cwd = await mkdtemp(path.join(work, "devkit-"));
  const served: Served[] = [];
  const smoke: Smoke = {
    build,
    node,
    cwd,
    key: { "X-API-Key": "devkit-smoke-key" },
    proved: [],
    start: (args) => {
      const server = serve(node.path, build.cli, args, cwd);
      served.push(server);
      return server;
    },
    stopped: async (server, pattern, what) => {
      const output = await server.interrupt();
      if (!pattern.test(output)) throw new Error(`${what} did not say it stopped:\n${output.slice(-2000)}`);
    },
  };
  try {
    const versionRun = await runChild(node.path, [build.cli, "--version"], { cwd });
    if (versionRun.code !== 0) throw new Error(`partner-api --version exited ${versionRun.code}: ${versionRun.stderr}`);
    const { url, second } = await sandboxKeepsState(smoke);
    const verify = await verifyAndProxy(smoke, url, second);
    await mockAnswers(smoke);
    const trigger = await webhooksDeliver(smoke);
    // What a partner would see on this Node that the others do not print: deprecations, experimental features.
    const printed = [versionRun, verify, trigger].map((done) => done.stdout + done.stderr);
    const warnings = [...served.map((server) => server.output()), ...printed].flatMap(
      (text) => text.match(/\(node:\d+\) (\[\w+\] )?\w*Warning: .*/g) ?? [],
    );
    if (warnings.length > 0)
      throw new Error(`Node.js ${node.version} printed warnings: ${[...new Set(warnings)].join("; ")}`);
    smoke.proved.push("no warnings");
    return `partner-api under Node.js ${node.version}: ${smoke.proved.join(", ")}`;
  } finally {
    for (const server of served)
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
  }
}
